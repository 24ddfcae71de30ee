/* dense.h -- small dense linear algebra shared by the element-level code (curved.c, the
 * p-multigrid block inverses of tasks/pmg.c, the kinetic energy of tasks/observe.c). */
#ifndef INSDG_DENSE_H
#define INSDG_DENSE_H

/* Cholesky a = L L^T of the symmetric positive definite n x n row-major a, in place: L in
   the lower triangle (the strict upper triangle is left as it was). Returns 0, or -1 when
   a pivot is not positive (a is not positive definite; a is then partly overwritten). */
int insdg_cholesky(int n, double *a);

#endif
