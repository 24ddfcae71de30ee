/* hypre_solve.h -- hypre's BoomerAMG-preconditioned PCG on an insdg CSR matrix, for the
 * benchmarks that compare against it (bench_hypre, bench_solvers); built only where
 * Debian's libhypre-dev is found (bench/CMakeLists.txt). One rank owns every row. */
#ifndef INSDG_BENCH_HYPRE_SOLVE_H
#define INSDG_BENCH_HYPRE_SOLVE_H

#include <stddef.h>

#include "csr.h"

typedef struct {
  const char *method;
  int levels, iters, converged;
  double complexity, t_setup, t_solve, relres, mem_matrix, mem_prec, mem_heap;
} insdg_bench_result;

/* glibc's heap in use (mallinfo2: uordblks + hblkhd), bytes */
double insdg_bench_heap_bytes(void);
/* ||b - A x|| / ||b|| */
double insdg_bench_true_relres(const insdg_csr *A, const double *b, const double *x);
/* BoomerAMG (HMIS, ext+i, one V(1,1) of hybrid symmetric Gauss-Seidel, strength theta) as
   the preconditioner of hypre's PCG (two-norm, no relative-change test) from x0 = 0 to
   ||r|| <= rtol ||b||; label receives the method's name. HYPRE_Init must have been called. */
insdg_bench_result insdg_bench_hypre(const insdg_csr *A, const double *b, double theta, double rtol, int maxit,
                                     char *label, size_t labellen);

#endif
