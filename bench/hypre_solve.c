/* hypre_solve.c -- see hypre_solve.h (moved from bench_hypre.c, which documents the
 * settings and the memory measures). */
#include "hypre_solve.h"

#include <malloc.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h> /* ffs(), used by hypre's internal headers */

#include "HYPRE.h"
#include "HYPRE_krylov.h"
#include "HYPRE_parcsr_ls.h"
#include "_hypre_parcsr_ls.h" /* levels and coarse matrices of the hierarchy (operator complexity) */

#include "error.h"
#include "roofline.h"

_Static_assert(sizeof(HYPRE_Complex) == sizeof(double) && sizeof(HYPRE_Real) == sizeof(double),
               "hypre must be built with double precision");

/* jemalloc's control entry point, non-null where the program runs on it (CMakeLists.txt,
   INSDG_ALLOCATOR): glibc's mallinfo2 then sees none of the heap */
extern int mallctl(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen) __attribute__((weak));

double insdg_bench_heap_bytes(void)
{
  if (mallctl) {   /* bytes the application holds: stats.allocated, refreshed by an epoch */
    uint64_t epoch = 1;
    size_t allocated = 0, elen = sizeof epoch, alen = sizeof allocated;
    if (mallctl("epoch", &epoch, &elen, &epoch, elen) != 0 ||
        mallctl("stats.allocated", &allocated, &alen, NULL, 0) != 0)
      return NAN;
    return (double)allocated;
  }
  const struct mallinfo2 mi = mallinfo2();
  return (double)mi.uordblks + (double)mi.hblkhd;
}

static double norm2(const double *v, int n)
{
  double s = 0;
  for (int i = 0; i < n; ++i) s += v[i] * v[i];
  return sqrt(s);
}

double insdg_bench_true_relres(const insdg_csr *A, const double *b, const double *x)
{
  double *r = insdg_malloc(sizeof(double) * (size_t)A->nrows);
  insdg_csr_residual(A, x, b, r);
  const double rr = norm2(r, A->nrows) / norm2(b, A->nrows);
  free(r);
  return rr;
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

insdg_bench_result insdg_bench_hypre(const insdg_csr *A, const double *b, double theta, double rtol, int maxit,
                                     char *label, size_t labellen)
{
  snprintf(label, labellen, "hypre BoomerAMG(theta %.2f) + PCG", theta);
  insdg_bench_result res = {.method = label};
  const int n = A->nrows;
  HYPRE_BigInt *rows = insdg_malloc(sizeof(HYPRE_BigInt) * (size_t)n);
  HYPRE_BigInt *cols = insdg_malloc(sizeof(HYPRE_BigInt) * (size_t)A->nnz);
  HYPRE_Int *ncols = insdg_malloc(sizeof(HYPRE_Int) * (size_t)n), *zeros = insdg_calloc((size_t)n, sizeof(HYPRE_Int));
  for (int i = 0; i < n; ++i) rows[i] = i, ncols[i] = A->row_ptr[i + 1] - A->row_ptr[i];
  for (int k = 0; k < A->nnz; ++k) cols[k] = A->col[k];
  double *x = insdg_calloc((size_t)n, sizeof(double));

  /* the matrix: one rank owns every row, so everything is in the diagonal block */
  double h0 = insdg_bench_heap_bytes();
  HYPRE_IJMatrix ijA;
  HYPRE_IJMatrixCreate(MPI_COMM_WORLD, 0, n - 1, 0, n - 1, &ijA);
  HYPRE_IJMatrixSetObjectType(ijA, HYPRE_PARCSR);
  HYPRE_IJMatrixSetDiagOffdSizes(ijA, ncols, zeros);
  HYPRE_IJMatrixInitialize(ijA);
  HYPRE_IJMatrixSetValues(ijA, n, ncols, rows, cols, A->val);
  HYPRE_IJMatrixAssemble(ijA);
  res.mem_matrix = insdg_bench_heap_bytes() - h0;
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

  h0 = insdg_bench_heap_bytes();
  double t0 = insdg_wtime();
  HYPRE_BoomerAMGSetup(amg, parA, parb, parx);
  res.t_setup = insdg_wtime() - t0;
  res.mem_prec = res.mem_heap = insdg_bench_heap_bytes() - h0;
  {
    hypre_ParAMGData *d = (hypre_ParAMGData *)amg;
    hypre_ParCSRMatrix **Al = hypre_ParAMGDataAArray(d);
    res.levels = hypre_ParAMGDataNumLevels(d);
    double s = 0;
    for (int l = 0; l < res.levels; ++l) s += parcsr_nnz(Al[l]);
    res.complexity = s / parcsr_nnz(Al[0]);
  }

  HYPRE_ParCSRPCGCreate(MPI_COMM_WORLD, &pcg);
  HYPRE_PCGSetTol(pcg, rtol);
  HYPRE_PCGSetMaxIter(pcg, maxit);
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
  res.relres = insdg_bench_true_relres(A, b, x);
  res.converged = its < maxit && rel <= rtol;

  HYPRE_ParCSRPCGDestroy(pcg);
  HYPRE_BoomerAMGDestroy(amg);
  HYPRE_IJVectorDestroy(ijx), HYPRE_IJVectorDestroy(ijb);
  HYPRE_IJMatrixDestroy(ijA);
  free(x), free(rows), free(cols), free(ncols), free(zeros);
  return res;
}

