/* test_lapack_lite.c -- src/lapack_lite (the LAPACK/BLAS stand-in of INSDG_GPU_ONLY builds)
 * against the real LAPACKE and CBLAS, on the inputs src/ref_tri.c gives them:
 *  - dstev: the Jacobi matrices of the Gauss-Jacobi rules ref_tri.c uses (alpha, beta in
 *    {(0,0), (1,1), (1,0), (2,0)}, 1..40 points) and random symmetric tridiagonals;
 *    eigenvalues agree to 1e-14 times the largest magnitude;
 *  - dgetrf + dgetrs (column major, as right_divide in ref_tri.c): V^T X = B with the
 *    Vandermonde matrices V of N = 1..INSDG_NMAX; solutions agree to 1e-12 relative;
 *  - dgesv (row major, as tests/test_ref.c) on random diagonally weighted matrices;
 *  - dgemm in both layouts, with and without transposes, beta 0 (C poisoned with NaN:
 *    it must not be read) and beta != 0; 1e-14 relative.
 * A corrupted lite result must fail the comparison (negative control at the end).
 */
#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "expect.h"
#include "lapack_lite.h"
#include "ref_tri.h"

static unsigned long long rng = 88172645463325252ull;
static double urand(void)
{
  rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
  return 2.0 * ((double)(rng >> 11) / 9007199254740992.0) - 1.0;
}

static double max_rel(const double *a, const double *b, size_t n)
{
  double d = 0, m = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!isfinite(a[i]) || !isfinite(b[i])) return INFINITY;
    d = fmax(d, fabs(a[i] - b[i])), m = fmax(m, fabs(b[i]));
  }
  return m > 0 ? d / m : d;
}

/* symmetric Jacobi matrix of the orthonormal Jacobi(alpha, beta) polynomials */
static void jacobi_matrix(int q, double al, double be, double *d, double *e)
{
  const double ab = al + be;
  d[0] = (be - al) / (ab + 2.0);
  for (int k = 1; k < q; ++k) d[k] = (be * be - al * al) / ((2.0 * k + ab) * (2.0 * k + ab + 2.0));
  for (int k = 0; k + 1 < q; ++k) {
    const double h = 2.0 * k + ab;
    e[k] = 2.0 / (h + 2.0) * sqrt((k + 1.0) * (k + 1.0 + ab) * (k + 1.0 + al) * (k + 1.0 + be) / ((h + 1.0) * (h + 3.0)));
  }
}

static double worst_dstev = 0;
static void compare_dstev(const char *what, int q, const double *d, const double *e)
{
  double d1[64], e1[64], d2[64], e2[64];
  memcpy(d1, d, sizeof(double) * q), memcpy(d2, d, sizeof(double) * q);
  memcpy(e1, e, sizeof(double) * (q > 1 ? q - 1 : 1)), memcpy(e2, e, sizeof(double) * (q > 1 ? q - 1 : 1));
  const int i1 = LAPACKE_dstev(LAPACK_COL_MAJOR, 'N', q, d1, e1, NULL, 1);
  const int i2 = insdg_lite_dstev(INSDG_LITE_COL_MAJOR, 'N', q, d2, e2, NULL, 1);
  double scale = 0, err = 0;
  for (int i = 0; i < q; ++i) scale = fmax(scale, fabs(d1[i])), err = fmax(err, fabs(d1[i] - d2[i]));
  err /= scale > 0 ? scale : 1;
  worst_dstev = fmax(worst_dstev, err);
  EXPECT(i1 == 0 && i2 == 0 && err <= 1e-14, "dstev %s q=%d: info %d/%d, error %.3e", what, q, i1, i2, err);
}

static void test_dstev(void)
{
  const double ab[4][2] = {{0, 0}, {1, 1}, {1, 0}, {2, 0}};
  double d[64], e[64];
  for (int k = 0; k < 4; ++k)
    for (int q = 1; q <= 40; ++q) {
      jacobi_matrix(q, ab[k][0], ab[k][1], d, e);
      compare_dstev("Jacobi", q, d, e);
    }
  for (int q = 1; q <= 40; ++q) {
    for (int i = 0; i < q; ++i) d[i] = 3 * urand(), e[i] = urand();
    compare_dstev("random", q, d, e);
  }
  printf("dstev: worst relative difference %.3e\n", worst_dstev);
}

static void test_lu(void)
{
  double worst = 0;
  for (int N = 1; N <= INSDG_NMAX; ++N) {
    insdg_ref *ref = insdg_ref_create(N);
    const int n = ref->Np, nrhs = n + 3;
    double *a1 = malloc(sizeof(double) * n * n), *a2 = malloc(sizeof(double) * n * n);
    double *b1 = malloc(sizeof(double) * n * nrhs), *b2 = malloc(sizeof(double) * n * nrhs);
    lapack_int *p1 = malloc(sizeof(lapack_int) * n);
    int *p2 = malloc(sizeof(int) * n);
    memcpy(a1, ref->V, sizeof(double) * n * n), memcpy(a2, ref->V, sizeof(double) * n * n);
    for (int i = 0; i < n * nrhs; ++i) b1[i] = b2[i] = urand();
    int i1 = LAPACKE_dgetrf(LAPACK_COL_MAJOR, n, n, a1, n, p1);
    int i2 = insdg_lite_dgetrf(INSDG_LITE_COL_MAJOR, n, n, a2, n, p2);
    if (i1 == 0) i1 = LAPACKE_dgetrs(LAPACK_COL_MAJOR, 'N', n, nrhs, a1, n, p1, b1, n);
    if (i2 == 0) i2 = insdg_lite_dgetrs(INSDG_LITE_COL_MAJOR, 'N', n, nrhs, a2, n, p2, b2, n);
    const double err = max_rel(b2, b1, (size_t)n * nrhs);
    worst = fmax(worst, err);
    EXPECT(i1 == 0 && i2 == 0 && err <= 1e-12, "dgetrf/dgetrs N=%d: info %d/%d, error %.3e", N, i1, i2, err);
    /* row-major dgesv on a random matrix with a weighted diagonal */
    for (int i = 0; i < n * n; ++i) a1[i] = a2[i] = urand() + (i % (n + 1) == 0 ? 2.0 : 0.0);
    for (int i = 0; i < n * nrhs; ++i) b1[i] = b2[i] = urand();
    i1 = LAPACKE_dgesv(LAPACK_ROW_MAJOR, n, nrhs, a1, n, p1, b1, nrhs);
    i2 = insdg_lite_dgesv(INSDG_LITE_ROW_MAJOR, n, nrhs, a2, n, p2, b2, nrhs);
    const double err2 = max_rel(b2, b1, (size_t)n * nrhs);
    worst = fmax(worst, err2);
    EXPECT(i1 == 0 && i2 == 0 && err2 <= 1e-12, "dgesv N=%d: info %d/%d, error %.3e", N, i1, i2, err2);
    free(a1), free(a2), free(b1), free(b2), free(p1), free(p2);
    insdg_ref_destroy(ref);
  }
  printf("dgetrf/dgetrs/dgesv: worst relative difference %.3e\n", worst);
}

static void test_dgemm(void)
{
  double worst = 0;
  const int shapes[4][3] = {{1, 1, 1}, {7, 5, 3}, {21, 36, 21}, {66, 256, 66}};
  for (int s = 0; s < 4; ++s)
    for (int layout = 0; layout < 2; ++layout)
      for (int ta = 0; ta < 2; ++ta)
        for (int tb = 0; tb < 2; ++tb)
          for (int with_beta = 0; with_beta < 2; ++with_beta) {
            const int m = shapes[s][0], n = shapes[s][1], k = shapes[s][2];
            const int row = layout == 0;
            /* stored shapes of A (m x k or k x m) and B (k x n or n x k) */
            const int ar = ta ? k : m, ac = ta ? m : k, br = tb ? n : k, bc = tb ? k : n;
            const int lda = row ? ac : ar, ldb = row ? bc : br, ldc = row ? n : m;
            double *A = malloc(sizeof(double) * ar * ac), *B = malloc(sizeof(double) * br * bc);
            double *C1 = malloc(sizeof(double) * m * n), *C2 = malloc(sizeof(double) * m * n);
            for (int i = 0; i < ar * ac; ++i) A[i] = urand();
            for (int i = 0; i < br * bc; ++i) B[i] = urand();
            for (int i = 0; i < m * n; ++i) C1[i] = C2[i] = with_beta ? urand() : NAN;
            const double alpha = 0.7, beta = with_beta ? -1.3 : 0.0;
            cblas_dgemm(row ? CblasRowMajor : CblasColMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans,
                        m, n, k, alpha, A, lda, B, ldb, beta, C1, ldc);
            const int rc = insdg_lite_dgemm(row ? INSDG_LITE_ROW_MAJOR : INSDG_LITE_COL_MAJOR,
                                            ta ? INSDG_LITE_TRANS : INSDG_LITE_NOTRANS,
                                            tb ? INSDG_LITE_TRANS : INSDG_LITE_NOTRANS, m, n, k, alpha, A, lda, B, ldb,
                                            beta, C2, ldc);
            const double err = max_rel(C2, C1, (size_t)m * n);
            worst = fmax(worst, err);
            EXPECT(rc == 0 && err <= 1e-14, "dgemm %dx%dx%d %s ta %d tb %d beta %g: error %.3e", m, n, k,
                   row ? "row" : "col", ta, tb, beta, err);
            free(A), free(B), free(C1), free(C2);
          }
  printf("dgemm: worst relative difference %.3e\n", worst);
}

/* the comparison must catch a wrong answer */
static void negative_control(void)
{
  double d[8], e[8], d2[8];
  jacobi_matrix(8, 0, 0, d, e);
  memcpy(d2, d, sizeof d);
  insdg_lite_dstev(INSDG_LITE_COL_MAJOR, 'N', 8, d2, e, NULL, 1);
  double ref[8];
  memcpy(ref, d2, sizeof ref);
  d2[3] += 1e-13;
  EXPECT(max_rel(d2, ref, 8) > 1e-14, "negative control: a perturbed eigenvalue was not detected");
  printf("negative control: a perturbation of 1e-13 is detected\n");
}

int main(void)
{
  test_dstev();
  test_lu();
  test_dgemm();
  negative_control();
  printf("%s\n", failures ? "FAILED" : "all passed");
  return failures ? 1 : 0;
}
