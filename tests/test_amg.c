/* test_amg.c -- CSR kernels, the probed SIPDG matrix, and aggregation AMG (paper §3).
 *
 *  1. insdg_assemble_sipdg equals the column-by-column application of the operator
 *     (<= 1e-13 max|A|) for N = 1, 3, 5 with Dirichlet and Neumann faces, and is symmetric;
 *     the element colouring is a distance-2 colouring; N = 5 too; the diagonal probed
 *     without assembly (whole mesh and a middle range) is bitwise the assembled one;
 *  2. CSR y = A x, transpose, A B and R A P agree with dense arithmetic;
 *  3. FPCG with AMG reaches 1e-8 on the degree-1 Dirichlet Poisson matrix of jittered
 *     16x16, 32x32, 64x64 rectangles in <= 30 iterations, growing by <= 5 from 16 to 64
 *     (unpreconditioned CG, for contrast, needs far more), on the degree-3 matrix within
 *     100, and on the pure-Neumann matrix with a compatible right-hand side; on one level
 *     the cycle is the exact inverse (Dirichlet) or the pseudo-inverse (Neumann);
 *  4. the cycle as a stationary iteration x += B(b - A x) contracts the residual by
 *     < 0.5 per cycle on the 32x32 degree-1 matrix;
 *  5. the banded Cholesky (src/band.c): RCM brings a 5-point Laplacian on a 30 x 20 grid,
 *     rows shuffled, to a half bandwidth of at most 21 (a grid's is its shorter side
 *     plus one, from a corner), also when the matrix holds two such grids unconnected; the
 *     solve leaves |b - A x| <= 1e-12 |b| there and on the degree-1 and degree-3 Dirichlet
 *     SIPDG matrices; a singular (pure-Neumann) matrix, a band wider than the limit and
 *     one over the byte limit are refused.
 * Usage: test_amg
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "amg.h"
#include "assemble.h"
#include "band.h"
#include "block.h"
#include "csr.h"
#include "error.h"
#include "mesh.h"
#include "ops.h"
#include "partition.h"
#include "ref_tri.h"
#include "spchol.h"

#include "expect.h"

static double *dalloc(size_t n) { return insdg_calloc(n > 0 ? n : 1, sizeof(double)); }

static double uniform(unsigned *state)   /* in [-1, 1) */
{
  *state = *state * 1664525u + 1013904223u;
  return 2.0 * ((*state >> 8) / 16777216.0) - 1.0;
}

static double norm2(const double *a, size_t n)
{
  double s = 0;
  for (size_t i = 0; i < n; ++i) s += a[i] * a[i];
  return sqrt(s);
}

/* per-face codes of the block of all elements, every boundary face `code` */
static signed char *face_codes(const insdg_mesh *m, signed char code)
{
  signed char codes[INSDG_MAX_BOUNDARIES], *bc = insdg_malloc(3 * (size_t)m->K);
  for (int i = 0; i < INSDG_MAX_BOUNDARIES; ++i) codes[i] = code;
  insdg_block *b = insdg_block_create(m, 0, m->K);
  insdg_block_bc_codes(b, codes, bc);
  insdg_block_destroy(b);
  return bc;
}

/* ---- 1. assembly ---------------------------------------------------------------------- */

/* the reference: column j = A e_j, dense row-major */
static double *columnwise(const insdg_mesh *m, const insdg_ops *op, const signed char *bc, double lambda)
{
  const size_t n = (size_t)m->K * m->ref->Np;
  insdg_block *b = insdg_block_create(m, 0, m->K);
  double *A = dalloc(n * n), *u = dalloc(n), *ux = dalloc(n), *uy = dalloc(n), *col = dalloc(n);
  for (size_t j = 0; j < n; ++j) {
    u[j] = 1;
    insdg_op_local_gradient(op, b, u, ux, uy);
    insdg_op_sipdg(op, b, bc, lambda, u, ux, uy, NULL, NULL, NULL, col);
    u[j] = 0;
    for (size_t i = 0; i < n; ++i) A[i * n + j] = col[i];
  }
  free(u), free(ux), free(uy), free(col);
  insdg_block_destroy(b);
  return A;
}

static void test_colouring(const insdg_mesh *m)
{
  int *colour = insdg_malloc(sizeof(int) * (size_t)m->K), bad = 0;
  const int ncolours = insdg_assemble_colour_elements(m, colour);
  for (int e = 0; e < m->K; ++e)
    for (int f = 0; f < 3; ++f) {
      const int nb = m->EToE[3 * e + f];
      bad += nb != e && colour[nb] == colour[e];
      for (int g = 0; g < 3; ++g) {
        const int nb2 = m->EToE[3 * nb + g];
        bad += nb2 != e && colour[nb2] == colour[e];
      }
    }
  EXPECT(bad == 0 && ncolours <= 10, "colouring: %d conflicts within distance 2, %d colours", bad, ncolours);
  printf("colouring: K=%d, %d colours, %d conflicts\n", m->K, ncolours, bad);
  free(colour);
}

static void test_assembly(void)
{
  insdg_mesh *m = insdg_mesh_rectangle(4, 3, -1.0, 1.0, 0.0, 1.5, 0.25, 7u);
  test_colouring(m);
  const int degrees[3] = {1, 3, 5};
  for (int d = 0; d < 3; ++d) {
    insdg_ref *ref = insdg_ref_create(degrees[d]);
    insdg_ops *op = insdg_ops_create(ref);
    insdg_mesh_set_ref(m, ref);
    const size_t n = (size_t)m->K * ref->Np;
    struct { signed char code; double lambda; const char *name; } cases[] = {
        {INSDG_BC_DIRICHLET, 0.0, "Dirichlet, lambda=0"}, {INSDG_BC_NEUMANN, 0.0, "Neumann, lambda=0"},
        {INSDG_BC_NEUMANN, 3.0, "Neumann, lambda=3"}};
    for (int c = 0; c < 3; ++c) {
      signed char *bc = face_codes(m, cases[c].code);
      double *ref_A = columnwise(m, op, bc, cases[c].lambda), *got = dalloc(n * n);
      insdg_csr *A = insdg_assemble_sipdg(m, op, bc, cases[c].lambda);
      insdg_csr_to_dense(A, got);
      double amax = 0, diff = 0, asym = 0;
      int zeros = 0;
      for (size_t i = 0; i < n * n; ++i) amax = fmax(amax, fabs(ref_A[i])), diff = fmax(diff, fabs(got[i] - ref_A[i]));
      for (size_t i = 0; i < n; ++i)
        for (size_t j = 0; j < i; ++j) asym = fmax(asym, fabs(got[i * n + j] - got[j * n + i]));
      for (int k = 0; k < A->nnz; ++k) zeros += A->val[k] == 0.0;
      EXPECT(diff <= 1e-13 * amax, "assembly N=%d %s: max diff %.3e, max|A| %.3e", ref->N, cases[c].name, diff, amax);
      EXPECT(asym <= 1e-12 * amax, "assembly N=%d %s: |A-A^T| %.3e, max|A| %.3e", ref->N, cases[c].name, asym, amax);
      EXPECT(A->nrows == (int)n && zeros == 0, "assembly N=%d %s: %d rows, %d stored zeros", ref->N, cases[c].name,
             A->nrows, zeros);
      printf("assembly N=%d %-20s n=%zu nnz=%d  |A - columns|/|A| = %.1e  |A-A^T|/|A| = %.1e\n", ref->N,
             cases[c].name, n, A->nnz, diff / amax, asym / amax);
      /* the diagonal without assembly, on the whole mesh and on a middle range (whose
         neighbours outside are a zero halo): bitwise the assembled diagonal */
      const int ranges[2][2] = {{0, m->K}, {m->K / 3, 2 * m->K / 3}};
      for (int r = 0; r < 2; ++r) {
        const int e0 = ranges[r][0], e1 = ranges[r][1], Np = ref->Np;
        double *dg = dalloc((size_t)(e1 - e0) * Np);
        insdg_assemble_sipdg_diagonal(m, op, bc, cases[c].lambda, e0, e1, dg);
        int differ = 0;
        for (int i = 0; i < (e1 - e0) * Np; ++i) {
          const size_t row = (size_t)e0 * Np + i;
          differ += dg[i] != got[row * n + row];
        }
        EXPECT(differ == 0, "diagonal N=%d %s elements [%d, %d): %d entries differ from the assembled diagonal",
               ref->N, cases[c].name, e0, e1, differ);
        free(dg);
        /* the element diagonal blocks (the pMG block-Jacobi smoother's): bitwise the
           assembled matrix's Np x Np blocks on the diagonal */
        double *db = dalloc((size_t)(e1 - e0) * Np * Np);
        insdg_assemble_sipdg_diagonal_blocks(m, op, bc, cases[c].lambda, e0, e1, db);
        differ = 0;
        for (int e = e0; e < e1; ++e)
          for (int i = 0; i < Np; ++i)
            for (int j = 0; j < Np; ++j)
              differ += db[((size_t)(e - e0) * Np + i) * Np + j] != got[((size_t)e * Np + i) * n + (size_t)e * Np + j];
        EXPECT(differ == 0, "diagonal blocks N=%d %s elements [%d, %d): %d entries differ from the assembled blocks",
               ref->N, cases[c].name, e0, e1, differ);
        free(db);
      }
      insdg_csr_destroy(A);
      free(ref_A), free(got), free(bc);
    }
    insdg_ops_destroy(op);
    insdg_ref_destroy(ref);
  }
  insdg_mesh_destroy(m);
}

/* ---- 2. CSR kernels --------------------------------------------------------------------- */

static double *random_sparse_dense(int rows, int cols, double fill, unsigned *state)
{
  double *a = dalloc((size_t)rows * cols);
  for (int i = 0; i < rows * cols; ++i)
    if (0.5 * (uniform(state) + 1.0) < fill) a[i] = uniform(state);
  return a;
}

static void dense_mul(const double *a, const double *b, double *c, int n, int k, int m)
{
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < m; ++j) {
      double s = 0;
      for (int q = 0; q < k; ++q) s += a[i * k + q] * b[q * m + j];
      c[i * m + j] = s;
    }
}

static double maxdiff(const double *a, const double *b, size_t n)
{
  double d = 0;
  for (size_t i = 0; i < n; ++i) d = fmax(d, fabs(a[i] - b[i]));
  return d;
}

static int rows_sorted(const insdg_csr *A)
{
  for (int i = 0; i < A->nrows; ++i)
    for (int k = A->row_ptr[i] + 1; k < A->row_ptr[i + 1]; ++k)
      if (A->col[k] <= A->col[k - 1]) return 0;
  return 1;
}

static void test_csr(void)
{
  unsigned state = 99u;
  enum { n = 9, nc = 4 };
  double *a = random_sparse_dense(n, n, 0.35, &state), *p = random_sparse_dense(n, nc, 0.4, &state);
  double x[n], y[n], yd[n], d[n], pt[nc * n], ap[n * nc], rap[nc * nc], got[n * n];
  for (int i = 0; i < n; ++i) x[i] = uniform(&state), a[i * n + i] = 2.0 + i;
  insdg_csr *A = insdg_csr_from_dense(n, n, a), *P = insdg_csr_from_dense(n, nc, p);
  /* y = A x */
  insdg_csr_matvec(A, x, y);
  dense_mul(a, x, yd, n, n, 1);
  EXPECT(maxdiff(y, yd, n) <= 1e-14, "csr matvec: diff %.3e", maxdiff(y, yd, n));
  /* diagonal */
  insdg_csr_diagonal(A, d);
  for (int i = 0; i < n; ++i) EXPECT(d[i] == a[i * n + i], "csr diagonal %d: %g vs %g", i, d[i], a[i * n + i]);
  /* transpose */
  insdg_csr *R = insdg_csr_transpose(P);
  insdg_csr_to_dense(R, got);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < nc; ++j) pt[j * n + i] = p[i * nc + j];
  EXPECT(R->nrows == nc && R->ncols == n && rows_sorted(R) && maxdiff(got, pt, nc * n) == 0.0, "csr transpose");
  /* A P and R A P */
  insdg_csr *AP = insdg_csr_matmul(A, P), *RAP = insdg_csr_galerkin(R, A, P);
  dense_mul(a, p, ap, n, n, nc);
  dense_mul(pt, ap, rap, nc, n, nc);
  insdg_csr_to_dense(AP, got);
  EXPECT(rows_sorted(AP) && maxdiff(got, ap, n * nc) <= 1e-13, "csr matmul: diff %.3e", maxdiff(got, ap, n * nc));
  insdg_csr_to_dense(RAP, got);
  EXPECT(rows_sorted(RAP) && maxdiff(got, rap, nc * nc) <= 1e-13, "csr galerkin: diff %.3e",
         maxdiff(got, rap, nc * nc));
  printf("csr: matvec, diagonal, transpose, matmul and R A P agree with dense (R A P diff %.1e)\n",
         maxdiff(got, rap, nc * nc));
  insdg_csr_destroy(A), insdg_csr_destroy(P), insdg_csr_destroy(R), insdg_csr_destroy(AP), insdg_csr_destroy(RAP);
  free(a), free(p);
}

/* ---- 3, 4. AMG -------------------------------------------------------------------------- */

typedef struct {
  insdg_mesh *m;
  insdg_ref *ref;
  insdg_ops *op;
  insdg_csr *A;
} problem;

static problem poisson(int cells, int N, signed char code, unsigned seed)
{
  problem p;
  p.m = insdg_mesh_rectangle(cells, cells, 0.0, 1.0, 0.0, 1.0, 0.2, seed);
  p.ref = insdg_ref_create(N);
  p.op = insdg_ops_create(p.ref);
  insdg_mesh_set_ref(p.m, p.ref);
  signed char *bc = face_codes(p.m, code);
  p.A = insdg_assemble_sipdg(p.m, p.op, bc, 0.0);
  free(bc);
  return p;
}

static void problem_destroy(problem *p)
{
  insdg_csr_destroy(p->A), insdg_ops_destroy(p->op), insdg_ref_destroy(p->ref), insdg_mesh_destroy(p->m);
}

static double *random_rhs(int n, int compatible)
{
  unsigned state = 2024u;
  double *b = dalloc((size_t)n), mean = 0;
  for (int i = 0; i < n; ++i) b[i] = uniform(&state), mean += b[i];
  mean /= n;
  if (compatible)   /* orthogonal to the constants, the null space of the Neumann matrix */
    for (int i = 0; i < n; ++i) b[i] -= mean;
  return b;
}

/* FPCG iterations to 1e-8 with AMG (or none); -1 if not converged in maxit. If x_out is
   not NULL it receives the solution (caller frees). */
static int solve_x(const insdg_csr *A, const double *b, const insdg_amg *amg, int maxit, double *relres, double **x_out)
{
  double *x = dalloc((size_t)A->nrows);
  int iters = 0;
  const int rc = insdg_fpcg_csr(A, b, x, amg ? insdg_amg_precondition : NULL, (void *)amg, 1e-8, maxit, &iters, relres);
  /* the true residual, not the recursively updated one */
  double *r = dalloc((size_t)A->nrows);
  insdg_csr_residual(A, x, b, r);
  *relres = norm2(r, (size_t)A->nrows) / norm2(b, (size_t)A->nrows);
  free(r);
  if (x_out) *x_out = x;
  else free(x);
  return rc == 0 && *relres <= 2e-8 ? iters : -1;
}

static int solve(const insdg_csr *A, const double *b, const insdg_amg *amg, int maxit, double *relres)
{
  return solve_x(A, b, amg, maxit, relres, NULL);
}

static void test_amg_dirichlet(void)
{
  const int cells[3] = {16, 32, 64};
  int its[3];
  for (int k = 0; k < 3; ++k) {
    problem p = poisson(cells[k], 1, INSDG_BC_DIRICHLET, 11u + k);
    insdg_amg *amg = insdg_amg_setup(p.A, NULL);
    if (k == 2) insdg_amg_print(amg, stdout);
    double *b = random_rhs(p.A->nrows, 0), rel;
    its[k] = solve(p.A, b, amg, 100, &rel);
    printf("AMG-FPCG N=1 Dirichlet %2dx%-2d n=%6d: %d levels, %2d iterations, true relres %.1e\n", cells[k], cells[k],
           p.A->nrows, insdg_amg_levels(amg), its[k], rel);
    EXPECT(its[k] > 0 && its[k] <= 30, "N=1 %dx%d: %d iterations (bound 30)", cells[k], cells[k], its[k]);
    if (k == 2) {   /* contrast: the same bound is far out of reach for plain CG */
      const int plain = solve(p.A, b, NULL, 2000, &rel);
      printf("plain CG N=1 Dirichlet 64x64: %d iterations\n", plain);
      EXPECT(plain < 0 || plain > 3 * its[k], "plain CG as fast as AMG-CG? %d vs %d", plain, its[k]);
    }
    free(b);
    insdg_amg_destroy(amg);
    problem_destroy(&p);
  }
  EXPECT(its[2] - its[0] <= 5, "AMG iterations grow from %d (16x16) to %d (64x64)", its[0], its[2]);
}

static void test_amg_degree3(void)
{
  problem p = poisson(16, 3, INSDG_BC_DIRICHLET, 5u);
  insdg_amg *amg = insdg_amg_setup(p.A, NULL);
  double *b = random_rhs(p.A->nrows, 0), rel;
  const int its = solve(p.A, b, amg, 100, &rel);
  printf("AMG-FPCG N=3 Dirichlet 16x16 n=%6d: %d levels, op. complexity %.2f, %2d iterations, true relres %.1e\n",
         p.A->nrows, insdg_amg_levels(amg), insdg_amg_operator_complexity(amg), its, rel);
  EXPECT(its > 0 && its <= 100, "N=3: %d iterations (bound 100)", its);
  free(b);
  insdg_amg_destroy(amg);
  problem_destroy(&p);
}

static void test_amg_neumann(void)
{
  problem p = poisson(32, 1, INSDG_BC_NEUMANN, 13u);
  insdg_amg *amg = insdg_amg_setup(p.A, NULL);
  insdg_amg_print(amg, stdout);
  const int n = p.A->nrows;
  double *b = random_rhs(n, 1), rel, *x;
  const int its = solve_x(p.A, b, amg, 100, &rel, &x);
  /* the solution is defined up to a constant; a coarse solve that does not see the null
     space (a Cholesky factor with a round-off pivot) pumps a huge constant into x */
  double mean = 0, spread = 0;
  for (int i = 0; i < n; ++i) mean += x[i] / n;
  for (int i = 0; i < n; ++i) spread += (x[i] - mean) * (x[i] - mean) / n;
  spread = sqrt(spread);
  printf("AMG-FPCG N=1 pure Neumann 32x32 n=%6d: %d levels, %2d iterations, true relres %.1e, |mean x| / rms(x - mean) = %.1e\n",
         n, insdg_amg_levels(amg), its, rel, fabs(mean) / spread);
  EXPECT(its > 0 && its <= 30, "pure Neumann: %d iterations (bound 30)", its);
  EXPECT(fabs(mean) <= 10 * spread, "pure Neumann: constant mode of x %.3e vs its spread %.3e", mean, spread);
  free(b), free(x);
  insdg_amg_destroy(amg);
  problem_destroy(&p);
}

/* one level: the cycle is the dense coarse solve; on the singular Neumann matrix it must
   be the pseudo-inverse (A z = r and z orthogonal to the constants), on the Dirichlet
   matrix the exact inverse. Whether dpotrf breaks down on the singular matrix or ends
   with a round-off pivot is a coin toss; on these two meshes (seeds 1 and 2) OpenBLAS
   does one each, so both paths into the pseudo-inverse are taken. */
static void test_coarse_solve(void)
{
  for (int c = 0; c < 3; ++c) {
    problem p = poisson(6, 1, c ? INSDG_BC_NEUMANN : INSDG_BC_DIRICHLET, (unsigned)c);
    const insdg_amg_opts one_level = {.coarse_size = 100000};
    insdg_amg *amg = insdg_amg_setup(p.A, &one_level);
    const int n = p.A->nrows;
    double *r = random_rhs(n, 1), *z = dalloc((size_t)n), *res = dalloc((size_t)n), mean = 0;
    insdg_amg_apply(amg, r, z);
    insdg_csr_residual(p.A, z, r, res);
    for (int i = 0; i < n; ++i) mean += z[i] / n;
    const double rel = norm2(res, (size_t)n) / norm2(r, (size_t)n), mean_rel = fabs(mean) * sqrt(n) / norm2(z, (size_t)n);
    printf("coarse solve %-9s n=%d: %d level, |r - A z|/|r| = %.1e, |mean z|/rms z = %.1e\n", c ? "Neumann" : "Dirichlet",
           n, insdg_amg_levels(amg), rel, mean_rel);
    EXPECT(insdg_amg_levels(amg) == 1 && rel <= 1e-10, "coarse solve %d: |r - A z|/|r| = %.3e", c, rel);
    EXPECT(!c || mean_rel <= 1e-10, "coarse solve on the singular matrix: z has a constant part %.3e", mean_rel);
    free(r), free(z), free(res);
    insdg_amg_destroy(amg);
    problem_destroy(&p);
  }
}

static void test_amg_stationary(void)
{
  problem p = poisson(32, 1, INSDG_BC_DIRICHLET, 12u);
  insdg_amg *amg = insdg_amg_setup(p.A, NULL);
  const int n = p.A->nrows, cycles = 10;
  double *b = random_rhs(n, 0), *x = dalloc((size_t)n), *r = dalloc((size_t)n), *z = dalloc((size_t)n);
  const double r0 = norm2(b, (size_t)n);
  double prev = r0, worst = 0, rk = r0;
  for (int k = 0; k < cycles; ++k) {
    insdg_csr_residual(p.A, x, b, r);
    insdg_amg_apply(amg, r, z);
    for (int i = 0; i < n; ++i) x[i] += z[i];
    insdg_csr_residual(p.A, x, b, r);
    rk = norm2(r, (size_t)n);
    if (k > 0) worst = fmax(worst, rk / prev);   /* the first cycle also removes the rough start */
    prev = rk;
  }
  const double mean = pow(rk / r0, 1.0 / cycles);
  printf("AMG stationary N=1 32x32: mean contraction %.3f per cycle, worst %.3f (cycles 2..%d)\n", mean, worst, cycles);
  EXPECT(mean < 0.5 && worst < 0.5, "stationary AMG contracts by %.3f (worst %.3f) per cycle", mean, worst);
  free(b), free(x), free(r), free(z);
  insdg_amg_destroy(amg);
  problem_destroy(&p);
}

/* ---- 5. banded Cholesky ----------------------------------------------------------------- */

/* 5-point Laplacian (Dirichlet: diagonal 4 + shift) on `copies` unconnected nx x ny grids,
   the rows numbered in a shuffled order; shift 0 with neumann: diagonal = the degree */
static insdg_csr *grid_laplacian(int nx, int ny, int copies, int neumann, unsigned seed)
{
  const int n = nx * ny * copies;
  int *perm = insdg_malloc(sizeof(int) * (size_t)n);
  for (int i = 0; i < n; ++i) perm[i] = i;
  for (int i = n - 1; i > 0; --i) {   /* Fisher-Yates with the LCG */
    seed = seed * 1664525u + 1013904223u;
    const int j = (int)((seed >> 8) % (unsigned)(i + 1)), t = perm[i];
    perm[i] = perm[j], perm[j] = t;
  }
  double *dense = dalloc((size_t)n * n);
  for (int c = 0; c < copies; ++c)
    for (int y = 0; y < ny; ++y)
      for (int x = 0; x < nx; ++x) {
        const int i = perm[c * nx * ny + y * nx + x];
        int deg = 0;
        const int nb[4][2] = {{x - 1, y}, {x + 1, y}, {x, y - 1}, {x, y + 1}};
        for (int k = 0; k < 4; ++k) {
          if (nb[k][0] < 0 || nb[k][0] >= nx || nb[k][1] < 0 || nb[k][1] >= ny) continue;
          dense[(size_t)i * n + perm[c * nx * ny + nb[k][1] * nx + nb[k][0]]] = -1.0, ++deg;
        }
        dense[(size_t)i * n + i] = neumann ? deg : 4.0 + 0.01;
      }
  insdg_csr *A = insdg_csr_from_dense(n, n, dense);
  free(dense), free(perm);
  return A;
}

/* |b - A x| / |b| after the band solve of a random b; and the half bandwidth */
static double band_residual(const insdg_csr *A, int *kd)
{
  insdg_band *F = insdg_band_factor(A, A->nrows, (size_t)1 << 30);
  EXPECT(F != NULL, "band: an SPD matrix of %d rows refused", A->nrows);
  if (!F) return INFINITY;
  const int n = A->nrows;
  double *b = random_rhs(n, 0), *x = dalloc((size_t)n), *r = dalloc((size_t)n);
  insdg_band_solve(F, b, x);
  insdg_csr_residual(A, x, b, r);
  const double rel = norm2(r, (size_t)n) / norm2(b, (size_t)n);
  *kd = insdg_band_width(F);
  free(b), free(x), free(r);
  insdg_band_destroy(F);
  return rel;
}

static void test_band(void)
{
  for (int copies = 1; copies <= 2; ++copies) {
    insdg_csr *A = grid_laplacian(30, 20, copies, 0, 7u + (unsigned)copies);
    int kd = -1;
    const double rel = band_residual(A, &kd);
    int *perm = insdg_malloc(sizeof(int) * (size_t)A->nrows);
    const int kd_rcm = insdg_band_rcm(A, perm);
    printf("band: %d grid(s) 30x20, shuffled: RCM half bandwidth %d, |b - A x|/|b| = %.1e\n", copies, kd, rel);
    EXPECT(kd >= 20 && kd <= 21 && kd_rcm == kd, "band: RCM half bandwidth %d (%d) of a 30x20 grid, want 20-21", kd, kd_rcm);
    EXPECT(rel <= 1e-12, "band: grid solve |b - A x|/|b| = %.3e", rel);
    /* the order is a permutation */
    char *seen = insdg_calloc((size_t)A->nrows, 1);
    int ok = 1;
    for (int k = 0; k < A->nrows; ++k) ok &= perm[k] >= 0 && perm[k] < A->nrows && !seen[perm[k]]++;
    EXPECT(ok, "band: the RCM order is not a permutation");
    free(seen), free(perm);
    /* refusals: one narrower than the band, and fewer bytes than it needs */
    EXPECT(insdg_band_factor(A, kd - 1, (size_t)1 << 30) == NULL, "band: a width limit below %d not honoured", kd);
    EXPECT(insdg_band_factor(A, kd, sizeof(double) * (size_t)A->nrows * (size_t)kd) == NULL,
           "band: a byte limit below the band's not honoured");
    insdg_csr_destroy(A);
  }
  insdg_csr *S = grid_laplacian(12, 9, 1, 1, 3u);   /* rows sum to zero: singular */
  EXPECT(insdg_band_factor(S, S->nrows, (size_t)1 << 30) == NULL, "band: the singular Neumann Laplacian accepted");
  insdg_csr_destroy(S);
  for (int N = 1; N <= 3; N += 2) {
    problem p = poisson(8, N, INSDG_BC_DIRICHLET, 21u);
    int kd = -1;
    const double rel = band_residual(p.A, &kd);
    printf("band: SIPDG N=%d Dirichlet, %d rows: half bandwidth %d, |b - A x|/|b| = %.1e\n", N, p.A->nrows, kd, rel);
    EXPECT(rel <= 1e-12, "band: SIPDG N=%d solve |b - A x|/|b| = %.3e", N, rel);
    problem_destroy(&p);
  }
}

/* The sparse Cholesky (spchol.h) in METIS's nested-dissection order: |b - A x| / |b| of a
   random b, the same x as the band solve to round-off, at most 0.6 times the band's factor
   entries after RCM on a 30 x 20 grid (0.52 measured; the ratio falls as the grid grows),
   and the refusals (a singular matrix, a byte limit) */
static void test_spchol(void)
{
  for (int copies = 1; copies <= 2; ++copies) {
    insdg_csr *A = grid_laplacian(30, 20, copies, 0, 7u + (unsigned)copies);
    const int n = A->nrows;
    int *perm = insdg_malloc(sizeof(int) * (size_t)n);
    insdg_partition_nd_order(n, A->row_ptr, A->col, perm);
    char *seen = insdg_calloc((size_t)n, 1);
    int ok = 1;
    for (int k = 0; k < n; ++k) ok &= perm[k] >= 0 && perm[k] < n && !seen[perm[k]]++;
    EXPECT(ok, "spchol: the nested-dissection order is not a permutation");
    insdg_spchol *F = insdg_spchol_factor(A, perm, (size_t)1 << 30), *F1 = insdg_spchol_factor(A, NULL, (size_t)1 << 30);
    insdg_band *Band = insdg_band_factor(A, n, (size_t)1 << 30);
    EXPECT(F && F1 && Band, "spchol: an SPD matrix of %d rows refused", n);
    if (F && F1 && Band) {
      double *b = random_rhs(n, 1), *x = dalloc((size_t)n), *xb = dalloc((size_t)n), *r = dalloc((size_t)n);
      double rel[2], diff = 0;
      for (int which = 0; which < 2; ++which) {
        insdg_spchol_solve(which ? F1 : F, b, x);
        insdg_csr_residual(A, x, b, r);
        rel[which] = norm2(r, (size_t)n) / norm2(b, (size_t)n);
      }
      insdg_spchol_solve(F, b, x);
      insdg_band_solve(Band, b, xb);
      for (int i = 0; i < n; ++i) diff = fmax(diff, fabs(x[i] - xb[i]));
      diff /= norm2(xb, (size_t)n) / sqrt((double)n);
      memcpy(r, b, sizeof(double) * (size_t)n);
      insdg_spchol_solve(F, r, r);   /* in place */
      int same = !memcmp(r, x, sizeof(double) * (size_t)n);
      const long band_entries = (long)n * (insdg_band_width(Band) + 1);
      printf("spchol: %d grid(s) 30x20, shuffled: %ld factor entries (nested dissection), %ld (as shuffled), band %ld; "
             "|b - A x|/|b| = %.1e / %.1e; against the band solve %.1e\n",
             copies, insdg_spchol_nnz(F), insdg_spchol_nnz(F1), band_entries, rel[0], rel[1], diff);
      EXPECT(rel[0] <= 1e-12 && rel[1] <= 1e-12, "spchol: grid solve |b - A x|/|b| = %.3e / %.3e", rel[0], rel[1]);
      EXPECT(diff <= 1e-12, "spchol: differs from the band solve by %.3e", diff);
      EXPECT(same, "spchol: the in-place solve differs");
      EXPECT(10 * insdg_spchol_nnz(F) <= 6 * band_entries, "spchol: %ld factor entries in nested-dissection order, band %ld",
             insdg_spchol_nnz(F), band_entries);
      EXPECT(insdg_spchol_factor(A, perm, insdg_spchol_memory(F) / 2) == NULL, "spchol: a byte limit not honoured");
      free(b), free(x), free(xb), free(r);
    }
    insdg_spchol_destroy(F), insdg_spchol_destroy(F1), insdg_band_destroy(Band);
    free(seen), free(perm);
    insdg_csr_destroy(A);
  }
  {   /* an asymmetric pattern (a third of the upper triangle's entries squeezed out, as
         round-off can do to a symmetric matrix: assemble.c) is ordered as its A + A^T */
    insdg_csr *A = grid_laplacian(30, 20, 1, 0, 5u);
    const int n = A->nrows;
    double *dense = dalloc((size_t)n * n);
    insdg_csr_to_dense(A, dense);
    int dropped = 0;
    for (int i = 0; i < n; ++i)
      for (int j = i + 1; j < n; ++j)
        if (dense[(size_t)i * n + j] != 0.0 && (i + j) % 3 == 0) dense[(size_t)i * n + j] = 0.0, ++dropped;
    insdg_csr *U = insdg_csr_from_dense(n, n, dense);
    int *perm = insdg_malloc(sizeof(int) * (size_t)n), *permu = insdg_malloc(sizeof(int) * (size_t)n);
    insdg_partition_nd_order(n, A->row_ptr, A->col, perm);
    insdg_partition_nd_order(n, U->row_ptr, U->col, permu);
    printf("spchol: nested dissection of the 30x20 grid with %d of its upper entries dropped\n", dropped);
    EXPECT(dropped > 100, "spchol: only %d entries dropped", dropped);
    EXPECT(!memcmp(perm, permu, sizeof(int) * (size_t)n),
           "spchol: the order of an asymmetric pattern differs from that of its symmetric A + A^T");
    free(perm), free(permu), free(dense);
    insdg_csr_destroy(U), insdg_csr_destroy(A);
  }
  insdg_csr *S = grid_laplacian(12, 9, 1, 1, 3u);   /* rows sum to zero: singular */
  EXPECT(insdg_spchol_factor(S, NULL, (size_t)1 << 30) == NULL, "spchol: the singular Neumann Laplacian accepted");
  insdg_csr_destroy(S);
  for (int N = 1; N <= 3; N += 2) {
    problem p = poisson(8, N, INSDG_BC_DIRICHLET, 21u);
    const int n = p.A->nrows;
    int *perm = insdg_malloc(sizeof(int) * (size_t)n);
    insdg_partition_nd_order(n, p.A->row_ptr, p.A->col, perm);
    insdg_spchol *F = insdg_spchol_factor(p.A, perm, (size_t)1 << 30);
    EXPECT(F != NULL, "spchol: SIPDG N=%d refused", N);
    if (F) {
      double *b = random_rhs(n, 2), *x = dalloc((size_t)n), *r = dalloc((size_t)n);
      insdg_spchol_solve(F, b, x);
      insdg_csr_residual(p.A, x, b, r);
      const double rel = norm2(r, (size_t)n) / norm2(b, (size_t)n);
      printf("spchol: SIPDG N=%d Dirichlet, %d rows: %ld factor entries, |b - A x|/|b| = %.1e\n", N, n,
             insdg_spchol_nnz(F), rel);
      EXPECT(rel <= 1e-12, "spchol: SIPDG N=%d solve |b - A x|/|b| = %.3e", N, rel);
      free(b), free(x), free(r);
    }
    insdg_spchol_destroy(F);
    free(perm);
    problem_destroy(&p);
  }
}

int main(void)
{
  test_assembly();
  test_csr();
  test_amg_dirichlet();
  test_amg_degree3();
  test_coarse_solve();
  test_amg_neumann();
  test_amg_stationary();
  test_band();
  test_spchol();
  printf(failures ? "%d FAILURES\n" : "all AMG tests passed\n", failures);
  return failures ? 1 : 0;
}
