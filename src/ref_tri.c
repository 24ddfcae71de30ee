/* ref_tri.c -- the degree-N reference triangle: nodes, basis and every reference
 * operator the solver applies element by element (see ref_tri.h for the conventions).
 *
 * Construction order in insdg_ref_create: Warp & Blend nodes -> orthonormal basis and
 * its Vandermonde matrices -> nodal derivative and mass matrices -> face nodes and
 * LIFT -> volume cubature (Stroud conical product) and its projection operators ->
 * face cubature (Gauss-Legendre) and its lift. Everything downstream of V is obtained
 * by LU solves with V (B V^{-1} for a matrix B of basis values, LAPACKE dgetrf/dgetrs)
 * plus one step of iterative refinement with a long double residual, never by an
 * explicit inverse that is then multiplied carelessly. The math follows Hesthaven &
 * Warburton, "Nodal Discontinuous Galerkin Methods" (2008), ch. 3 and 6, and Warburton
 * (2006) for the nodes; docs/reference_element.md records the choices.
 *
 * Modal ordering: psi_m with (i,j) the degrees in the collapsed coordinates (a,b),
 * ordered by total degree d = i + j, and inside one degree by increasing i:
 * m = d(d+1)/2 + i. So modes 0..(d+1)(d+2)/2-1 span exactly the polynomials of
 * degree <= d (useful for modal filters and p-transfer).
 */
#include "ref_tri.h"

#include "error.h"

#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Distance within which a node is taken to lie on a face (the nodes on a face are
   placed exactly on it up to rounding; interior nodes are O(1/N^2) away). */
#define FACE_TOL 1e-10

/* ===================================================================================
 * 1D orthogonal polynomials and Gauss rules
 * =================================================================================== */

/* Integral of the Jacobi weight (1-x)^alpha (1+x)^beta over [-1,1]. */
static double jacobi_weight_mass(double alpha, double beta)
{
  return pow(2.0, alpha + beta + 1.0) * tgamma(alpha + 1.0) * tgamma(beta + 1.0) /
         tgamma(alpha + beta + 2.0);
}

/* P[k], k = 0..n: Jacobi polynomials P_k^{(alpha,beta)}(x) normalised to be orthonormal
   for the weight (1-x)^alpha (1+x)^beta on [-1,1] (three-term recurrence of the
   orthonormal family, so no large intermediate values). Needs alpha + beta > -1. */
static void jacobi_all(double x, double alpha, double beta, int n, double *P)
{
  double ab = alpha + beta;
  double gamma0 = jacobi_weight_mass(alpha, beta);
  P[0] = 1.0 / sqrt(gamma0);
  if (n == 0) return;
  double gamma1 = (alpha + 1.0) * (beta + 1.0) / (ab + 3.0) * gamma0;
  P[1] = ((ab + 2.0) * x / 2.0 + (alpha - beta) / 2.0) / sqrt(gamma1);
  double a_old = 2.0 / (2.0 + ab) * sqrt((alpha + 1.0) * (beta + 1.0) / (ab + 3.0));
  for (int k = 1; k < n; ++k) {
    double h1 = 2.0 * k + ab;
    double a_new = 2.0 / (h1 + 2.0) *
                   sqrt((k + 1.0) * (k + 1.0 + ab) * (k + 1.0 + alpha) * (k + 1.0 + beta) /
                        (h1 + 1.0) / (h1 + 3.0));
    double b_new = -(alpha * alpha - beta * beta) / h1 / (h1 + 2.0);
    P[k + 1] = (-a_old * P[k - 1] + (x - b_new) * P[k]) / a_new;
    a_old = a_new;
  }
}

/* dP[k], k = 0..n: derivatives of the normalised Jacobi polynomials, from
   d/dx P_k^{(a,b)} = sqrt(k (k+a+b+1)) P_{k-1}^{(a+1,b+1)} (normalised family).
   tmp must hold n+1 doubles. */
static void jacobi_grad_all(double x, double alpha, double beta, int n, double *dP,
                            double *tmp)
{
  dP[0] = 0.0;
  if (n == 0) return;
  jacobi_all(x, alpha + 1.0, beta + 1.0, n - 1, tmp);
  for (int k = 1; k <= n; ++k)
    dP[k] = sqrt(k * (k + alpha + beta + 1.0)) * tmp[k - 1];
}

/* Gauss-Jacobi rule with q points for the weight (1-x)^alpha (1+x)^beta: nodes are the
   eigenvalues of the symmetric Jacobi matrix (Golub-Welsch, LAPACKE_dstev, ascending);
   weights by the Christoffel formula w = 1 / sum_k p_k(x)^2 over the orthonormal p_k,
   k < q, which keeps full relative accuracy also for the small weights near x = +-1
   (squared eigenvector components lose it). */
static void gauss_jacobi(int q, double alpha, double beta, double *x, double *w)
{
  double ab = alpha + beta;
  double *offdiag = insdg_calloc((size_t)q, sizeof(double));
  x[0] = (beta - alpha) /
         (ab + 2.0); /* the general diagonal formula is 0/0 here when ab = 0 */
  for (int k = 1; k < q; ++k)
    x[k] = (beta * beta - alpha * alpha) / ((2.0 * k + ab) * (2.0 * k + ab + 2.0));
  for (int k = 0; k + 1 < q; ++k) {
    double h = 2.0 * k + ab;
    offdiag[k] = 2.0 / (h + 2.0) *
                 sqrt((k + 1.0) * (k + 1.0 + ab) * (k + 1.0 + alpha) * (k + 1.0 + beta) /
                      ((h + 1.0) * (h + 3.0)));
  }
  lapack_int info = LAPACKE_dstev(LAPACK_COL_MAJOR, 'N', q, x, offdiag, NULL, 1);
  INSDG_CHECK(info == 0);
  double *P = insdg_malloc((size_t)q * sizeof(double));
  for (int i = 0; i < q; ++i) {
    jacobi_all(x[i], alpha, beta, q - 1, P);
    double sum = 0.0;
    for (int k = 0; k < q; ++k)
      sum += P[k] * P[k];
    w[i] = 1.0 / sum;
  }
  free(P);
  free(offdiag);
}

/* Legendre-Gauss-Lobatto nodes on [-1,1], N+1 of them, ascending: the endpoints and the
   N-1 Gauss-Jacobi(1,1) nodes (zeros of P_N'). */
static void lgl_nodes(int N, double *x)
{
  x[0] = -1.0;
  x[N] = 1.0;
  if (N < 2) return;
  double *w = insdg_malloc((size_t)(N - 1) * sizeof(double));
  gauss_jacobi(N - 1, 1.0, 1.0, x + 1, w);
  free(w);
}

/* ===================================================================================
 * Linear algebra helpers (row-major storage throughout)
 * =================================================================================== */

/* LU factors of a square matrix V (n x n, row-major) for right division B V^{-1}.
   The row-major V read as column-major is V^T; we factor that. V itself is kept for
   the refinement step of right_divide. */
typedef struct {
  int n;
  const double *V;
  double *lu;
  lapack_int *ipiv;
} right_divisor;

static right_divisor right_divisor_create(const double *V, int n)
{
  right_divisor d = {n, V, insdg_malloc((size_t)n * n * sizeof(double)),
                     insdg_malloc((size_t)n * sizeof(lapack_int))};
  memcpy(d.lu, V, (size_t)n * n * sizeof(double));
  lapack_int info = LAPACKE_dgetrf(LAPACK_COL_MAJOR, n, n, d.lu, n, d.ipiv);
  INSDG_CHECK(info == 0);
  return d;
}

static void right_divisor_destroy(right_divisor *d)
{
  free(d->lu);
  free(d->ipiv);
}

/* X := X V^{-1} with the LU factors only: read column-major, X is X^T, so this is the
   solve V^T Y = X^T. */
static void solve_with_factors(const right_divisor *d, int nrows, double *X)
{
  lapack_int info =
      LAPACKE_dgetrs(LAPACK_COL_MAJOR, 'N', d->n, nrows, d->lu, d->n, d->ipiv, X, d->n);
  INSDG_CHECK(info == 0);
}

/* B := B V^{-1} for B with nrows rows of d->n columns (row-major), followed by one step
   of iterative refinement whose residual B - X V is accumulated in long double. The
   plain LU solve leaves an error of order cond(V) eps |B V^{-1}|: 2.6e-12 relative on
   monomial derivatives by Dr at N = 15; after the refinement about 1e-13. */
static void right_divide(const right_divisor *d, int nrows, double *B)
{
  if (nrows == 0) return;
  int n = d->n;
  size_t len = (size_t)nrows * n;
  double *rhs = insdg_malloc(len * sizeof(double));
  memcpy(rhs, B, len * sizeof(double));
  solve_with_factors(d, nrows, B);
  for (int i = 0; i < nrows; ++i) /* rhs := rhs - B V, the residual */
    for (int j = 0; j < n; ++j) {
      long double res = rhs[(size_t)i * n + j];
      for (int k = 0; k < n; ++k)
        res -= (long double)B[(size_t)i * n + k] * d->V[(size_t)k * n + j];
      rhs[(size_t)i * n + j] = (double)res;
    }
  solve_with_factors(d, nrows, rhs);
  for (size_t k = 0; k < len; ++k)
    B[k] += rhs[k];
  free(rhs);
}

/* V^{-1} (n x n) into Vinv. */
static void inverse_by_solve(const right_divisor *d, double *Vinv)
{
  int n = d->n;
  memset(Vinv, 0, (size_t)n * n * sizeof(double));
  for (int i = 0; i < n; ++i)
    Vinv[i * n + i] = 1.0;
  right_divide(d, n, Vinv);
}

/* C[m x n] = A[m x k] B[k x n]. */
static void matmul(int m, int n, int k, const double *A, const double *B, double *C)
{
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0, A, k, B, n, 0.0, C,
              n);
}

/* C[n x n] = A^T A and A A^T for A[n x n], by explicit loops so that C is exactly
   symmetric (the mass matrices are used as symmetric operators downstream). */
static void gram_transposed(int n, const double *A, double *C)
{
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      double sum = 0.0;
      for (int k = 0; k < n; ++k)
        sum += A[k * n + i] * A[k * n + j];
      C[i * n + j] = sum;
    }
}

static void gram(int n, const double *A, double *C)
{
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      double sum = 0.0;
      for (int k = 0; k < n; ++k)
        sum += A[i * n + k] * A[j * n + k];
      C[i * n + j] = sum;
    }
}

static double *alloc_doubles(size_t n) { return insdg_malloc(n * sizeof(double)); }

/* ===================================================================================
 * Orthonormal basis on the triangle
 * =================================================================================== */

static int mode_index(int i, int j)
{
  int d = i + j;
  return d * (d + 1) / 2 + i;
}

/* Scratch for evaluating the degree-N basis at one point. */
typedef struct {
  double *Pa, *dPa; /* [N+1] Legendre in a and derivative */
  double *Pb, *dPb; /* [N+1] Jacobi(2i+1,0) in b and derivative */
  double *tmp;      /* [N+1] */
} basis_scratch;

static basis_scratch basis_scratch_create(int N)
{
  size_t n = (size_t)N + 1;
  basis_scratch w = {alloc_doubles(n), alloc_doubles(n), alloc_doubles(n), alloc_doubles(n),
                     alloc_doubles(n)};
  return w;
}

static void basis_scratch_destroy(basis_scratch *w)
{
  free(w->Pa);
  free(w->dPa);
  free(w->Pb);
  free(w->dPb);
  free(w->tmp);
}

/* Collapsed coordinates of (r,s). At the top vertex s = 1 the map is singular; every
   mode with i > 0 carries a factor (1-b)^i there, so any a works and we take a = -1. */
static void collapse(double r, double s, double *a, double *b)
{
  *a = (fabs(1.0 - s) > 1e-14) ? 2.0 * (1.0 + r) / (1.0 - s) - 1.0 : -1.0;
  *b = s;
}

/* psi_m(r,s) for all m into psi[Np]; derivatives into psir, psis when non-NULL.
   psi_ij = sqrt(2) P_i(a) P_j^{(2i+1,0)}(b) (1-b)^i = 2^{i+1/2} P_i(a) P_j(b) h^i with
   h = (1-b)/2. The chain rule through a = 2(1+r)/(1-s) - 1 gives derivatives with only
   h^{i-1} in them, so they are evaluated without dividing by (1-s). */
static void basis_at_point(int N, double r, double s, basis_scratch *w, double *psi,
                           double *psir, double *psis)
{
  double a, b;
  collapse(r, s, &a, &b);
  double h = 0.5 * (1.0 - b);
  jacobi_all(a, 0.0, 0.0, N, w->Pa);
  jacobi_grad_all(a, 0.0, 0.0, N, w->dPa, w->tmp);
  double h_pow_im1 = 1.0; /* h^{i-1} for i >= 1, 1 for i = 0 */
  for (int i = 0; i <= N; ++i) {
    if (i >= 2) h_pow_im1 *= h;
    double h_pow_i = (i == 0) ? 1.0 : h_pow_im1 * h;
    double scale = pow(2.0, i + 0.5);
    jacobi_all(b, 2.0 * i + 1.0, 0.0, N - i, w->Pb);
    jacobi_grad_all(b, 2.0 * i + 1.0, 0.0, N - i, w->dPb, w->tmp);
    for (int j = 0; j + i <= N; ++j) {
      int m = mode_index(i, j);
      psi[m] = scale * w->Pa[i] * w->Pb[j] * h_pow_i;
      if (!psir) continue;
      double fa = w->Pa[i], dfa = w->dPa[i], gb = w->Pb[j], dgb = w->dPb[j];
      double dr = dfa * gb * (i > 0 ? h_pow_im1 : 1.0);
      double ds = dfa * gb * 0.5 * (1.0 + a) * (i > 0 ? h_pow_im1 : 1.0);
      double db_part = dgb * h_pow_i;
      if (i > 0) db_part -= 0.5 * i * gb * h_pow_im1;
      psir[m] = scale * dr;
      psis[m] = scale * (ds + fa * db_part);
    }
  }
}

void insdg_ref_basis(int N, int n, const double *r, const double *s, double *out,
                     double *dr, double *ds)
{
  INSDG_CHECK(N >= 0 && n >= 0);
  INSDG_CHECK((dr == NULL) == (ds == NULL));
  int Np = (N + 1) * (N + 2) / 2;
  basis_scratch w = basis_scratch_create(N);
  for (int p = 0; p < n; ++p) {
    size_t row = (size_t)p * Np;
    basis_at_point(N, r[p], s[p], &w, out + row, dr ? dr + row : NULL,
                   ds ? ds + row : NULL);
  }
  basis_scratch_destroy(&w);
}

/* ===================================================================================
 * Warp & Blend nodes (Warburton 2006)
 * =================================================================================== */

/* Optimised blend exponents alpha_opt(N), N = 1..15 (Warburton 2006; the table used by
   Hesthaven & Warburton's Nodes2D). */
static const double warp_alpha_opt[INSDG_NMAX] = {0.0000, 0.0000, 1.4152, 0.1001, 0.2751,
                                                  0.9800, 1.0999, 1.2832, 1.3648, 1.4773,
                                                  1.4959, 1.5743, 1.5770, 1.6223, 1.6258};

/* Lagrange polynomial through (xeq_k, val_k), k = 0..N, evaluated at x. Product form;
   equispaced points with N <= 15 are harmless for evaluation inside [-1,1]. */
static double lagrange_eval(int N, const double *xk, const double *val, double x)
{
  double sum = 0.0;
  for (int k = 0; k <= N; ++k) {
    double l = 1.0;
    for (int m = 0; m <= N; ++m)
      if (m != k) l *= (x - xk[m]) / (xk[k] - xk[m]);
    sum += val[k] * l;
  }
  return sum;
}

/* 1D warp function: the degree-N interpolant of (LGL - equispaced) displacements,
   evaluated at x and divided by (1 - x^2) inside the interval so that the blend
   factors 4 L_a L_b can restore it on the edge (at x = +-1 the displacement is 0). */
static double warp_factor(int N, const double *equi, const double *disp, double x)
{
  if (fabs(x) >= 1.0 - 1e-10) return 0.0; /* a vertex: the blend factor is 0 there too */
  return lagrange_eval(N, equi, disp, x) / (1.0 - x * x);
}

/* Equilateral-triangle coordinates (x,y) -> (r,s) on the reference triangle, via the
   barycentric coordinates; L1 belongs to the top vertex v2 = (-1,1). */
static void equilateral_to_rs(double x, double y, double *r, double *s)
{
  double L1 = (sqrt(3.0) * y + 1.0) / 3.0;
  double L2 = (-3.0 * x - sqrt(3.0) * y + 2.0) / 6.0;
  double L3 = (3.0 * x - sqrt(3.0) * y + 2.0) / 6.0;
  *r = -L2 + L3 - L1;
  *s = -L2 - L3 + L1;
}

/* One Warp & Blend node from its equispaced barycentric coordinates. L2 belongs to
   v0, L3 to v1, L1 to v2; edge k of the equilateral triangle is opposite L_k's vertex. */
static void warp_blend_node(int N, double alpha, const double *equi, const double *disp,
                            double L1, double L2, double L3, double *r, double *s)
{
  const double pi = 3.14159265358979323846;
  double x = -L2 + L3, y = (-L2 - L3 + 2.0 * L1) / sqrt(3.0);
  double warp1 = 4.0 * L2 * L3 * warp_factor(N, equi, disp, L3 - L2) *
                 (1.0 + (alpha * L1) * (alpha * L1));
  double warp2 = 4.0 * L1 * L3 * warp_factor(N, equi, disp, L1 - L3) *
                 (1.0 + (alpha * L2) * (alpha * L2));
  double warp3 = 4.0 * L1 * L2 * warp_factor(N, equi, disp, L2 - L1) *
                 (1.0 + (alpha * L3) * (alpha * L3));
  x += warp1 + cos(2.0 * pi / 3.0) * warp2 + cos(4.0 * pi / 3.0) * warp3;
  y += sin(2.0 * pi / 3.0) * warp2 + sin(4.0 * pi / 3.0) * warp3;
  equilateral_to_rs(x, y, r, s);
}

void insdg_ref_nodes(int N, double *r, double *s)
{
  INSDG_CHECK(N >= 1 && N <= INSDG_NMAX);
  double alpha = warp_alpha_opt[N - 1];
  double *lgl = alloc_doubles((size_t)N + 1), *equi = alloc_doubles((size_t)N + 1);
  double *disp = alloc_doubles((size_t)N + 1);
  lgl_nodes(N, lgl);
  for (int k = 0; k <= N; ++k) {
    equi[k] = -1.0 + 2.0 * k / N;
    disp[k] = lgl[k] - equi[k];
  }
  /* Rows of constant L1 from the bottom edge (s = -1) up, r increasing along a row. */
  int p = 0;
  for (int n = 0; n <= N; ++n)
    for (int m = 0; m <= N - n; ++m, ++p) {
      double L1 = (double)n / N, L3 = (double)m / N, L2 = 1.0 - L1 - L3;
      warp_blend_node(N, alpha, equi, disp, L1, L2, L3, &r[p], &s[p]);
    }
  free(lgl);
  free(equi);
  free(disp);
}

/* ===================================================================================
 * Faces
 * =================================================================================== */

/* Signed distance-like residual of the face equation of face f at (r,s). */
static double face_residual(int f, double r, double s)
{
  switch (f) {
  case 0: return s + 1.0;
  case 1: return r + s;
  default: return r + 1.0;
  }
}

/* Parameter t in [-1,1] of a point of face f, increasing from vertex f to f+1. */
static double face_parameter(int f, double r, double s)
{
  switch (f) {
  case 0: return r;
  case 1: return s;
  default: return -s;
  }
}

/* The point of face f at parameter t (inverse of face_parameter). */
static void face_point(int f, double t, double *r, double *s)
{
  switch (f) {
  case 0:
    *r = t;
    *s = -1.0;
    break;
  case 1:
    *r = -t;
    *s = t;
    break;
  default:
    *r = -1.0;
    *s = -t;
    break;
  }
}

/* face_nodes[f][j]: the nodes within FACE_TOL of face f, sorted by increasing t. By
   the symmetry of the node set their parameters are the same on every face (the LGL
   points), which face_interp relies on and the tests check. */
static void find_face_nodes(insdg_ref *ref)
{
  for (int f = 0; f < INSDG_NFACES; ++f) {
    int *fn = ref->face_nodes + f * ref->Nfp;
    int count = 0;
    for (int i = 0; i < ref->Np; ++i)
      if (fabs(face_residual(f, ref->r[i], ref->s[i])) < FACE_TOL) {
        INSDG_CHECK(count < ref->Nfp);
        fn[count++] = i;
      }
    INSDG_CHECK(count == ref->Nfp);
    /* insertion sort by increasing t */
    for (int j = 1; j < count; ++j) {
      int node = fn[j];
      double t = face_parameter(f, ref->r[node], ref->s[node]);
      int k = j - 1;
      while (k >= 0 && face_parameter(f, ref->r[fn[k]], ref->s[fn[k]]) > t) {
        fn[k + 1] = fn[k];
        --k;
      }
      fn[k + 1] = node;
    }
  }
}

/* The face-node parameters of face f (increasing). */
static void face_node_parameters(const insdg_ref *ref, int f, double *t)
{
  for (int j = 0; j < ref->Nfp; ++j) {
    int node = ref->face_nodes[f * ref->Nfp + j];
    t[j] = face_parameter(f, ref->r[node], ref->s[node]);
  }
}

/* 1D Vandermonde V1[j][k] = normalised Legendre P_k(t_j), n points, degree n-1. */
static void vandermonde_1d(int n, const double *t, int npts, double *V1)
{
  for (int j = 0; j < npts; ++j)
    jacobi_all(t[j], 0.0, 0.0, n - 1, V1 + (size_t)j * n);
}

/* 1D mass matrix of the face nodes t[0..Nfp-1] on [-1,1]: (V1 V1^T)^{-1} =
   V1^{-T} V1^{-1}. */
static void face_mass_1d(int Nfp, const double *t, double *M1)
{
  double *V1 = alloc_doubles((size_t)Nfp * Nfp), *V1inv = alloc_doubles((size_t)Nfp * Nfp);
  vandermonde_1d(Nfp, t, Nfp, V1);
  right_divisor d = right_divisor_create(V1, Nfp);
  inverse_by_solve(&d, V1inv);
  gram_transposed(Nfp, V1inv, M1);
  right_divisor_destroy(&d);
  free(V1);
  free(V1inv);
}

/* LIFT = M^{-1} E. E is zero except in the rows of the face's own nodes, where the
   nodal basis restricted to the face is the 1D Lagrange basis of the face nodes, so
   E's block for face f is the 1D mass matrix M1 of those nodes. */
static void build_lift(insdg_ref *ref)
{
  int Np = ref->Np, Nfp = ref->Nfp, ncols = INSDG_NFACES * Nfp;
  double *t = alloc_doubles((size_t)Nfp), *M1 = alloc_doubles((size_t)Nfp * Nfp);
  for (int f = 0; f < INSDG_NFACES; ++f) {
    face_node_parameters(ref, f, t);
    face_mass_1d(Nfp, t, M1);
    const int *fn = ref->face_nodes + f * Nfp;
    for (int n = 0; n < Np; ++n)
      for (int j = 0; j < Nfp; ++j) {
        double sum = 0.0;
        for (int k = 0; k < Nfp; ++k)
          sum += ref->invM[n * Np + fn[k]] * M1[k * Nfp + j];
        ref->LIFT[(size_t)n * ncols + f * Nfp + j] = sum;
      }
  }
  free(t);
  free(M1);
}

/* ===================================================================================
 * Cubature
 * =================================================================================== */

/* Points per direction for exactness 2q - 1 >= 3N (the degree of the nonlinear
   products the solver integrates). */
static int cubature_points_per_direction(int N) { return (3 * N + 2) / 2; }

/* Stroud conical product rule: int_T f dr ds = int int f(r(a,b), b) (1-b)/2 da db, with
   Gauss-Legendre in a and Gauss-Jacobi(1,0) in b absorbing the (1-b) factor. Point
   index p = ia * q + ib. */
static void build_volume_rule(insdg_ref *ref)
{
  int q = cubature_points_per_direction(ref->N);
  double *xa = alloc_doubles((size_t)q), *wa = alloc_doubles((size_t)q);
  double *xb = alloc_doubles((size_t)q), *wb = alloc_doubles((size_t)q);
  gauss_jacobi(q, 0.0, 0.0, xa, wa);
  gauss_jacobi(q, 1.0, 0.0, xb, wb);
  ref->Ncub = q * q;
  ref->cub_degree = 2 * q - 1;
  ref->rc = alloc_doubles((size_t)ref->Ncub);
  ref->sc = alloc_doubles((size_t)ref->Ncub);
  ref->wc = alloc_doubles((size_t)ref->Ncub);
  for (int ia = 0; ia < q; ++ia)
    for (int ib = 0; ib < q; ++ib) {
      int p = ia * q + ib;
      ref->rc[p] = 0.5 * (1.0 + xa[ia]) * (1.0 - xb[ib]) - 1.0;
      ref->sc[p] = xb[ib];
      ref->wc[p] = 0.5 * wa[ia] * wb[ib];
    }
  free(xa);
  free(wa);
  free(xb);
  free(wb);
}

/* P[n][i] = sum_m invM[n][m] w[i] G[i][m], i.e. M^{-1} G^T diag(w), for G [npts][Np]. */
static void weak_projection(const insdg_ref *ref, int npts, const double *G,
                            const double *w, double *P)
{
  int Np = ref->Np;
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, Np, npts, Np, 1.0, ref->invM, Np, G,
              Np, 0.0, P, npts);
  for (int n = 0; n < Np; ++n)
    for (int i = 0; i < npts; ++i)
      P[(size_t)n * npts + i] *= w[i];
}

/* cub_interp = V_c V^{-1}; cub_Pr = M^{-1} (I Dr)^T W, cub_Ps likewise. */
static void build_volume_operators(insdg_ref *ref, const right_divisor *Vlu)
{
  int Np = ref->Np, Nc = ref->Ncub;
  ref->cub_interp = alloc_doubles((size_t)Nc * Np);
  insdg_ref_basis(ref->N, Nc, ref->rc, ref->sc, ref->cub_interp, NULL, NULL);
  right_divide(Vlu, Nc, ref->cub_interp);
  double *IDx = alloc_doubles((size_t)Nc * Np);
  ref->cub_Pr = alloc_doubles((size_t)Np * Nc);
  ref->cub_Ps = alloc_doubles((size_t)Np * Nc);
  matmul(Nc, Np, Np, ref->cub_interp, ref->Dr, IDx);
  weak_projection(ref, Nc, IDx, ref->wc, ref->cub_Pr);
  matmul(Nc, Np, Np, ref->cub_interp, ref->Ds, IDx);
  weak_projection(ref, Nc, IDx, ref->wc, ref->cub_Ps);
  free(IDx);
}

/* face_interp = V1(tfc) V1(t_nodes)^{-1}: 1D Lagrange interpolation from the face
   nodes to the face cubature points (the face-node t are the same on every face). */
static void build_face_interp(insdg_ref *ref)
{
  int Nfp = ref->Nfp, q = ref->Nfcub;
  double *t = alloc_doubles((size_t)Nfp), *V1 = alloc_doubles((size_t)Nfp * Nfp);
  face_node_parameters(ref, 0, t);
  vandermonde_1d(Nfp, t, Nfp, V1);
  right_divisor d1 = right_divisor_create(V1, Nfp);
  ref->face_interp = alloc_doubles((size_t)q * Nfp);
  vandermonde_1d(Nfp, ref->tfc, q, ref->face_interp);
  right_divide(&d1, q, ref->face_interp);
  right_divisor_destroy(&d1);
  free(V1);
  free(t);
}

/* cub_LIFT[n][f*Nfcub+k] = sum_m invM[n][m] wfc[k] l_m(x_fk): the nodal basis at the
   face cubature points of every face (increasing t), then the weak projection. */
static void build_cub_lift(insdg_ref *ref, const right_divisor *Vlu)
{
  int q = ref->Nfcub, Np = ref->Np, nf = INSDG_NFACES * q;
  double *rf = alloc_doubles((size_t)nf), *sf = alloc_doubles((size_t)nf);
  double *wf = alloc_doubles((size_t)nf), *L = alloc_doubles((size_t)nf * Np);
  for (int f = 0; f < INSDG_NFACES; ++f)
    for (int k = 0; k < q; ++k) {
      face_point(f, ref->tfc[k], &rf[f * q + k], &sf[f * q + k]);
      wf[f * q + k] = ref->wfc[k];
    }
  insdg_ref_basis(ref->N, nf, rf, sf, L, NULL, NULL);
  right_divide(Vlu, nf, L);
  ref->cub_LIFT = alloc_doubles((size_t)Np * nf);
  weak_projection(ref, nf, L, wf, ref->cub_LIFT);
  free(rf);
  free(sf);
  free(wf);
  free(L);
}

/* Face rule: Gauss-Legendre with the same q as the volume rule, exact to 2q-1 >= 3N. */
static void build_face_operators(insdg_ref *ref, const right_divisor *Vlu)
{
  int q = cubature_points_per_direction(ref->N);
  ref->Nfcub = q;
  ref->face_cub_degree = 2 * q - 1;
  ref->tfc = alloc_doubles((size_t)q);
  ref->wfc = alloc_doubles((size_t)q);
  gauss_jacobi(q, 0.0, 0.0, ref->tfc, ref->wfc);
  build_face_interp(ref);
  build_cub_lift(ref, Vlu);
}

/* ===================================================================================
 * Assembly of the reference element
 * =================================================================================== */

/* V, Dr = Vr V^{-1}, Ds = Vs V^{-1}, M = V^{-T} V^{-1}, invM = V V^T. */
static void build_nodal_operators(insdg_ref *ref, const right_divisor *Vlu)
{
  int Np = ref->Np;
  size_t nn = (size_t)Np * Np;
  double *Vinv = alloc_doubles(nn);
  /* Dr, Ds hold Vr, Vs on entry */
  right_divide(Vlu, Np, ref->Dr);
  right_divide(Vlu, Np, ref->Ds);
  inverse_by_solve(Vlu, Vinv);
  gram_transposed(Np, Vinv, ref->M);
  gram(Np, ref->V, ref->invM);
  free(Vinv);
}

insdg_ref *insdg_ref_create(int N)
{
  INSDG_CHECK(N >= 1 && N <= INSDG_NMAX);
  insdg_ref *ref = insdg_calloc(1, sizeof(*ref));
  ref->N = N;
  ref->Np = (N + 1) * (N + 2) / 2;
  ref->Nfp = N + 1;
  int Np = ref->Np;
  size_t nn = (size_t)Np * Np;
  ref->r = alloc_doubles((size_t)Np);
  ref->s = alloc_doubles((size_t)Np);
  ref->face_nodes = insdg_malloc((size_t)INSDG_NFACES * ref->Nfp * sizeof(int));
  ref->V = alloc_doubles(nn);
  ref->Dr = alloc_doubles(nn);
  ref->Ds = alloc_doubles(nn);
  ref->M = alloc_doubles(nn);
  ref->invM = alloc_doubles(nn);
  ref->LIFT = alloc_doubles((size_t)Np * INSDG_NFACES * ref->Nfp);

  insdg_ref_nodes(N, ref->r, ref->s);
  insdg_ref_basis(N, Np, ref->r, ref->s, ref->V, ref->Dr, ref->Ds);
  right_divisor Vlu = right_divisor_create(ref->V, Np);
  build_nodal_operators(ref, &Vlu);
  find_face_nodes(ref);
  /* the same sets as insdg_ref_node_on_face's, and face 0's nodes the first row in order (the
     register SIPDG takes them as its rows' first lanes: ops_sipdg_reg.inc, reg_own_face) */
  for (int j = 0; j < ref->Nfp; ++j) INSDG_CHECK(ref->face_nodes[j] == j);
  for (int f = 0; f < INSDG_NFACES; ++f) {
    int count = 0;
    for (int i = 0; i < Np; ++i) count += insdg_ref_node_on_face(N, i, f);
    INSDG_CHECK(count == ref->Nfp);
    for (int j = 0; j < ref->Nfp; ++j) INSDG_CHECK(insdg_ref_node_on_face(N, ref->face_nodes[f * ref->Nfp + j], f));
  }
  build_lift(ref);
  build_volume_rule(ref);
  build_volume_operators(ref, &Vlu);
  build_face_operators(ref, &Vlu);
  right_divisor_destroy(&Vlu);
  return ref;
}

void insdg_ref_destroy(insdg_ref *ref)
{
  if (!ref) return;
  double *arrays[] = {ref->r,   ref->s,           ref->V,       ref->Dr,     ref->Ds,
                      ref->M,   ref->invM,        ref->LIFT,    ref->rc,     ref->sc,
                      ref->wc,  ref->cub_interp,  ref->cub_Pr,  ref->cub_Ps, ref->tfc,
                      ref->wfc, ref->face_interp, ref->cub_LIFT};
  for (size_t k = 0; k < sizeof(arrays) / sizeof(arrays[0]); ++k)
    free(arrays[k]);
  free(ref->face_nodes);
  free(ref);
}

/* ===================================================================================
 * p-transfer
 * =================================================================================== */

void insdg_ref_interp_matrix(const insdg_ref *from, const insdg_ref *to, double *P)
{
  insdg_ref_basis(from->N, to->Np, to->r, to->s, P, NULL, NULL);
  right_divisor d = right_divisor_create(from->V, from->Np);
  right_divide(&d, to->Np, P);
  right_divisor_destroy(&d);
}
