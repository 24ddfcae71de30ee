/* test_ref.c -- unit tests of the reference triangle (src/ref_tri.c), N = 1..INSDG_NMAX.
 *
 * Every check measures one operator against an independent statement of what it must
 * do: derivatives and mass matrix on monomials with closed-form integrals, cubature
 * rules on monomials, LIFT against face integrals done here with a separately computed
 * Gauss-Legendre rule (Newton on the Legendre recurrence), the cubature projections
 * against their exact-arithmetic identities, and p-transfer on random polynomials.
 * Each check returns the worst normalised error over its cases; the runner prints it
 * per N next to the tolerance and the program exits 1 if any exceeds it. The group
 * "negative" feeds deliberately broken operators to the same checks and fails if a
 * check does NOT notice, so the checks are known to have teeth.
 *
 * Usage: test_ref [group ...]   groups: deriv mass cubature lift faces projection
 *                               interp negative (default: all)
 */
#include "ref_tri.h"

#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static insdg_ref *g_refs[INSDG_NMAX + 1]; /* g_refs[N], built once in main */

/* ---- small helpers ------------------------------------------------------------------ */

static double *dalloc(size_t n)
{
  double *p = calloc(n ? n : 1, sizeof(double));
  if (!p) {
    fprintf(stderr, "test_ref: out of memory\n");
    exit(1);
  }
  return p;
}

static double max_abs(const double *x, size_t n)
{
  double m = 0.0;
  for (size_t i = 0; i < n; ++i)
    m = fmax(m, fabs(x[i]));
  return m;
}

static double max_abs_diff(const double *x, const double *y, size_t n)
{
  double m = 0.0;
  for (size_t i = 0; i < n; ++i)
    m = fmax(m, fabs(x[i] - y[i]));
  return m;
}

/* C[m x n] = A[m x k] B[k x n], row-major. */
static void matmul(int m, int n, int k, const double *A, const double *B, double *C)
{
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double sum = 0.0;
      for (int l = 0; l < k; ++l)
        sum += A[(size_t)i * k + l] * B[(size_t)l * n + j];
      C[(size_t)i * n + j] = sum;
    }
}

/* Deterministic uniform numbers in [-1,1] (xorshift64). */
static double random_uniform(void)
{
  static unsigned long long state = 0x9E3779B97F4A7C15ull;
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return 2.0 * (double)(state >> 11) / 9007199254740992.0 - 1.0;
}

/* r^a s^b at a point. */
static double monomial(int a, int b, double r, double s) { return pow(r, a) * pow(s, b); }

/* Exact integral of r^a s^b over the reference triangle: integrating r first,
   int_{-1}^{-s} r^a dr = (-1)^{a+1} (s^{a+1} - 1)/(a+1), then
   int_{-1}^{1} s^k ds = 2/(k+1) for even k, 0 for odd k. Two terms, no cancellation. */
static double line_moment(int k) { return (k % 2 == 0) ? 2.0 / (k + 1) : 0.0; }

static double triangle_moment(int a, int b)
{
  double sign = (a % 2 == 0) ? -1.0 : 1.0; /* (-1)^{a+1} */
  return sign / (a + 1) * (line_moment(a + b + 1) - line_moment(b));
}

/* The point of face f at parameter t, written out here independently of ref_tri.c:
   face 0 = v0->v1 (s = -1), face 1 = v1->v2 (r + s = 0), face 2 = v2->v0 (r = -1). */
static void face_point(int f, double t, double *r, double *s)
{
  static const double vr[3] = {-1.0, 1.0, -1.0}, vs[3] = {-1.0, -1.0, 1.0};
  double lam = 0.5 * (1.0 + t);
  *r = (1.0 - lam) * vr[f] + lam * vr[(f + 1) % 3];
  *s = (1.0 - lam) * vs[f] + lam * vs[(f + 1) % 3];
}

/* Gauss-Legendre rule with n points by Newton iteration on the Legendre recurrence
   (a different algorithm from the Golub-Welsch rules inside ref_tri.c). */
static void gauss_legendre_newton(int n, double *x, double *w)
{
  const double pi = 3.14159265358979323846;
  for (int k = 0; k < n; ++k) {
    double z = cos(pi * (k + 0.75) / (n + 0.5)), dp = 0.0;
    for (int it = 0; it < 100; ++it) {
      double p0 = 1.0, p1 = z;
      for (int j = 2; j <= n; ++j) {
        double p2 = ((2.0 * j - 1.0) * z * p1 - (j - 1.0) * p0) / j;
        p0 = p1;
        p1 = p2;
      }
      dp = n * (z * p1 - p0) / (z * z - 1.0);
      double dz = p1 / dp;
      z -= dz;
      if (fabs(dz) < 1e-16) break;
    }
    x[n - 1 - k] = z;
    w[n - 1 - k] = 2.0 / ((1.0 - z * z) * dp * dp);
  }
}

/* ---- 1. derivatives ----------------------------------------------------------------- */

/* max over monomials r^a s^b, a+b <= N, of max|D f - f'| / max(1, max|f'|), r and s. */
static double check_derivatives(const insdg_ref *ref)
{
  int Np = ref->Np, N = ref->N;
  double *f = dalloc(Np), *fr = dalloc(Np), *fs = dalloc(Np), *g = dalloc(Np);
  double worst = 0.0;
  for (int a = 0; a <= N; ++a)
    for (int b = 0; a + b <= N; ++b) {
      for (int i = 0; i < Np; ++i) {
        double r = ref->r[i], s = ref->s[i];
        f[i] = monomial(a, b, r, s);
        fr[i] = a > 0 ? a * monomial(a - 1, b, r, s) : 0.0;
        fs[i] = b > 0 ? b * monomial(a, b - 1, r, s) : 0.0;
      }
      matmul(Np, 1, Np, ref->Dr, f, g);
      worst = fmax(worst, max_abs_diff(g, fr, Np) / fmax(1.0, max_abs(fr, Np)));
      matmul(Np, 1, Np, ref->Ds, f, g);
      worst = fmax(worst, max_abs_diff(g, fs, Np) / fmax(1.0, max_abs(fs, Np)));
    }
  free(f);
  free(fr);
  free(fs);
  free(g);
  return worst;
}

/* ---- 2. mass matrix ----------------------------------------------------------------- */

/* max over monomial pairs f, g of degree <= N of |f^T M g - int f g| / max(1,|int f g|). */
static double check_mass(const insdg_ref *ref)
{
  int Np = ref->Np, N = ref->N;
  int *ea = malloc(sizeof(int) * Np), *eb = malloc(sizeof(int) * Np);
  double *F = dalloc((size_t)Np * Np), *MF = dalloc((size_t)Np * Np);
  int k = 0;
  for (int a = 0; a <= N; ++a)
    for (int b = 0; a + b <= N; ++b, ++k) {
      ea[k] = a;
      eb[k] = b;
      for (int i = 0; i < Np; ++i)
        F[i * Np + k] = monomial(a, b, ref->r[i], ref->s[i]);
    }
  matmul(Np, Np, Np, ref->M, F, MF); /* column k: M f_k */
  double worst = 0.0;
  for (int p = 0; p < Np; ++p)
    for (int q = 0; q < Np; ++q) {
      double val = 0.0;
      for (int i = 0; i < Np; ++i)
        val += F[i * Np + p] * MF[i * Np + q];
      double exact = triangle_moment(ea[p] + ea[q], eb[p] + eb[q]);
      worst = fmax(worst, fabs(val - exact) / fmax(1.0, fabs(exact)));
    }
  free(ea);
  free(eb);
  free(F);
  free(MF);
  return worst;
}

/* ---- 3. cubature -------------------------------------------------------------------- */

/* Volume rule: every monomial of degree <= cub_degree, relative to max(1,|exact|);
   degree >= 3N, Ncub consistent, all points inside the triangle. */
static double check_volume_cubature(const insdg_ref *ref)
{
  if (ref->cub_degree < 3 * ref->N) {
    printf("    cub_degree %d < 3N = %d\n", ref->cub_degree, 3 * ref->N);
    return INFINITY;
  }
  for (int i = 0; i < ref->Ncub; ++i) {
    double r = ref->rc[i], s = ref->sc[i];
    if (r < -1.0 || s < -1.0 || r + s > 0.0) {
      printf("    cubature point %d = (%g,%g) outside the triangle\n", i, r, s);
      return INFINITY;
    }
  }
  double worst = 0.0;
  for (int a = 0; a <= ref->cub_degree; ++a)
    for (int b = 0; a + b <= ref->cub_degree; ++b) {
      double sum = 0.0;
      for (int i = 0; i < ref->Ncub; ++i)
        sum += ref->wc[i] * monomial(a, b, ref->rc[i], ref->sc[i]);
      double exact = triangle_moment(a, b);
      worst = fmax(worst, fabs(sum - exact) / fmax(1.0, fabs(exact)));
    }
  return worst;
}

/* Face rule: t^k for k <= face_cub_degree >= 3N; points increasing inside (-1,1). */
static double check_face_cubature(const insdg_ref *ref)
{
  if (ref->face_cub_degree < 3 * ref->N) {
    printf("    face_cub_degree %d < 3N = %d\n", ref->face_cub_degree, 3 * ref->N);
    return INFINITY;
  }
  for (int q = 0; q < ref->Nfcub; ++q)
    if (fabs(ref->tfc[q]) >= 1.0 || (q > 0 && ref->tfc[q] <= ref->tfc[q - 1])) {
      printf("    face cubature points not increasing inside (-1,1) at %d\n", q);
      return INFINITY;
    }
  double worst = 0.0;
  for (int k = 0; k <= ref->face_cub_degree; ++k) {
    double sum = 0.0;
    for (int q = 0; q < ref->Nfcub; ++q)
      sum += ref->wfc[q] * pow(ref->tfc[q], k);
    worst = fmax(worst, fabs(sum - line_moment(k)) / fmax(1.0, line_moment(k)));
  }
  return worst;
}

/* The basis is orthonormal: sum_c w_c psi_m psi_n = delta_mn (degree 2N <= 3N, so the
   cubature is exact and this checks basis and rule together). */
static double check_basis_orthonormal(const insdg_ref *ref)
{
  int Np = ref->Np, Nc = ref->Ncub;
  double *P = dalloc((size_t)Nc * Np);
  insdg_ref_basis(ref->N, Nc, ref->rc, ref->sc, P, NULL, NULL);
  double worst = 0.0;
  for (int m = 0; m < Np; ++m)
    for (int n = 0; n < Np; ++n) {
      double sum = 0.0;
      for (int c = 0; c < Nc; ++c)
        sum += ref->wc[c] * P[c * Np + m] * P[c * Np + n];
      worst = fmax(worst, fabs(sum - (m == n ? 1.0 : 0.0)));
    }
  free(P);
  return worst;
}

/* ---- 4. LIFT ------------------------------------------------------------------------ */

/* E[i][f*Nfp+j] = int_face_f l_i l_{face_nodes[f][j]} dt by an independent Gauss rule;
   l_i at a point from the Vandermonde: the vector l(x) solves V^T l = psi(x). Returns
   max|LIFT - (V V^T) E| / max|LIFT|. */
static double check_lift(const insdg_ref *ref)
{
  int Np = ref->Np, Nfp = ref->Nfp, nq = ref->N + 2, ncols = 3 * Nfp;
  double *xq = dalloc(nq), *wq = dalloc(nq), *rq = dalloc(nq), *sq = dalloc(nq);
  double *psi = dalloc((size_t)nq * Np), *L = dalloc((size_t)Np * nq);
  double *VT = dalloc((size_t)Np * Np), *E = dalloc((size_t)Np * ncols);
  double *invM = dalloc((size_t)Np * Np), *lift = dalloc((size_t)Np * ncols);
  lapack_int *ipiv = malloc(sizeof(lapack_int) * Np);
  gauss_legendre_newton(nq, xq, wq);
  for (int f = 0; f < 3; ++f) {
    for (int q = 0; q < nq; ++q)
      face_point(f, xq[q], &rq[q], &sq[q]);
    insdg_ref_basis(ref->N, nq, rq, sq, psi, NULL, NULL);
    for (int i = 0; i < Np; ++i)
      for (int q = 0; q < nq; ++q)
        L[i * nq + q] = psi[q * Np + i];
    for (int i = 0; i < Np; ++i)
      for (int m = 0; m < Np; ++m)
        VT[i * Np + m] = ref->V[m * Np + i];
    if (LAPACKE_dgesv(LAPACK_ROW_MAJOR, Np, nq, VT, Np, ipiv, L, nq) != 0) {
      printf("    dgesv failed\n");
      return INFINITY;
    }
    for (int i = 0; i < Np; ++i)
      for (int j = 0; j < Nfp; ++j) {
        int node = ref->face_nodes[f * Nfp + j];
        double sum = 0.0;
        for (int q = 0; q < nq; ++q)
          sum += wq[q] * L[i * nq + q] * L[node * nq + q];
        E[i * ncols + f * Nfp + j] = sum;
      }
  }
  for (int i = 0; i < Np; ++i)
    for (int j = 0; j < Np; ++j) {
      double sum = 0.0;
      for (int k = 0; k < Np; ++k)
        sum += ref->V[i * Np + k] * ref->V[j * Np + k];
      invM[i * Np + j] = sum;
    }
  matmul(Np, ncols, Np, invM, E, lift);
  double err = max_abs_diff(lift, ref->LIFT, (size_t)Np * ncols) /
               max_abs(ref->LIFT, (size_t)Np * ncols);
  /* E's row i is zero on the faces node i is not on (insdg_ref_node_on_face, which the SIPDG
     kernels' product relies on: ops_cpu.c sets those entries of M LIFT to 0), and not on the
     others: off-face entries below 1e-13 of the largest, each on-face row's largest above 1e-3 */
  const double emax = max_abs(E, (size_t)Np * ncols);
  for (int i = 0; i < Np; ++i)
    for (int f = 0; f < 3; ++f) {
      const double rmax = max_abs(E + (size_t)i * ncols + f * Nfp, (size_t)Nfp) / emax;
      if (insdg_ref_node_on_face(ref->N, i, f) ? rmax < 1e-3 : rmax > 1e-13) {
        printf("    node %d, face %d: max |E| / max |E| = %.3e against node_on_face %d\n", i, f, rmax,
               insdg_ref_node_on_face(ref->N, i, f));
        err = INFINITY;
      }
    }
  free(xq);
  free(wq);
  free(rq);
  free(sq);
  free(psi);
  free(L);
  free(VT);
  free(E);
  free(invM);
  free(lift);
  free(ipiv);
  return err;
}

/* ---- 5. face nodes ------------------------------------------------------------------ */

static double face_equation(int f, double r, double s)
{
  return f == 0 ? s + 1.0 : (f == 1 ? r + s : r + 1.0);
}

/* Parameter t of a point on face f, from the vertices (independent of ref_tri.c). */
static double face_t(int f, double r, double s) { return f == 0 ? r : (f == 1 ? s : -s); }

/* Nodes on their face (|face equation| <= 1e-10) and no other node on it; t strictly
   increasing from -1 (vertex f) to 1 (vertex f+1); t_j = -t_{Nfp-1-j}; same t on all
   faces. Returns the worst of: face-equation residual, endpoint, symmetry and
   cross-face differences; INFINITY on a structural failure. */
static double check_face_nodes(const insdg_ref *ref)
{
  int Nfp = ref->Nfp;
  double worst = 0.0;
  for (int f = 0; f < 3; ++f) {
    int on_face = 0;
    for (int i = 0; i < ref->Np; ++i)
      on_face += fabs(face_equation(f, ref->r[i], ref->s[i])) < 1e-10;
    if (on_face != Nfp) {
      printf("    face %d: %d nodes satisfy the face equation, expected %d\n", f, on_face,
             Nfp);
      return INFINITY;
    }
    const int *fn = ref->face_nodes + f * Nfp;
    for (int j = 0; j < Nfp; ++j) {
      double res = fabs(face_equation(f, ref->r[fn[j]], ref->s[fn[j]]));
      if (res > 1e-10) {
        printf("    face %d node %d (volume %d) off the face by %.3e\n", f, j, fn[j], res);
        return INFINITY;
      }
      worst = fmax(worst, res);
      double t = face_t(f, ref->r[fn[j]], ref->s[fn[j]]);
      double t_mirror = face_t(f, ref->r[fn[Nfp - 1 - j]], ref->s[fn[Nfp - 1 - j]]);
      double t_face0 = face_t(0, ref->r[ref->face_nodes[j]], ref->s[ref->face_nodes[j]]);
      if (j > 0 && t <= face_t(f, ref->r[fn[j - 1]], ref->s[fn[j - 1]])) {
        printf("    face %d: t not increasing at node %d\n", f, j);
        return INFINITY;
      }
      worst = fmax(worst, fabs(t + t_mirror));
      worst = fmax(worst, fabs(t - t_face0));
    }
    worst = fmax(worst, fabs(face_t(f, ref->r[fn[0]], ref->s[fn[0]]) + 1.0));
    worst = fmax(worst, fabs(face_t(f, ref->r[fn[Nfp - 1]], ref->s[fn[Nfp - 1]]) - 1.0));
  }
  return worst;
}

/* ---- 6. cubature projections and lift ----------------------------------------------- */

/* cub_P{r,s} * cub_interp == invM * D{r,s}^T * M, relative to max|rhs|. */
static double check_cub_projection(const insdg_ref *ref)
{
  int Np = ref->Np, Nc = ref->Ncub;
  size_t nn = (size_t)Np * Np;
  double *lhs = dalloc(nn), *DtM = dalloc(nn), *rhs = dalloc(nn), *Dt = dalloc(nn);
  double worst = 0.0;
  for (int dir = 0; dir < 2; ++dir) {
    const double *P = dir ? ref->cub_Ps : ref->cub_Pr, *D = dir ? ref->Ds : ref->Dr;
    matmul(Np, Np, Nc, P, ref->cub_interp, lhs);
    for (int i = 0; i < Np; ++i)
      for (int j = 0; j < Np; ++j)
        Dt[i * Np + j] = D[j * Np + i];
    matmul(Np, Np, Np, Dt, ref->M, DtM);
    matmul(Np, Np, Np, ref->invM, DtM, rhs);
    worst = fmax(worst, max_abs_diff(lhs, rhs, nn) / max_abs(rhs, nn));
  }
  free(lhs);
  free(DtM);
  free(rhs);
  free(Dt);
  return worst;
}

/* For random nodal u: cub_LIFT (face_interp u|_f) == LIFT u|_f, relative to max|LIFT u|. */
static double check_cub_lift(const insdg_ref *ref)
{
  int Np = ref->Np, Nfp = ref->Nfp, Nq = ref->Nfcub;
  double *u = dalloc(Np), *uf = dalloc(3 * Nfp), *ufc = dalloc(3 * Nq);
  double *a = dalloc(Np), *b = dalloc(Np);
  double worst = 0.0;
  for (int trial = 0; trial < 3; ++trial) {
    for (int i = 0; i < Np; ++i)
      u[i] = random_uniform();
    for (int k = 0; k < 3 * Nfp; ++k)
      uf[k] = u[ref->face_nodes[k]];
    for (int f = 0; f < 3; ++f)
      matmul(Nq, 1, Nfp, ref->face_interp, uf + f * Nfp, ufc + f * Nq);
    matmul(Np, 1, 3 * Nfp, ref->LIFT, uf, a);
    matmul(Np, 1, 3 * Nq, ref->cub_LIFT, ufc, b);
    worst = fmax(worst, max_abs_diff(a, b, Np) / max_abs(a, Np));
  }
  free(u);
  free(uf);
  free(ufc);
  free(a);
  free(b);
  return worst;
}

/* ---- 7. p-transfer ------------------------------------------------------------------ */

/* From degree N to every degree N' in [N-3, N+3] within 1..INSDG_NMAX: P reproduces a
   random polynomial of degree N (exact interpolation upward, exact evaluation
   downward), relative to max|u|; for N' = N, P must be the identity. */
static double check_interp(const insdg_ref *from)
{
  double worst = 0.0;
  int N = from->N;
  for (int to_N = N - 3; to_N <= N + 3; ++to_N) {
    if (to_N < 1 || to_N > INSDG_NMAX) continue;
    const insdg_ref *to = g_refs[to_N];
    double *P = dalloc((size_t)to->Np * from->Np), *u = dalloc(from->Np);
    double *v = dalloc(to->Np), *Pu = dalloc(to->Np);
    insdg_ref_interp_matrix(from, to, P);
    if (to_N == N) {
      for (int i = 0; i < to->Np; ++i)
        P[i * to->Np + i] -= 1.0;
      worst = fmax(worst, max_abs(P, (size_t)to->Np * to->Np));
    } else {
      for (int a = 0; a <= N; ++a)
        for (int b = 0; a + b <= N; ++b) {
          double c = random_uniform();
          for (int i = 0; i < from->Np; ++i)
            u[i] += c * monomial(a, b, from->r[i], from->s[i]);
          for (int i = 0; i < to->Np; ++i)
            v[i] += c * monomial(a, b, to->r[i], to->s[i]);
        }
      matmul(to->Np, 1, from->Np, P, u, Pu);
      worst = fmax(worst, max_abs_diff(Pu, v, to->Np) / max_abs(v, to->Np));
    }
    free(P);
    free(u);
    free(v);
    free(Pu);
  }
  return worst;
}

/* ---- runner ------------------------------------------------------------------------- */

typedef double (*check_fn)(const insdg_ref *ref);

typedef struct {
  const char *group, *what;
  check_fn fn;
  double tol;
} check;

static const check g_checks[] = {
    {"deriv", "Dr, Ds on monomials of degree <= N", check_derivatives, 1e-12},
    {"mass", "f^T M g vs exact integral, deg f, g <= N", check_mass, 1e-12},
    {"cubature", "volume rule on monomials of degree <= cub_degree", check_volume_cubature,
     1e-12},
    {"cubature", "face rule on t^k, k <= face_cub_degree", check_face_cubature, 1e-12},
    {"cubature", "basis orthonormal under the volume rule", check_basis_orthonormal, 1e-12},
    {"lift", "LIFT vs M^{-1} E (independent Gauss rule)", check_lift, 1e-12},
    {"faces", "face nodes: on face, increasing t, symmetric", check_face_nodes, 1e-12},
    {"projection", "cub_P{r,s} I == invM D^T M", check_cub_projection, 1e-11},
    {"projection", "cub_LIFT (face_interp u_f) == LIFT u_f", check_cub_lift, 1e-11},
    {"interp", "interp_matrix N -> N+-k reproduces degree-N data", check_interp, 1e-12},
};

/* Runs one check for N = 1..NMAX, prints the worst error per N; returns failures. */
static int run_check(const check *c)
{
  int failures = 0;
  printf("[%s] %s (tol %.0e)\n", c->group, c->what, c->tol);
  for (int N = 1; N <= INSDG_NMAX; ++N) {
    double err = c->fn(g_refs[N]);
    int ok = err <= c->tol;
    printf("  N=%2d  worst %.3e  %s\n", N, err, ok ? "ok" : "FAIL");
    failures += !ok;
  }
  return failures;
}

/* ---- negative controls -------------------------------------------------------------- */

static double *copy_of(const double *x, size_t n)
{
  double *y = dalloc(n);
  memcpy(y, x, n * sizeof(double));
  return y;
}

/* A check applied to a broken copy must report more than its tolerance. */
static int expect_detected(const char *what, check_fn fn, const insdg_ref *broken,
                           double tol)
{
  double err = fn(broken);
  int detected = !(err <= tol);
  printf("  N=%2d  %-46s measured %.3e  %s\n", broken->N, what, err,
         detected ? "detected" : "NOT DETECTED");
  return !detected;
}

static int run_negative_controls(int N)
{
  const insdg_ref *ref = g_refs[N];
  int Np = ref->Np, Nfp = ref->Nfp, failures = 0;
  size_t nn = (size_t)Np * Np;
  insdg_ref b = *ref;

  b.Dr = copy_of(ref->Dr, nn); /* Dr transposed */
  for (int i = 0; i < Np; ++i)
    for (int j = 0; j < Np; ++j)
      b.Dr[i * Np + j] = ref->Dr[j * Np + i];
  failures += expect_detected("Dr transposed", check_derivatives, &b, 1e-12);
  failures +=
      expect_detected("Dr transposed (projection)", check_cub_projection, &b, 1e-11);
  free(b.Dr);
  b = *ref;

  b.M = copy_of(ref->M, nn); /* one mass entry off by 1e-9 */
  b.M[Np + 1] += 1e-9;
  failures += expect_detected("M[1][1] + 1e-9", check_mass, &b, 1e-12);
  free(b.M);
  b = *ref;

  b.wc = copy_of(ref->wc, ref->Ncub); /* one cubature weight off by 1e-10 */
  b.wc[0] += 1e-10;
  failures += expect_detected("wc[0] + 1e-10", check_volume_cubature, &b, 1e-12);
  free(b.wc);
  b = *ref;

  size_t nl = (size_t)Np * 3 * Nfp; /* LIFT with faces 1 and 2 swapped */
  b.LIFT = copy_of(ref->LIFT, nl);
  for (int n = 0; n < Np; ++n)
    for (int j = 0; j < Nfp; ++j) {
      b.LIFT[n * 3 * Nfp + Nfp + j] = ref->LIFT[n * 3 * Nfp + 2 * Nfp + j];
      b.LIFT[n * 3 * Nfp + 2 * Nfp + j] = ref->LIFT[n * 3 * Nfp + Nfp + j];
    }
  failures += expect_detected("LIFT faces 1, 2 swapped", check_lift, &b, 1e-12);
  failures +=
      expect_detected("LIFT faces 1, 2 swapped (cub_LIFT)", check_cub_lift, &b, 1e-11);
  free(b.LIFT);
  b = *ref;

  int *fn = malloc(sizeof(int) * 3 * Nfp); /* face 2 in decreasing t */
  memcpy(fn, ref->face_nodes, sizeof(int) * 3 * Nfp);
  for (int j = 0; j < Nfp; ++j)
    fn[2 * Nfp + j] = ref->face_nodes[2 * Nfp + Nfp - 1 - j];
  b.face_nodes = fn;
  failures += expect_detected("face 2 nodes reversed", check_face_nodes, &b, 1e-12);
  free(fn);
  b = *ref;

  b.cub_Pr = ref->cub_Ps; /* cub_Pr replaced by cub_Ps */
  failures += expect_detected("cub_Pr := cub_Ps", check_cub_projection, &b, 1e-11);
  return failures;
}

static int group_selected(const char *group, int argc, char **argv)
{
  if (argc < 2) return 1;
  for (int k = 1; k < argc; ++k)
    if (strcmp(argv[k], group) == 0) return 1;
  return 0;
}

int main(int argc, char **argv)
{
  static const char *known[] = {"deriv", "mass",       "cubature", "lift",
                                "faces", "projection", "interp",   "negative"};
  for (int k = 1; k < argc; ++k) {
    int found = 0;
    for (size_t g = 0; g < sizeof(known) / sizeof(known[0]); ++g)
      found |= !strcmp(argv[k], known[g]);
    if (!found) {
      fprintf(stderr, "test_ref: unknown group '%s'\n", argv[k]);
      return 2;
    }
  }
  for (int N = 1; N <= INSDG_NMAX; ++N)
    g_refs[N] = insdg_ref_create(N);

  int failures = 0;
  for (size_t c = 0; c < sizeof(g_checks) / sizeof(g_checks[0]); ++c)
    if (group_selected(g_checks[c].group, argc, argv)) failures += run_check(&g_checks[c]);
  if (group_selected("negative", argc, argv)) {
    printf("[negative] deliberately broken operators must be detected\n");
    failures += run_negative_controls(3) + run_negative_controls(INSDG_NMAX);
  }

  for (int N = 1; N <= INSDG_NMAX; ++N)
    insdg_ref_destroy(g_refs[N]);
  if (failures) {
    printf("test_ref: %d FAILED\n", failures);
    return 1;
  }
  printf("test_ref: all passed\n");
  return 0;
}
