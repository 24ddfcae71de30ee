/* lapack_lite.h -- the few dense LAPACK/BLAS routines src/ref_tri.c (and tests/test_ref.c)
 * call, in plain C, for builds without LAPACK and BLAS: INSDG_GPU_ONLY, meant for a GPU
 * machine that has CUDA, CMake and Python but none of the Debian packages.
 *
 * Names carry an insdg_lite_ prefix so that a program can link both these and the real
 * libraries (tests/test_lapack_lite.c compares them). The headers in include/ (lapacke.h,
 * cblas.h) map the LAPACKE_ and cblas_ names onto these; only INSDG_GPU_ONLY builds (and
 * the lite test) put that directory on the include path.
 *
 * Semantics are LAPACK's for the cases implemented (an unsupported case returns -1 or,
 * for dgemm, does nothing and reports through the return value):
 *   dstev   eigenvalues only (jobz 'N') of a symmetric tridiagonal matrix, ascending,
 *           by bisection with Sturm counts to the last bit;
 *   dgetrf  LU with partial pivoting, row or column major; ipiv 1-based like LAPACK;
 *   dgetrs  solve with those factors, trans 'N';
 *   dgesv   dgetrf then dgetrs;
 *   dgemm   C = alpha op(A) op(B) + beta C, row or column major, op = none or transpose.
 */
#ifndef INSDG_LAPACK_LITE_H
#define INSDG_LAPACK_LITE_H

enum { INSDG_LITE_ROW_MAJOR = 101, INSDG_LITE_COL_MAJOR = 102 };
enum { INSDG_LITE_NOTRANS = 111, INSDG_LITE_TRANS = 112 };

int insdg_lite_dstev(int layout, char jobz, int n, double *d, double *e, double *z, int ldz);
int insdg_lite_dgetrf(int layout, int m, int n, double *a, int lda, int *ipiv);
int insdg_lite_dgetrs(int layout, char trans, int n, int nrhs, const double *a, int lda, const int *ipiv,
                      double *b, int ldb);
int insdg_lite_dgesv(int layout, int n, int nrhs, double *a, int lda, int *ipiv, double *b, int ldb);
int insdg_lite_dgemm(int layout, int transa, int transb, int m, int n, int k, double alpha, const double *a,
                     int lda, const double *b, int ldb, double beta, double *c, int ldc);

#endif
