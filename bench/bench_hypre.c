/* bench_hypre.c -- hypre's BoomerAMG (as the preconditioner of hypre's PCG) against
 * insdg's aggregation AMG (src/amg.h, flexible PCG) on the SAME assembled SIPDG matrices
 * (paper §3 "Linear Solvers"; docs/amg.md).
 *
 * Matrices: the SIPDG Poisson operator (Dirichlet on every side, lambda = 0) assembled by
 * insdg_assemble_sipdg on a jittered nx x nx unit square and on its uniform refinement,
 * at N = 1 (the coarse level of pMG-AMG) and N = 2..nmax (full AMG). Right-hand side
 * b = J M f, f = 2 pi^2 sin(pi x) sin(pi y) at the nodes (as bench_solvers.c); x0 = 0;
 * stop at ||b - A x||_2 <= 1e-8 ||b||_2, at most 1000 iterations.
 *
 *   insdg: insdg_amg_setup (default options) + insdg_fpcg_csr(insdg_amg_precondition).
 *   hypre: the matrix copied into an IJ/ParCSR matrix (one rank, MPI_COMM_WORLD);
 *          BoomerAMG with HMIS coarsening (10, the 2.26 default), ext+i interpolation
 *          truncated to 4 entries per row (defaults), one V(1,1) cycle (Tol 0, MaxIter 1)
 *          with hybrid symmetric Gauss-Seidel (relax type 6; on one rank plain SGS) and
 *          Gaussian elimination on the coarsest level, strength threshold theta = 0.25
 *          (default) and 0.5; hypre's PCG with TwoNorm 1, RelChange 0, tol 1e-8.
 *
 * Reported per (matrix, method): unknowns, nonzeros, levels, operator complexity
 * (sum nnz(A_l) / nnz(A_0)), iterations, setup and solve wall-clock seconds (one run,
 * one core), the final relative residual recomputed as ||b - A x|| / ||b|| with
 * insdg_csr_residual, and memory per element:
 *   matrix kB/el:  insdg: insdg_csr_memory(A); hypre: heap growth over building the
 *                  IJ/ParCSR matrix (IJMatrixCreate .. IJMatrixAssemble);
 *   precond kB/el: insdg: insdg_amg_memory (counted); hypre: heap growth over
 *                  HYPRE_BoomerAMGSetup;
 *   setup heap kB/el: heap growth over the setup call, both methods (for insdg it checks
 *                  the counted number; the hypre column is the same as precond).
 * "Heap" is glibc's mallinfo2(): uordblks + hblkhd (bytes in use in the main arena plus
 * mmap'ed chunks), i.e. what is malloc'ed and not yet freed, independent of page
 * residency; everything here runs on the main thread.
 *
 * Usage: bench_hypre [--nx NX=16] [--nmax NMAX=6]      (mpirun -np 1 optional)
 */
#include <malloc.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h> /* ffs(), used by hypre's internal headers */

#include "HYPRE.h"
#include "HYPRE_krylov.h"
#include "HYPRE_parcsr_ls.h"
#include "_hypre_parcsr_ls.h" /* levels and coarse matrices of the hierarchy (operator complexity) */

#include "amg.h"
#include "assemble.h"
#include "csr.h"
#include "error.h"
#include "mesh.h"
#include "ops.h"
#include "ref_tri.h"
#include "roofline.h"

_Static_assert(sizeof(HYPRE_Complex) == sizeof(double) && sizeof(HYPRE_Real) == sizeof(double),
               "hypre must be built with double precision");

static const double PI = 3.14159265358979323846;
static const double RTOL = 1e-8;
static const int MAXIT = 1000;

static double heap_bytes(void)
{
  const struct mallinfo2 mi = mallinfo2();
  return (double)mi.uordblks + (double)mi.hblkhd;
}

typedef struct {
  const char *method;
  int levels, iters, converged;
  double complexity, t_setup, t_solve, relres, mem_matrix, mem_prec, mem_heap;
} result;

static double norm2(const double *v, int n)
{
  double s = 0;
  for (int i = 0; i < n; ++i) s += v[i] * v[i];
  return sqrt(s);
}

static double true_relres(const insdg_csr *A, const double *b, const double *x)
{
  double *r = insdg_malloc(sizeof(double) * (size_t)A->nrows);
  insdg_csr_residual(A, x, b, r);
  const double rr = norm2(r, A->nrows) / norm2(b, A->nrows);
  free(r);
  return rr;
}

static result run_insdg(const insdg_csr *A, const double *b)
{
  result res = {.method = "insdg AMG + FPCG"};
  const int n = A->nrows;
  double h0 = heap_bytes(), t0 = insdg_wtime();
  insdg_amg *amg = insdg_amg_setup(A, NULL);
  res.t_setup = insdg_wtime() - t0;
  res.mem_heap = heap_bytes() - h0;
  res.mem_matrix = (double)insdg_csr_memory(A);
  res.mem_prec = (double)insdg_amg_memory(amg);
  res.levels = insdg_amg_levels(amg);
  res.complexity = insdg_amg_operator_complexity(amg);
  double *x = insdg_calloc((size_t)n, sizeof(double));
  t0 = insdg_wtime();
  res.converged = insdg_fpcg_csr(A, b, x, insdg_amg_precondition, amg, RTOL, MAXIT, &res.iters, NULL) == 0;
  res.t_solve = insdg_wtime() - t0;
  res.relres = true_relres(A, b, x);
  free(x);
  insdg_amg_destroy(amg);
  return res;
}

/* The preconditioner is set up explicitly (timed, heap measured) before PCG's setup, so
   PCG gets a setup function that does nothing. */
static HYPRE_Int noop_setup(HYPRE_Solver s, HYPRE_ParCSRMatrix A, HYPRE_ParVector b, HYPRE_ParVector x)
{
  (void)s, (void)A, (void)b, (void)x;
  return 0;
}

static double parcsr_nnz(hypre_ParCSRMatrix *A)
{
  return (double)hypre_CSRMatrixNumNonzeros(hypre_ParCSRMatrixDiag(A)) +
         (double)hypre_CSRMatrixNumNonzeros(hypre_ParCSRMatrixOffd(A));
}

static result run_hypre(const insdg_csr *A, const double *b, double theta, char *label, size_t labellen)
{
  snprintf(label, labellen, "hypre BoomerAMG(theta %.2f) + PCG", theta);
  result res = {.method = label};
  const int n = A->nrows;
  HYPRE_BigInt *rows = insdg_malloc(sizeof(HYPRE_BigInt) * (size_t)n);
  HYPRE_BigInt *cols = insdg_malloc(sizeof(HYPRE_BigInt) * (size_t)A->nnz);
  HYPRE_Int *ncols = insdg_malloc(sizeof(HYPRE_Int) * (size_t)n), *zeros = insdg_calloc((size_t)n, sizeof(HYPRE_Int));
  for (int i = 0; i < n; ++i) rows[i] = i, ncols[i] = A->row_ptr[i + 1] - A->row_ptr[i];
  for (int k = 0; k < A->nnz; ++k) cols[k] = A->col[k];
  double *x = insdg_calloc((size_t)n, sizeof(double));

  /* the matrix: one rank owns every row, so everything is in the diagonal block */
  double h0 = heap_bytes();
  HYPRE_IJMatrix ijA;
  HYPRE_IJMatrixCreate(MPI_COMM_WORLD, 0, n - 1, 0, n - 1, &ijA);
  HYPRE_IJMatrixSetObjectType(ijA, HYPRE_PARCSR);
  HYPRE_IJMatrixSetDiagOffdSizes(ijA, ncols, zeros);
  HYPRE_IJMatrixInitialize(ijA);
  HYPRE_IJMatrixSetValues(ijA, n, ncols, rows, cols, A->val);
  HYPRE_IJMatrixAssemble(ijA);
  res.mem_matrix = heap_bytes() - h0;
  HYPRE_ParCSRMatrix parA;
  HYPRE_IJMatrixGetObject(ijA, (void **)&parA);

  HYPRE_IJVector ijb, ijx;
  HYPRE_IJVectorCreate(MPI_COMM_WORLD, 0, n - 1, &ijb);
  HYPRE_IJVectorSetObjectType(ijb, HYPRE_PARCSR);
  HYPRE_IJVectorInitialize(ijb);
  HYPRE_IJVectorSetValues(ijb, n, rows, b);
  HYPRE_IJVectorAssemble(ijb);
  HYPRE_IJVectorCreate(MPI_COMM_WORLD, 0, n - 1, &ijx);
  HYPRE_IJVectorSetObjectType(ijx, HYPRE_PARCSR);
  HYPRE_IJVectorInitialize(ijx);
  HYPRE_IJVectorSetValues(ijx, n, rows, x);
  HYPRE_IJVectorAssemble(ijx);
  HYPRE_ParVector parb, parx;
  HYPRE_IJVectorGetObject(ijb, (void **)&parb);
  HYPRE_IJVectorGetObject(ijx, (void **)&parx);

  HYPRE_Solver amg, pcg;
  HYPRE_BoomerAMGCreate(&amg);
  HYPRE_BoomerAMGSetCoarsenType(amg, 10);      /* HMIS (the 2.26 default, set explicitly) */
  HYPRE_BoomerAMGSetStrongThreshold(amg, theta);
  HYPRE_BoomerAMGSetRelaxType(amg, 6);         /* hybrid symmetric Gauss-Seidel; coarsest: Gaussian elimination */
  HYPRE_BoomerAMGSetNumSweeps(amg, 1);
  HYPRE_BoomerAMGSetTol(amg, 0.0);
  HYPRE_BoomerAMGSetMaxIter(amg, 1);
  HYPRE_BoomerAMGSetPrintLevel(amg, 0);

  h0 = heap_bytes();
  double t0 = insdg_wtime();
  HYPRE_BoomerAMGSetup(amg, parA, parb, parx);
  res.t_setup = insdg_wtime() - t0;
  res.mem_prec = res.mem_heap = heap_bytes() - h0;
  {
    hypre_ParAMGData *d = (hypre_ParAMGData *)amg;
    hypre_ParCSRMatrix **Al = hypre_ParAMGDataAArray(d);
    res.levels = hypre_ParAMGDataNumLevels(d);
    double s = 0;
    for (int l = 0; l < res.levels; ++l) s += parcsr_nnz(Al[l]);
    res.complexity = s / parcsr_nnz(Al[0]);
  }

  HYPRE_ParCSRPCGCreate(MPI_COMM_WORLD, &pcg);
  HYPRE_PCGSetTol(pcg, RTOL);
  HYPRE_PCGSetMaxIter(pcg, MAXIT);
  HYPRE_PCGSetTwoNorm(pcg, 1);
  HYPRE_PCGSetRelChange(pcg, 0);
  HYPRE_PCGSetPrintLevel(pcg, 0);
  HYPRE_ParCSRPCGSetPrecond(pcg, HYPRE_BoomerAMGSolve, noop_setup, amg);
  t0 = insdg_wtime();
  HYPRE_ParCSRPCGSetup(pcg, parA, parb, parx); /* PCG's work vectors only */
  res.t_setup += insdg_wtime() - t0;

  t0 = insdg_wtime();
  HYPRE_ParCSRPCGSolve(pcg, parA, parb, parx);
  res.t_solve = insdg_wtime() - t0;
  HYPRE_Int its;
  HYPRE_Real rel;
  HYPRE_PCGGetNumIterations(pcg, &its);
  HYPRE_PCGGetFinalRelativeResidualNorm(pcg, &rel);
  res.iters = its;
  HYPRE_IJVectorGetValues(ijx, n, rows, x);
  res.relres = true_relres(A, b, x);
  res.converged = its < MAXIT && rel <= RTOL;

  HYPRE_ParCSRPCGDestroy(pcg);
  HYPRE_BoomerAMGDestroy(amg);
  HYPRE_IJVectorDestroy(ijx), HYPRE_IJVectorDestroy(ijb);
  HYPRE_IJMatrixDestroy(ijA);
  free(x), free(rows), free(cols), free(ncols), free(zeros);
  return res;
}

static void print_row(const insdg_mesh *m, int N, const insdg_csr *A, const result *r)
{
  const double K = m->K;
  printf("| %d | %d | %s | %d | %d | %d | %.2f | %d%s | %.3f | %.3f | %.1e | %.2f | %.2f | %.2f |\n", m->K, N, r->method,
         A->nrows, A->nnz, r->levels, r->complexity, r->iters, r->converged ? "" : " (not conv.)", r->t_setup, r->t_solve,
         r->relres, r->mem_matrix / K / 1e3, r->mem_prec / K / 1e3, r->mem_heap / K / 1e3);
  fflush(stdout);
}

static void run_all(insdg_mesh *m, int N)
{
  insdg_ref *ref = insdg_ref_create(N);
  insdg_ops *op = insdg_ops_create(ref);
  insdg_mesh_set_ref(m, ref);
  const int K = m->K, Np = ref->Np;
  signed char *bc = insdg_malloc(3 * (size_t)K);
  for (int i = 0; i < 3 * K; ++i) bc[i] = m->face_bnd[i] < 0 ? INSDG_BC_INTERIOR : INSDG_BC_DIRICHLET;
  insdg_csr *A = insdg_assemble_sipdg(m, op, bc, 0.0);
  double *b = insdg_malloc(sizeof(double) * (size_t)K * Np);
  double *f = insdg_malloc(sizeof(double) * (size_t)K * Np);   /* f = 2 pi^2 sin(pi x) sin(pi y) */
  for (size_t k = 0; k < (size_t)K * Np; ++k) f[k] = 2 * PI * PI * sin(PI * m->x[k]) * sin(PI * m->y[k]);
  insdg_mesh_weak_form(m, f, b);   /* b = J M f */
  free(f);
  result r = run_insdg(A, b);
  print_row(m, N, A, &r);
  static const double thetas[] = {0.25, 0.5};
  for (int t = 0; t < 2; ++t) {
    char label[64];
    r = run_hypre(A, b, thetas[t], label, sizeof label);
    print_row(m, N, A, &r);
  }
  free(b), free(bc);
  insdg_csr_destroy(A);
  insdg_ops_destroy(op), insdg_ref_destroy(ref);
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  HYPRE_Init();
  int nx = 16, nmax = 6;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--nx") && i + 1 < argc) nx = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--nmax") && i + 1 < argc) nmax = atoi(argv[++i]);
    else insdg_die_user("usage: bench_hypre [--nx NX] [--nmax NMAX]");
  }
  if (nx < 1 || nmax < 1 || nmax > INSDG_NMAX) insdg_die_user("bench_hypre: need nx >= 1 and 1 <= nmax <= 15");
  int nranks;
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  if (nranks != 1) insdg_die_user("bench_hypre: run on one rank");
  insdg_mesh *coarse = insdg_mesh_rectangle(nx, nx, 0.0, 1.0, 0.0, 1.0, 0.15, 17u);
  insdg_mesh *fine = insdg_mesh_refine(coarse);
  printf("# %s, one core; hypre %s; SIPDG Poisson (Dirichlet, lambda 0), b = J M f, x0 = 0, ||r||/||b|| <= %.0e\n",
         insdg_roofline_cpu_name(), HYPRE_RELEASE_VERSION, RTOL);
  printf("# meshes: jittered %dx%d square (%d triangles) and its uniform refinement (%d)\n", nx, nx, coarse->K,
         fine->K);
  printf("# memory: kB per element; hypre matrix/precond and both 'setup heap' columns are mallinfo2 heap growth\n\n");
  printf("| K | N | method | unknowns | nnz | levels | op. cx | iterations | setup s | solve s | ||b-Ax||/||b|| | "
         "matrix kB/el | precond kB/el | setup heap kB/el |\n");
  printf("|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (int k = 0; k < 2; ++k)
    for (int N = 1; N <= nmax; ++N) run_all(k ? fine : coarse, N);
  insdg_mesh_destroy(coarse), insdg_mesh_destroy(fine);
  HYPRE_Finalize();
  MPI_Finalize();
  return 0;
}
