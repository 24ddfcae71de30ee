/* lapack_lite.c -- plain-C dense routines for builds without LAPACK/BLAS (lapack_lite.h).
 * Matrices are addressed through strides, A(i,j) = a[i*rs + j*cs], so one code serves
 * row-major (rs = lda, cs = 1) and column-major (rs = 1, cs = lda) storage. */
#include "lapack_lite.h"

#include <float.h>
#include <math.h>

static int strides(int layout, int ld, int *rs, int *cs)
{
  if (layout == INSDG_LITE_ROW_MAJOR) return *rs = ld, *cs = 1, 0;
  if (layout == INSDG_LITE_COL_MAJOR) return *rs = 1, *cs = ld, 0;
  return -1;
}

/* ---- dstev: eigenvalues of a symmetric tridiagonal matrix by bisection ------------------ */

/* Number of eigenvalues below x: negative pivots of the LDL^T factorisation of T - x I
   (Sturm count), with tiny pivots replaced by -pivmin as in LAPACK's dlaebz. */
static int sturm_count(int n, const double *a, const double *e2, double x, double pivmin)
{
  int count = 0;
  double q = a[0] - x;
  if (fabs(q) < pivmin) q = -pivmin;
  count += q < 0;
  for (int i = 1; i < n; ++i) {
    q = (a[i] - x) - e2[i - 1] / q;
    if (fabs(q) < pivmin) q = -pivmin;
    count += q < 0;
  }
  return count;
}

int insdg_lite_dstev(int layout, char jobz, int n, double *d, double *e, double *z, int ldz)
{
  (void)z, (void)ldz;
  if (layout != INSDG_LITE_ROW_MAJOR && layout != INSDG_LITE_COL_MAJOR) return -1;
  if (jobz != 'N' && jobz != 'n') return -2;
  if (n < 0) return -3;
  if (n <= 1) return 0;
  enum { NMAX_STACK = 512 };
  double a[NMAX_STACK], e2[NMAX_STACK];
  if (n > NMAX_STACK) return -3;
  double lo = INFINITY, hi = -INFINITY, emax2 = 0.0;
  for (int i = 0; i < n; ++i) {
    const double r = (i > 0 ? fabs(e[i - 1]) : 0.0) + (i + 1 < n ? fabs(e[i]) : 0.0);
    a[i] = d[i];
    lo = fmin(lo, d[i] - r), hi = fmax(hi, d[i] + r);
    if (i + 1 < n) e2[i] = e[i] * e[i], emax2 = fmax(emax2, e2[i]);
  }
  const double pivmin = DBL_MIN * fmax(1.0, emax2);
  const double margin = 4 * DBL_EPSILON * fmax(fabs(lo), fabs(hi)) + 4 * pivmin;
  lo -= margin, hi += margin;
  for (int k = 0; k < n; ++k) {   /* eigenvalue k (ascending): count(x) >= k+1 for x above it */
    double l = lo, h = hi;
    for (;;) {
      const double mid = 0.5 * (l + h);
      if (!(mid > l && mid < h)) break;   /* l and h adjacent */
      if (sturm_count(n, a, e2, mid, pivmin) >= k + 1) h = mid;
      else l = mid;
    }
    d[k] = 0.5 * (l + h);
  }
  return 0;
}

/* ---- LU ------------------------------------------------------------------------------ */

int insdg_lite_dgetrf(int layout, int m, int n, double *a, int lda, int *ipiv)
{
  int rs, cs;
  if (strides(layout, lda, &rs, &cs)) return -1;
  if (m < 0) return -2;
  if (n < 0) return -3;
#define A(i, j) a[(long)(i) * rs + (long)(j) * cs]
  int info = 0;
  const int mn = m < n ? m : n;
  for (int j = 0; j < mn; ++j) {
    int p = j;
    for (int i = j + 1; i < m; ++i)
      if (fabs(A(i, j)) > fabs(A(p, j))) p = i;
    ipiv[j] = p + 1;
    if (A(p, j) != 0.0) {
      if (p != j)
        for (int c = 0; c < n; ++c) {
          const double t = A(j, c);
          A(j, c) = A(p, c), A(p, c) = t;
        }
      const double inv = 1.0 / A(j, j);
      for (int i = j + 1; i < m; ++i) A(i, j) *= inv;
    } else if (info == 0) {
      info = j + 1;
    }
    for (int i = j + 1; i < m; ++i) {
      const double l = A(i, j);
      if (l != 0.0)
        for (int c = j + 1; c < n; ++c) A(i, c) -= l * A(j, c);
    }
  }
#undef A
  return info;
}

int insdg_lite_dgetrs(int layout, char trans, int n, int nrhs, const double *a, int lda, const int *ipiv,
                      double *b, int ldb)
{
  int rs, cs, brs, bcs;
  if (strides(layout, lda, &rs, &cs) || strides(layout, ldb, &brs, &bcs)) return -1;
  if (trans != 'N' && trans != 'n') return -2;
  if (n < 0) return -3;
  if (nrhs < 0) return -4;
#define A(i, j) a[(long)(i) * rs + (long)(j) * cs]
#define B(i, j) b[(long)(i) * brs + (long)(j) * bcs]
  for (int i = 0; i < n; ++i) {   /* row interchanges, in order */
    const int p = ipiv[i] - 1;
    if (p != i)
      for (int c = 0; c < nrhs; ++c) {
        const double t = B(i, c);
        B(i, c) = B(p, c), B(p, c) = t;
      }
  }
  for (int c = 0; c < nrhs; ++c) {
    for (int i = 1; i < n; ++i) {   /* L y = b, unit diagonal */
      double s = B(i, c);
      for (int k = 0; k < i; ++k) s -= A(i, k) * B(k, c);
      B(i, c) = s;
    }
    for (int i = n - 1; i >= 0; --i) {   /* U x = y */
      double s = B(i, c);
      for (int k = i + 1; k < n; ++k) s -= A(i, k) * B(k, c);
      B(i, c) = s / A(i, i);
    }
  }
#undef A
#undef B
  return 0;
}

int insdg_lite_dgesv(int layout, int n, int nrhs, double *a, int lda, int *ipiv, double *b, int ldb)
{
  const int info = insdg_lite_dgetrf(layout, n, n, a, lda, ipiv);
  if (info != 0) return info;
  return insdg_lite_dgetrs(layout, 'N', n, nrhs, a, lda, ipiv, b, ldb);
}

/* ---- dgemm ---------------------------------------------------------------------------- */

int insdg_lite_dgemm(int layout, int transa, int transb, int m, int n, int k, double alpha, const double *a,
                     int lda, const double *b, int ldb, double beta, double *c, int ldc)
{
  int ars, acs, brs, bcs, crs, ccs;
  if (strides(layout, lda, &ars, &acs) || strides(layout, ldb, &brs, &bcs) || strides(layout, ldc, &crs, &ccs))
    return -1;
  if ((transa != INSDG_LITE_NOTRANS && transa != INSDG_LITE_TRANS) ||
      (transb != INSDG_LITE_NOTRANS && transb != INSDG_LITE_TRANS) || m < 0 || n < 0 || k < 0)
    return -2;
  if (transa == INSDG_LITE_TRANS) { const int t = ars; ars = acs, acs = t; }   /* op(A)(i,l) */
  if (transb == INSDG_LITE_TRANS) { const int t = brs; brs = bcs, bcs = t; }
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double s = 0.0;
      for (int l = 0; l < k; ++l) s += a[(long)i * ars + (long)l * acs] * b[(long)l * brs + (long)j * bcs];
      double *cij = &c[(long)i * crs + (long)j * ccs];
      *cij = beta == 0.0 ? alpha * s : alpha * s + beta * *cij;   /* beta = 0: C not read */
    }
  return 0;
}
