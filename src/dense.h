/* dense.h -- small dense linear algebra shared by the element-level code (curved.c, the
 * p-multigrid block inverses of tasks/pmg.c, the mass matrix's factor of ops_cpu.c and of
 * curved elements in tasks/observe.c, for the diagnostics' norms). */
#ifndef INSDG_DENSE_H
#define INSDG_DENSE_H

/* Cholesky a = L L^T of the symmetric positive definite n x n row-major a, in place: L in
   the lower triangle (the strict upper triangle is left as it was). Returns 0, or -1 when
   a pivot is not positive (a is not positive definite; a is then partly overwritten). */
int insdg_cholesky(int n, double *a);

/* L with L L^T = a (a symmetric positive definite, n x n, row-major, left as it is), L
   lower triangular with zeros above its diagonal: the mass matrices' factors whose rows
   the diagnostics' norms |L^T x|^2 read whole. Returns 0, or -1 as insdg_cholesky. */
int insdg_cholesky_lower(int n, const double *a, double *L);

#endif
