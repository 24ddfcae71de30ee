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
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "HYPRE.h"
#include "HYPRE_parcsr_ls.h" /* HYPRE_Init, HYPRE_Finalize */

#include "amg.h"
#include "hypre_solve.h"
#include "assemble.h"
#include "csr.h"
#include "error.h"
#include "mesh.h"
#include "ops.h"
#include "ref_tri.h"
#include "roofline.h"


static const double PI = 3.14159265358979323846;
static const double RTOL = 1e-8;
static const int MAXIT = 1000;

static insdg_bench_result run_insdg(const insdg_csr *A, const double *b)
{
  insdg_bench_result res = {.method = "insdg AMG + FPCG"};
  const int n = A->nrows;
  double h0 = insdg_bench_heap_bytes(), t0 = insdg_wtime();
  insdg_amg *amg = insdg_amg_setup(A, NULL);
  res.t_setup = insdg_wtime() - t0;
  res.mem_heap = insdg_bench_heap_bytes() - h0;
  res.mem_matrix = (double)insdg_csr_memory(A);
  res.mem_prec = (double)insdg_amg_memory(amg);
  res.levels = insdg_amg_levels(amg);
  res.complexity = insdg_amg_operator_complexity(amg);
  double *x = insdg_calloc((size_t)n, sizeof(double));
  t0 = insdg_wtime();
  res.converged = insdg_fpcg_csr(A, b, x, insdg_amg_precondition, amg, RTOL, MAXIT, &res.iters, NULL) == 0;
  res.t_solve = insdg_wtime() - t0;
  res.relres = insdg_bench_true_relres(A, b, x);
  free(x);
  insdg_amg_destroy(amg);
  return res;
}

static void print_row(const insdg_mesh *m, int N, const insdg_csr *A, const insdg_bench_result *r)
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
  insdg_bench_result r = run_insdg(A, b);
  print_row(m, N, A, &r);
  static const double thetas[] = {0.25, 0.5};
  for (int t = 0; t < 2; ++t) {
    char label[64];
    r = insdg_bench_hypre(A, b, thetas[t], RTOL, MAXIT, label, sizeof label);
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
