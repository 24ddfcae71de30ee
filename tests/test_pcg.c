/* test_pcg.c -- PCG on the task graph against manufactured solutions.
 *
 *   test_pcg converge NMAX MESH       Poisson (Dirichlet) and Helmholtz (lambda = 10,
 *                                     Dirichlet) on MESH (unstructured) and its two uniform
 *                                     refinements, pure-Neumann Poisson on three jittered
 *                                     squares (h, h/2, h/4), N = 1..NMAX, PCG with pMG-AMG:
 *                                     L2 errors, rates (asserted >= N + 1 - 0.3 on the finest
 *                                     pair), iterations; prints a markdown table.
 *   test_pcg solve N NX NBLOCKS FILE [pmg|pmg-separate|unfused]
 *                                     one Helmholtz solve (lambda = 1e4, inverse mass; with
 *                                     unfused the inverse mass through a wrapper PCG does
 *                                     not fuse), or with pmg one Poisson solve (pMG-AMG;
 *                                     pmg-separate: no work fused into the operators' tasks,
 *                                     neither PCG's nor pMG's); writes the iterations and the
 *                                     solution (original order) to FILE
 *   test_pcg pmg N NX NBLOCKS MAXIT [neumann]
 *                                     Poisson (Dirichlet, or pure Neumann) with pMG-AMG, at
 *                                     most MAXIT iterations
 *   test_pcg projection NBLOCKS         solution projection (projection.h) against an
 *                                     independent computation: for a sequence of right-hand
 *                                     sides, each guess equals the A-orthogonal projection
 *                                     onto the span of the previous solutions the window
 *                                     holds (dense Gram system on the host), to 1e-9; and
 *                                     min_iterations leaves a zero solve at zero
 *   test_pcg compare FILE_A FILE_B TOL ITDIFF
 *                                     solutions equal to TOL (relative), iterations within ITDIFF
 * u = sin(pi x) sin(pi y) + x/2 for Dirichlet problems (nonzero boundary data),
 * u = cos(pi x) cos(pi y) for pure Neumann (zero normal derivative on the square).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "gmsh.h"
#include "mesh.h"
#include "ops_tasks.h"
#include "partition.h"
#include "pcg.h"
#include "pmg.h"
#include "projection.h"
#include "runtime.h"

static const double PI = 3.14159265358979323846;

typedef struct {
  const char *name;
  double lambda;
  int neumann;
} problem;

static double exact(const problem *p, double x, double y)
{
  return p->neumann ? cos(PI * x) * cos(PI * y) : sin(PI * x) * sin(PI * y) + 0.5 * x;
}

static double forcing(const problem *p, double x, double y)   /* -Lap u + lambda u */
{
  if (p->neumann) return 2 * PI * PI * cos(PI * x) * cos(PI * y);
  return 2 * PI * PI * sin(PI * x) * sin(PI * y) + p->lambda * exact(p, x, y);
}

/* Solve on mesh (nblocks blocks over the ranks); returns iterations, fills the L2 error
   and, if sol != NULL, the solution in original element order. */
enum { PREC_INVMASS, PREC_PMG, PREC_INVMASS_UNFUSED, PREC_PMG_SEPARATE };

/* the SIPDG through a function PCG does not know: the head of an iteration stays four
   tasks per block (PCG fuses p's update with its local gradient and the operator with
   p.Ap for insdg_sipdg_apply) */
static void sipdg_separate(void *ctx, insdg_dfield *in, insdg_dfield *out) { insdg_sipdg_apply(ctx, in, out); }

/* the inverse mass through a function PCG does not know: its update, preconditioner and
   dots stay three tasks (insdg_task_pcg_tail fuses them for insdg_inverse_mass_apply) */
static void inverse_mass_unfused(void *ctx, insdg_dfield *in, insdg_dfield *out)
{
  (void)ctx;
  insdg_task_inverse_mass(in, out);
}
/* pMG's coarse solve (pmg.h), and the one it must have chosen (-1: not checked) */
static int coarse_choice = INSDG_PMG_COARSE_AUTO, expect_coarse = -1;
static const char *coarse_name(int kind)
{
  return kind == INSDG_PMG_COARSE_CHOLESKY ? "the sparse Cholesky" : kind == INSDG_PMG_COARSE_BAND ? "the band" : "the AMG";
}

static int solve_with(insdg_mesh *mesh, int N, int nblocks, const problem *pb, double rtol, int prec, double *l2err,
                      double *sol);

/* The discretisation of degree N on mesh in nblocks blocks over the ranks, and its task
   context (free with discretisation_free). */
typedef struct {
  insdg_ref *ref;
  insdg_ops *op;
  insdg_layout *L;
  insdg_tasks T;
} discretisation;

static void discretisation_make(discretisation *d, insdg_mesh *mesh, int N, int nblocks)
{
  char err[INSDG_ERRMSG_LEN];
  d->ref = insdg_ref_create(N);
  d->op = insdg_ops_create(d->ref);
  if (insdg_layout_create(mesh, d->ref, insdg_runtime_size(), nblocks, &d->L, err, sizeof err)) insdg_die_user(err);
  insdg_tasks_init(&d->T, d->L, d->op);
}

static void discretisation_free(discretisation *d)
{
  insdg_tasks_fini(&d->T);
  insdg_layout_destroy(d->L);
  insdg_ops_destroy(d->op);
  insdg_ref_destroy(d->ref);
}

static int solve_with(insdg_mesh *mesh, int N, int nblocks, const problem *pb, double rtol, int prec, double *l2err,
                      double *sol)
{
  discretisation D;
  discretisation_make(&D, mesh, N, nblocks);
  insdg_ref *ref = D.ref;
  insdg_tasks *T = &D.T;
  const insdg_mesh *m = D.L->mesh;
  const int Np = ref->Np, Nfp = ref->Nfp;
  const size_t n = (size_t)m->K * Np, nf = (size_t)m->K * 3 * Nfp;
  signed char *bc = insdg_malloc(3 * (size_t)m->K);
  double *g = insdg_calloc(nf, sizeof(double)), *host = insdg_malloc(sizeof(double) * n);
  for (int i = 0; i < 3 * m->K; ++i)
    bc[i] = m->face_bnd[i] < 0 ? INSDG_BC_INTERIOR : pb->neumann ? INSDG_BC_NEUMANN : INSDG_BC_DIRICHLET;
  for (int e = 0; e < m->K; ++e)   /* Dirichlet faces: the value; Neumann faces: the normal
                                       derivative, zero for the Neumann solution on the square */
    for (int k = 0; k < 3 * Nfp; ++k) {
      const size_t node = (size_t)e * Np + ref->face_nodes[k];
      g[(size_t)e * 3 * Nfp + k] = pb->neumann ? 0.0 : exact(pb, m->x[node], m->y[node]);
    }
  /* b = J M f - A_g(0) */
  double *f = insdg_malloc(sizeof(double) * n);
  for (size_t k = 0; k < n; ++k) f[k] = forcing(pb, m->x[k], m->y[k]);
  insdg_mesh_weak_form(m, f, host);
  free(f);
  insdg_dfield *b = insdg_dfield_create(T), *x = insdg_dfield_create(T), *ag = insdg_dfield_create(T);
  insdg_dfield *ux = insdg_dfield_create(T), *uy = insdg_dfield_create(T);
  insdg_dfield_set(b, host);
  for (size_t i = 0; i < n; ++i) host[i] = 0;
  insdg_dfield_set(x, host);
  insdg_task_sipdg_data(bc, g, pb->lambda, x, ux, uy, ag);
  insdg_task_sub(b, ag, b);

  insdg_sipdg_ctx actx = {bc, pb->lambda, ux, uy};
  insdg_linop A = {insdg_sipdg_apply, &actx}, P = {insdg_inverse_mass_apply, NULL};
  if (prec == PREC_INVMASS_UNFUSED) P = (insdg_linop){inverse_mass_unfused, NULL};
  if (prec == PREC_PMG_SEPARATE) A.apply = sipdg_separate;
  insdg_pmg *pmg = NULL;
  if (prec == PREC_PMG || prec == PREC_PMG_SEPARATE) {
    const insdg_pmg_opts po = {.coarse = coarse_choice, .separate_tasks = prec == PREC_PMG_SEPARATE};
    pmg = insdg_pmg_create(T, mesh, bc, pb->lambda, &po);
    if (T->rank == 0 && getenv("INSDG_VERBOSE")) insdg_pmg_print(pmg, stdout);
    int nc;
    long size;
    const int kind = insdg_pmg_coarse_solve(pmg, &nc, &size);
    if (expect_coarse >= 0 && kind != expect_coarse) {
      if (T->rank == 0)
        printf("FAIL %s N=%d: the coarse solve of %d rows is %s, expected %s\n", pb->name, N, nc, coarse_name(kind),
               coarse_name(expect_coarse));
      insdg_pmg_destroy(pmg);
      insdg_dfield_destroy(b), insdg_dfield_destroy(x), insdg_dfield_destroy(ag), insdg_dfield_destroy(ux),
          insdg_dfield_destroy(uy);
      discretisation_free(&D);
      free(bc), free(g), free(host);
      *l2err = NAN;
      return -1;
    }
    P = (insdg_linop){insdg_pmg_apply, pmg};
  }
  insdg_pcg_opts o = {.rtol = rtol, .maxit = 20000, .null_space = pb->neumann, .flexible = prec == PREC_PMG || prec == PREC_PMG_SEPARATE};
  insdg_pcg_result res = insdg_pcg(T, A, &P, b, x, &o);
  if (pmg) {   /* the coarse-level accounting (bench_solvers --coarse): one coarse solve per
                  V-cycle, i.e. per preconditioner application (the start's and one per
                  iteration); its memory a nonzero part of the whole */
    insdg_tasks_wait(T);
    double cs[2];
    long calls;
    insdg_pmg_coarse_time(pmg, cs, &calls);
    const size_t cm = insdg_pmg_coarse_memory(pmg), pm = insdg_pmg_memory(pmg);
    if (calls != res.iterations + 1 || !(cs[0] >= 0 && cs[1] > 0) || !(cm > 0 && cm < pm)) {
      if (T->rank == 0)
        printf("FAIL %s N=%d: %ld coarse solves for %d iterations (want iterations + 1), %.3g + %.3g s, "
               "coarse memory %zu of %zu bytes\n", pb->name, N, calls, res.iterations, cs[0], cs[1], cm, pm);
      res.converged = 0;
    }
  }
  insdg_pmg_destroy(pmg);
  if (pb->neumann) insdg_pcg_fix_mean(T, x);
  if (!res.converged && T->rank == 0)
    printf("FAIL %s N=%d K=%d: PCG did not converge (%d iterations, relres %.2e)\n", pb->name, N, m->K,
           res.iterations, res.relres);

  double *u = insdg_malloc(sizeof(double) * n);
  insdg_dfield_gather(x, u);   /* original element order */
  insdg_mesh_set_ref(mesh, ref);
  double sum = 0;
  for (int e = 0; e < mesh->K; ++e) {
    double d[INSDG_NMAX * INSDG_NMAX * 2];
    for (int i = 0; i < Np; ++i)
      d[i] = u[(size_t)e * Np + i] - exact(pb, mesh->x[(size_t)e * Np + i], mesh->y[(size_t)e * Np + i]);
    for (int i = 0; i < Np; ++i)
      for (int j = 0; j < Np; ++j) sum += mesh->vgeo[e * INSDG_NVGEO + INSDG_J] * d[i] * ref->M[i * Np + j] * d[j];
  }
  *l2err = sqrt(sum);
  if (sol) memcpy(sol, u, sizeof(double) * n);
  free(u), free(bc), free(g), free(host);
  insdg_dfield_destroy(b), insdg_dfield_destroy(x), insdg_dfield_destroy(ag), insdg_dfield_destroy(ux),
      insdg_dfield_destroy(uy);
  discretisation_free(&D);
  return res.converged ? res.iterations : -1;
}

/* Dirichlet problems on the unstructured Gmsh mesh hole41.msh (a square with a hole,
   236 triangles) and its two uniform refinements; pure Neumann on jittered squares
   (its exact solution has a zero normal derivative on the square's sides only). */
static int converge(int nmax, const char *hole_mesh)
{
  const problem problems[3] = {{"Poisson", 0.0, 0}, {"Helmholtz", 10.0, 0}, {"Neumann", 0.0, 1}};
  const int nx[3] = {4, 8, 16};
  char err[INSDG_ERRMSG_LEN];
  insdg_mesh *hole[3];
  if (insdg_mesh_read(hole_mesh, &hole[0], err, sizeof err)) insdg_die_user(err);
  hole[1] = insdg_mesh_refine(hole[0]), hole[2] = insdg_mesh_refine(hole[1]);
  int failures = 0;
  const int rank = insdg_runtime_rank();
  if (rank == 0)
    printf("| problem | N | L2 error h | h/2 | h/4 | rate | iterations (h, h/2, h/4) |\n|---|---:|---:|---:|---:|---:|---|\n");
  for (int ip = 0; ip < 3; ++ip)
    for (int N = 1; N <= nmax; ++N) {
      double e[3];
      int it[3];
      for (int k = 0; k < 3; ++k) {
        insdg_mesh *mesh = problems[ip].neumann ? insdg_mesh_rectangle(nx[k], nx[k], 0.0, 1.0, 0.0, 1.0, 0.15, 17u) : hole[k];
        it[k] = solve_with(mesh, N, 4, &problems[ip], 1e-13, PREC_PMG, &e[k], NULL);
        failures += it[k] < 0;
        if (problems[ip].neumann) insdg_mesh_destroy(mesh);
      }
      const double rate = log2(e[1] / e[2]);
      const int ok = rate >= N + 1 - 0.3;
      failures += !ok;
      if (rank == 0)
        printf("| %s | %d | %.3e | %.3e | %.3e | %.2f%s | %d, %d, %d |\n", problems[ip].name, N, e[0], e[1], e[2], rate,
               ok ? "" : " FAIL", it[0], it[1], it[2]);
      fflush(stdout);
    }
  for (int k = 0; k < 3; ++k) insdg_mesh_destroy(hole[k]);
  return failures;
}

/* Solve the small dense SPD system G c = r (n <= 8) by Gaussian elimination. */
static void dense_solve(int n, double *G, double *r)
{
  for (int k = 0; k < n; ++k)
    for (int i = k + 1; i < n; ++i) {
      const double f = G[i * n + k] / G[k * n + k];
      for (int j = k; j < n; ++j) G[i * n + j] -= f * G[k * n + j];
      r[i] -= f * r[k];
    }
  for (int i = n - 1; i >= 0; --i) {
    for (int j = i + 1; j < n; ++j) r[i] -= G[i * n + j] * r[j];
    r[i] /= G[i * n + i];
  }
}

static double host_dot(size_t n, const double *a, const double *b)
{
  double s = 0;
  for (size_t i = 0; i < n; ++i) s += a[i] * b[i];
  return s;
}

/* Helmholtz (lambda = 10, homogeneous Dirichlet) on a jittered square, N = 3; window L = 3;
   right-hand sides b_j = A y_j for smooth y_j. The window holds the solutions since its
   last restart (it restarts from the newest solution when full): after solve j the span
   is {x_{j0}, .., x_j}. Each guess is compared with sum c_i x_i, G c = r, G_il = x_i.A x_l,
   r_i = x_i.b (the A-orthogonal projection), computed here on the host. */
static int projection_test(int nblocks)
{
  enum { NRHS = 7, LW = 3 };
  insdg_mesh *mesh = insdg_mesh_rectangle(6, 6, 0.0, 1.0, 0.0, 1.0, 0.15, 17u);
  discretisation D;
  discretisation_make(&D, mesh, 3, nblocks);
  const insdg_ref *ref = D.ref;
  insdg_tasks *T = &D.T;
  const insdg_mesh *m = D.L->mesh;
  const size_t n = (size_t)m->K * ref->Np;
  signed char *bc = insdg_malloc(3 * (size_t)m->K);
  for (int i = 0; i < 3 * m->K; ++i) bc[i] = m->face_bnd[i] < 0 ? INSDG_BC_INTERIOR : INSDG_BC_DIRICHLET;
  insdg_dfield *y = insdg_dfield_create(T), *b = insdg_dfield_create(T), *x = insdg_dfield_create(T);
  insdg_dfield *ux = insdg_dfield_create(T), *uy = insdg_dfield_create(T), *Ax = insdg_dfield_create(T);
  insdg_sipdg_ctx actx = {bc, 10.0, ux, uy};
  insdg_linop A = {insdg_sipdg_apply, &actx}, P = {insdg_inverse_mass_apply, NULL};
  insdg_projection *proj = insdg_projection_create(T, LW);
  double *host = insdg_malloc(sizeof(double) * n), *guess = insdg_malloc(sizeof(double) * n);
  double *bh = insdg_malloc(sizeof(double) * n), *sol[NRHS], *Asol[NRHS];
  int failures = 0, j0 = 0;
  for (int j = 0; j < NRHS; ++j) {
    for (size_t i = 0; i < n; ++i) {   /* y_j: smooth, a different mode each time */
      const double px = m->x[i], py = m->y[i];
      host[i] = sin((1 + j % 3) * PI * px + 0.3 * j) * cos((1 + j / 3) * PI * py) + 0.1 * j * px * py;
    }
    insdg_dfield_set(y, host);
    A.apply(A.ctx, y, b);
    for (size_t i = 0; i < n; ++i) host[i] = 0;
    insdg_dfield_set(x, host);
    const int projected = insdg_projection_guess(proj, 1.0, b, x);
    insdg_dfield_gather(x, guess), insdg_dfield_gather(b, bh);
    const int k = j - j0;   /* solutions in the window */
    if (projected != (k > 0)) ++failures;
    if (k > 0) {
      double G[LW * LW], r[LW], *ref_guess = insdg_calloc(n, sizeof(double));
      for (int i = 0; i < k; ++i) {
        for (int l = 0; l < k; ++l) G[i * k + l] = host_dot(n, sol[j0 + i], Asol[j0 + l]);
        r[i] = host_dot(n, sol[j0 + i], bh);
      }
      dense_solve(k, G, r);
      for (int i = 0; i < k; ++i)
        for (size_t q = 0; q < n; ++q) ref_guess[q] += r[i] * sol[j0 + i][q];
      double num = 0, den = 0;
      for (size_t q = 0; q < n; ++q) num += (guess[q] - ref_guess[q]) * (guess[q] - ref_guess[q]), den += ref_guess[q] * ref_guess[q];
      const double rel = sqrt(num / den);
      const int ok = rel <= 1e-9;
      failures += !ok;
      if (T->rank == 0) printf("%s rhs %d: guess from %d solutions, relative difference to the projection %.2e\n", ok ? "ok" : "FAIL", j, k, rel);
      free(ref_guess);
    }
    insdg_pcg_opts o = {.rtol = 1e-12, .maxit = 2000};
    const insdg_pcg_result res = insdg_pcg(T, A, &P, b, x, &o);
    failures += !res.converged;
    insdg_projection_add(proj, &A, x);
    if (k == LW) j0 = j;   /* the window was full: it restarts from this solution */
    sol[j] = insdg_malloc(sizeof(double) * n), Asol[j] = insdg_malloc(sizeof(double) * n);
    A.apply(A.ctx, x, Ax);
    insdg_dfield_gather(x, sol[j]), insdg_dfield_gather(Ax, Asol[j]);
  }
  { /* min_iterations with a zero right-hand side and guess: no step of length 0/0 */
    for (size_t i = 0; i < n; ++i) host[i] = 0;
    insdg_dfield_set(b, host), insdg_dfield_set(x, host);
    insdg_pcg_opts o = {.rtol = 1e-8, .maxit = 100, .minit = 4};
    const insdg_pcg_result res = insdg_pcg(T, A, &P, b, x, &o);
    insdg_dfield_gather(x, guess);
    int zero = 1;
    for (size_t i = 0; i < n; ++i) zero &= guess[i] == 0.0;
    const int ok = zero && res.iterations == 0 && res.converged;
    failures += !ok;
    if (T->rank == 0) printf("%s zero right-hand side with minit 4: %d iterations, solution %s\n", ok ? "ok" : "FAIL",
                            res.iterations, zero ? "zero" : "NOT zero");
  }
  for (int j = 0; j < NRHS; ++j) free(sol[j]), free(Asol[j]);
  free(host), free(guess), free(bh), free(bc);
  insdg_projection_destroy(proj);
  insdg_dfield *f[] = {y, b, x, ux, uy, Ax};
  for (size_t i = 0; i < sizeof f / sizeof f[0]; ++i) insdg_dfield_destroy(f[i]);
  discretisation_free(&D);
  insdg_mesh_destroy(mesh);
  return failures;
}

int main(int argc, char **argv)
{
  char err[INSDG_ERRMSG_LEN];
  if (argc >= 2 && !strcmp(argv[1], "compare")) {   /* no runtime needed */
    if (argc != 6) insdg_die_user("usage: test_pcg compare A B TOL ITDIFF");
    FILE *fa = fopen(argv[2], "rb"), *fb = fopen(argv[3], "rb");
    if (!fa || !fb) insdg_die_user("compare: cannot open the dumps");
    int ita, itb;
    long n;
    INSDG_CHECK(fread(&ita, sizeof ita, 1, fa) == 1 && fread(&itb, sizeof itb, 1, fb) == 1);
    fseek(fa, 0, SEEK_END), n = (ftell(fa) - (long)sizeof(int)) / (long)sizeof(double), fseek(fa, sizeof(int), SEEK_SET);
    double diff = 0, scale = 0;
    for (long i = 0; i < n; ++i) {
      double a, b;
      INSDG_CHECK(fread(&a, sizeof a, 1, fa) == 1 && fread(&b, sizeof b, 1, fb) == 1);
      diff = fmax(diff, fabs(a - b)), scale = fmax(scale, fabs(a));
    }
    fclose(fa), fclose(fb);
    const int ok = diff <= atof(argv[4]) * scale && abs(ita - itb) <= atoi(argv[5]);
    printf("%s: max difference %.2e (scale %.2e), iterations %d vs %d\n", ok ? "ok" : "FAIL", diff, scale, ita, itb);
    return ok ? 0 : 1;
  }
  if (insdg_runtime_init(&argc, &argv, NULL, err, sizeof err)) insdg_die_user(err);
  int failures = 0;
  if (argc == 4 && !strcmp(argv[1], "converge")) {
    failures = converge(atoi(argv[2]), argv[3]);
  } else if ((argc == 6 || argc == 7) && !strcmp(argv[1], "solve")) {
    const int N = atoi(argv[2]), nx = atoi(argv[3]), nblocks = atoi(argv[4]);
    const int prec = argc == 7 && !strcmp(argv[6], "pmg")        ? PREC_PMG
                     : argc == 7 && !strcmp(argv[6], "pmg-separate") ? PREC_PMG_SEPARATE
                     : argc == 7 && !strcmp(argv[6], "unfused") ? PREC_INVMASS_UNFUSED
                                                                : PREC_INVMASS;
    insdg_mesh *mesh = insdg_mesh_rectangle(nx, nx, 0.0, 1.0, 0.0, 1.0, 0.15, 17u);
    /* the two solves of a time step: velocity Helmholtz with lambda = gamma / (nu dt) in the
       time-stepping range and the inverse mass; pressure Poisson with pMG-AMG */
    const problem hz = prec == PREC_PMG || prec == PREC_PMG_SEPARATE ? (problem){"Poisson", 0.0, 0} : (problem){"Helmholtz", 1.0e4, 0};
    double e, *sol = insdg_malloc(sizeof(double) * (size_t)mesh->K * (N + 1) * (N + 2) / 2);
    const int it = solve_with(mesh, N, nblocks, &hz, 1e-10, prec, &e, sol);
    failures = it < 0;
    if (insdg_runtime_rank() == 0) {
      printf("N=%d K=%d blocks=%d ranks=%d workers=%d: %d iterations, L2 error %.3e\n", N, mesh->K, nblocks,
             insdg_runtime_size(), insdg_runtime_workers(), it, e);
      FILE *f = fopen(argv[5], "wb");
      INSDG_CHECK(f && fwrite(&it, sizeof it, 1, f) == 1);
      INSDG_CHECK(fwrite(sol, sizeof(double), (size_t)mesh->K * (N + 1) * (N + 2) / 2, f) == (size_t)mesh->K * (N + 1) * (N + 2) / 2);
      fclose(f);
    }
    free(sol);
    insdg_mesh_destroy(mesh);
  } else if (argc == 3 && !strcmp(argv[1], "projection")) {
    failures = projection_test(atoi(argv[2]));
  } else if ((argc == 6 || argc == 7) && !strcmp(argv[1], "pmg")) {   /* pmg N NX NBLOCKS MAXIT [neumann|amg|band] */
    const int N = atoi(argv[2]), nx = atoi(argv[3]);
    insdg_mesh *mesh = insdg_mesh_rectangle(nx, nx, 0.0, 1.0, 0.0, 1.0, 0.15, 17u);
    const int neumann = argc == 7 && !strcmp(argv[6], "neumann");
    const problem pb = neumann ? (problem){"Neumann", 0.0, 1} : (problem){"Poisson", 0.0, 0};
    /* the default picks the sparse Cholesky, unless Ac is singular (Neumann: the AMG);
       "amg" forces the AMG's K-cycle step, "band" the banded Cholesky */
    if (argc == 7 && !strcmp(argv[6], "amg")) coarse_choice = INSDG_PMG_COARSE_AMG;
    if (argc == 7 && !strcmp(argv[6], "band")) coarse_choice = INSDG_PMG_COARSE_BAND;
    expect_coarse = neumann ? INSDG_PMG_COARSE_AMG
                  : coarse_choice == INSDG_PMG_COARSE_AUTO ? INSDG_PMG_COARSE_CHOLESKY : coarse_choice;
    double e;
    const int it = solve_with(mesh, N, atoi(argv[4]), &pb, 1e-8, PREC_PMG, &e, NULL);
    failures = it < 0 || it > atoi(argv[5]);
    if (insdg_runtime_rank() == 0)
      printf("%s pMG-AMG %s N=%d K=%d (coarse solve: %s): %d iterations (at most %s expected), L2 error %.3e\n",
             failures ? "FAIL" : "ok", pb.name, N, mesh->K, coarse_name(expect_coarse), it, argv[5], e);
    insdg_mesh_destroy(mesh);
  } else {
    insdg_die_user("usage: test_pcg converge NMAX MESH | solve N NX NBLOCKS FILE [pmg|pmg-separate|unfused] | pmg N NX NBLOCKS MAXIT [neumann|amg] | projection NBLOCKS | compare A B TOL ITDIFF");
  }
  MPI_Bcast(&failures, 1, MPI_INT, 0, MPI_COMM_WORLD);
  insdg_runtime_shutdown();
  return failures ? 1 : 0;
}
