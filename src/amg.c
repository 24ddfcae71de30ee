/* amg.c -- aggregation AMG: setup of the hierarchy, the K/V cycle, and flexible PCG
 * (see amg.h for the method, docs/amg.md for the reasons; paper §3 "Linear Solvers").
 *
 * Levels: level 0 holds the borrowed fine matrix; level l < last holds P (n_l x n_{l+1}),
 * R = P^T, and the work vectors of its smoother and of its coarse correction (these live
 * on level l although they have n_{l+1} entries, because the K-cycle of level l keeps
 * them alive while level l+1 cycles twice). The last level holds the dense coarse solver.
 *
 * Invariants: every level's rows are sorted CSR; dinv[i] = 1/a_ii where a_ii > 0, else 0
 * (such a row is left alone by the smoother); the constants are in the null space of A_l
 * whenever they are in that of A_0, because P 1 = 1.
 */
#include "amg.h"

#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

#define MAX_LEVELS 40
#define LANCZOS_STEPS 15
#define CHEB_UPPER 1.1        /* Chebyshev interval [cheb_lower rho, CHEB_UPPER rho] */
#define KCYCLE_SKIP 0.25      /* Notay: skip the 2nd FCG step if ||r~|| <= 0.25 ||r_c|| */
#define MIN_REDUCTION 0.9     /* stop coarsening when n_c > 0.9 n */
#define SINGULAR_PIVOT 1e-10  /* a Cholesky pivot below 1e-10 max a_ii means singular */
#define MAX_DENSE 8000        /* largest coarsest level we factor densely (512 MB); beyond, coarsening stalled */

typedef struct {
  const insdg_csr *A;   /* borrowed on level 0, == A_owned below */
  insdg_csr *A_owned;
  insdg_csr *P, *R;     /* to and from level l+1; NULL on the last level */
  int n;
  double *dinv;         /* [n] */
  double rho;           /* estimate of the largest eigenvalue of D^{-1} A */
  double *res, *cheb_r, *cheb_d, *cheb_Ad;   /* [n] */
  double *rc, *ec, *c1, *v1, *rt, *c2, *v2;  /* [n_{l+1}] coarse correction work */
} amg_level;

struct insdg_amg {
  insdg_amg_opts opts;
  int nlevels;
  amg_level level[MAX_LEVELS];
  /* the coarsest level's dense solver */
  int singular;        /* 0: dense holds the Cholesky factor; 1: eigenvectors */
  double *dense;       /* [nc][nc] column-major */
  double *eig_inv;     /* [nc] 1/w_k, 0 for the null space (singular only) */
  double *coarse_tmp;  /* [nc] */
};

static double *dvec(size_t n) { return insdg_calloc(n > 0 ? n : 1, sizeof(double)); }

static double dot(int n, const double *a, const double *b)
{
  double s = 0.0;
  for (int i = 0; i < n; ++i) s += a[i] * b[i];
  return s;
}

/* ---- strength of connection and aggregation -------------------------------------- */

/* scaled coupling of i and j as the strength measure sees it */
static double coupling(double aij, double aii, double ajj, int classical)
{
  const double scale = sqrt(fabs(aii * ajj));
  if (scale == 0.0) return 0.0;
  return (classical ? fabs(aij) : -aij) / scale;
}

/* The strength graph without the diagonal; val = the scaled coupling.
   classical: |a_ij| >= theta sqrt(|a_ii a_jj|);
   default:   s_ij >= theta max_k s_ik, s_ij = -a_ij / sqrt(|a_ii a_jj|) > 0, so positive
              couplings (inside a DG element) are weak and the threshold follows the row. */
static insdg_csr *strength_graph(const insdg_csr *A, const double *diag, double theta, int classical)
{
  insdg_csr *S = insdg_csr_create(A->nrows, A->ncols, A->nnz);
  int k = 0;
  for (int i = 0; i < A->nrows; ++i) {
    double threshold = theta;
    if (!classical) {
      double row_max = 0.0;
      for (int q = A->row_ptr[i]; q < A->row_ptr[i + 1]; ++q)
        if (A->col[q] != i) row_max = fmax(row_max, coupling(A->val[q], diag[i], diag[A->col[q]], 0));
      threshold = theta * row_max;
    }
    for (int q = A->row_ptr[i]; q < A->row_ptr[i + 1]; ++q) {
      const int j = A->col[q];
      const double s = coupling(A->val[q], diag[i], diag[j], classical);
      if (j != i && s > 0.0 && s >= threshold) S->col[k] = j, S->val[k] = s, ++k;
    }
    S->row_ptr[i + 1] = k;
  }
  S->nnz = k;
  return S;
}

/* S union S^T, so that "strong" is a symmetric relation whatever the round-off in A;
   the strength of a pair is the larger of its two directions. */
static insdg_csr *symmetrise(const insdg_csr *S)
{
  insdg_csr *T = insdg_csr_transpose(S);
  insdg_csr *U = insdg_csr_create(S->nrows, S->ncols, S->nnz + T->nnz);
  int k = 0;
  for (int i = 0; i < S->nrows; ++i) {
    int a = S->row_ptr[i], b = T->row_ptr[i];
    const int ae = S->row_ptr[i + 1], be = T->row_ptr[i + 1];
    while (a < ae || b < be) {
      if (b >= be || (a < ae && S->col[a] < T->col[b])) {
        U->col[k] = S->col[a], U->val[k++] = S->val[a++];
      } else if (a >= ae || T->col[b] < S->col[a]) {
        U->col[k] = T->col[b], U->val[k++] = T->val[b++];
      } else {
        U->col[k] = S->col[a], U->val[k++] = fmax(S->val[a], T->val[b]), ++a, ++b;
      }
    }
    U->row_ptr[i + 1] = k;
  }
  U->nnz = k;
  insdg_csr_destroy(T);
  return U;
}

/* Roots: a distance-2 maximal independent set, greedy in index order. Returns the
   number of roots; agg[i] = aggregate of i after pass 1 (roots and their strong
   neighbours), -1 for the rest. */
static int mis2_roots(const insdg_csr *S, int *agg)
{
  const int n = S->nrows;
  char *excluded = insdg_calloc((size_t)(n > 0 ? n : 1), 1);
  int nroots = 0;
  for (int i = 0; i < n; ++i) agg[i] = -1;
  for (int i = 0; i < n; ++i) {
    if (excluded[i]) continue;
    agg[i] = nroots;
    for (int q = S->row_ptr[i]; q < S->row_ptr[i + 1]; ++q) {
      const int j = S->col[q];
      excluded[j] = 1;
      agg[j] = nroots;   /* j is not within distance 2 of an earlier root, so it is free */
      for (int p = S->row_ptr[j]; p < S->row_ptr[j + 1]; ++p) excluded[S->col[p]] = 1;
    }
    excluded[i] = 1;
    ++nroots;
  }
  free(excluded);
  return nroots;
}

/* Pass 2: every node left joins the aggregate of its strongest pass-1 neighbour (one
   exists: a node left out is at distance exactly 2 from a root). */
static void join_neighbours(const insdg_csr *S, int *agg)
{
  const int n = S->nrows;
  int *first = insdg_malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
  memcpy(first, agg, sizeof(int) * (size_t)n);
  for (int i = 0; i < n; ++i) {
    if (first[i] >= 0) continue;
    double best = -1.0;
    for (int q = S->row_ptr[i]; q < S->row_ptr[i + 1]; ++q)
      if (first[S->col[q]] >= 0 && S->val[q] > best) best = S->val[q], agg[i] = first[S->col[q]];
    INSDG_CHECK(agg[i] >= 0);
  }
  free(first);
}

static insdg_amg_opts with_defaults(const insdg_amg_opts *opts);

/* Piecewise-constant prolongator of an aggregation with nagg aggregates. */
static insdg_csr *prolongator(int n, int nagg, const int *agg)
{
  insdg_csr *P = insdg_csr_create(n, nagg, n);
  for (int i = 0; i < n; ++i) P->row_ptr[i + 1] = i + 1, P->col[i] = agg[i], P->val[i] = 1.0;
  return P;
}

/* Aggregates of A; returns P (NULL when they would not reduce n by MIN_REDUCTION). */
static insdg_csr *aggregate(const insdg_csr *A, const double *diag, double theta, int classical)
{
  insdg_csr *S1 = strength_graph(A, diag, theta, classical);
  insdg_csr *S = symmetrise(S1);
  insdg_csr_destroy(S1);
  int *agg = insdg_malloc(sizeof(int) * (size_t)(A->nrows > 0 ? A->nrows : 1));
  const int nagg = mis2_roots(S, agg);
  join_neighbours(S, agg);
  insdg_csr_destroy(S);
  insdg_csr *P = NULL;
  if (nagg > 0 && nagg <= MIN_REDUCTION * A->nrows) P = prolongator(A->nrows, nagg, agg);
  free(agg);
  return P;
}

int insdg_amg_aggregates(const insdg_csr *A, const insdg_amg_opts *opts, int *agg)
{
  const insdg_amg_opts o = with_defaults(opts);
  double *diag = insdg_malloc(sizeof(double) * (size_t)(A->nrows > 0 ? A->nrows : 1));
  insdg_csr_diagonal(A, diag);
  insdg_csr *S1 = strength_graph(A, diag, o.theta, o.strength == INSDG_AMG_STRENGTH_CLASSICAL);
  insdg_csr *S = symmetrise(S1);
  insdg_csr_destroy(S1);
  const int nagg = mis2_roots(S, agg);
  join_neighbours(S, agg);
  insdg_csr_destroy(S);
  free(diag);
  return nagg;
}

/* ---- smoother ---------------------------------------------------------------------- */

/* Fixed pseudo-random start vector in [-1,1] (a 32-bit integer hash of the index). */
static double start_entry(int i)
{
  unsigned h = (unsigned)i * 2654435761u + 12345u;
  h ^= h >> 16, h *= 0x7feb352du, h ^= h >> 15, h *= 0x846ca68bu, h ^= h >> 16;
  return 2.0 * (h / 4294967296.0) - 1.0;
}

/* Largest eigenvalue of D^{-1} A = D^{-1/2} (D^{-1/2} A D^{-1/2}) D^{1/2}: the largest
   Ritz value of LANCZOS_STEPS Lanczos steps on the symmetric D^{-1/2} A D^{-1/2}. */
static double estimate_rho(const amg_level *L)
{
  const int n = L->n;
  double *v = dvec((size_t)n), *vprev = dvec((size_t)n), *w = dvec((size_t)n), *sd = dvec((size_t)n);
  double alpha[LANCZOS_STEPS], beta[LANCZOS_STEPS];
  for (int i = 0; i < n; ++i) sd[i] = sqrt(L->dinv[i]), v[i] = start_entry(i);
  double norm = sqrt(dot(n, v, v));
  for (int i = 0; i < n; ++i) v[i] /= norm;
  int steps = 0;
  double beta_prev = 0.0;
  for (int j = 0; j < LANCZOS_STEPS && j < n; ++j) {
    for (int i = 0; i < n; ++i) vprev[i] = -beta_prev * vprev[i];   /* keep -beta v_{j-1} */
    for (int i = 0; i < n; ++i) L->cheb_d[i] = sd[i] * v[i];
    insdg_csr_matvec(L->A, L->cheb_d, w);
    for (int i = 0; i < n; ++i) w[i] = sd[i] * w[i] + vprev[i];
    alpha[j] = dot(n, w, v);
    for (int i = 0; i < n; ++i) w[i] -= alpha[j] * v[i];
    beta[j] = sqrt(dot(n, w, w));
    steps = j + 1;
    if (beta[j] <= 1e-12 * fabs(alpha[j])) break;   /* invariant subspace: exact */
    for (int i = 0; i < n; ++i) vprev[i] = v[i], v[i] = w[i] / beta[j];
    beta_prev = beta[j];
  }
  double rho = 0.0;
  if (steps > 0) {
    INSDG_CHECK(LAPACKE_dstev(LAPACK_COL_MAJOR, 'N', steps, alpha, beta, NULL, 1) == 0);
    rho = alpha[steps - 1];   /* ascending */
  }
  free(v), free(vprev), free(w), free(sd);
  return rho;
}

/* degree-k Chebyshev iteration for A x = b preconditioned by D^{-1} on
   [cheb_lower rho, CHEB_UPPER rho] (Saad, Alg. 12.1); x = 0 on entry if x_is_zero. */
static void chebyshev(const amg_level *L, int degree, double cheb_lower, const double *b, double *x, int x_is_zero)
{
  const int n = L->n;
  const double lo = cheb_lower * L->rho, hi = CHEB_UPPER * L->rho;
  const double theta = 0.5 * (hi + lo), delta = 0.5 * (hi - lo), sigma = theta / delta;
  double *r = L->cheb_r, *d = L->cheb_d, *Ad = L->cheb_Ad;
  if (L->rho <= 0.0) {   /* A = 0 on this level: nothing to smooth */
    if (x_is_zero) memset(x, 0, sizeof(double) * (size_t)n);
    return;
  }
  if (x_is_zero) memcpy(r, b, sizeof(double) * (size_t)n);
  else insdg_csr_residual(L->A, x, b, r);
  for (int i = 0; i < n; ++i) d[i] = L->dinv[i] * r[i] / theta;
  if (x_is_zero) memcpy(x, d, sizeof(double) * (size_t)n);
  else
    for (int i = 0; i < n; ++i) x[i] += d[i];
  double rho_old = 1.0 / sigma;
  for (int k = 1; k < degree; ++k) {
    insdg_csr_matvec(L->A, d, Ad);
    const double rho_new = 1.0 / (2.0 * sigma - rho_old);
    const double c_d = rho_new * rho_old, c_r = 2.0 * rho_new / delta;
    for (int i = 0; i < n; ++i) {
      r[i] -= Ad[i];
      d[i] = c_d * d[i] + c_r * L->dinv[i] * r[i];
      x[i] += d[i];
    }
    rho_old = rho_new;
  }
}

/* ---- coarse solve ------------------------------------------------------------------ */

static void coarse_setup(insdg_amg *amg, const insdg_csr *Ac)
{
  const int nc = Ac->nrows;
  INSDG_CHECK(nc <= MAX_DENSE);
  amg->dense = dvec((size_t)nc * nc);
  amg->coarse_tmp = dvec((size_t)nc);
  insdg_csr_to_dense(Ac, amg->dense);   /* symmetric: row- and column-major agree */
  double max_diag = 0.0;
  for (int i = 0; i < nc; ++i) max_diag = fmax(max_diag, amg->dense[(size_t)i * nc + i]);
  double *copy = dvec((size_t)nc * nc);
  memcpy(copy, amg->dense, sizeof(double) * (size_t)nc * nc);
  const lapack_int info = LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', nc, amg->dense, nc);
  double min_pivot = INFINITY;
  for (int i = 0; info == 0 && i < nc; ++i) min_pivot = fmin(min_pivot, pow(amg->dense[(size_t)i * nc + i], 2));
  amg->singular = info != 0 || min_pivot < SINGULAR_PIVOT * max_diag;
  if (amg->singular) {
    /* pseudo-inverse: A = V W V^T, drop eigenvalues below SINGULAR_PIVOT max |w| */
    memcpy(amg->dense, copy, sizeof(double) * (size_t)nc * nc);
    amg->eig_inv = dvec((size_t)nc);
    INSDG_CHECK(LAPACKE_dsyev(LAPACK_COL_MAJOR, 'V', 'L', nc, amg->dense, nc, amg->eig_inv) == 0);
    const double wmax = fmax(fabs(amg->eig_inv[0]), fabs(amg->eig_inv[nc - 1]));
    for (int k = 0; k < nc; ++k)
      amg->eig_inv[k] = fabs(amg->eig_inv[k]) > SINGULAR_PIVOT * wmax ? 1.0 / amg->eig_inv[k] : 0.0;
  }
  free(copy);
}

static void coarse_solve(const insdg_amg *amg, int nc, const double *r, double *z)
{
  if (!amg->singular) {
    memcpy(z, r, sizeof(double) * (size_t)nc);
    const lapack_int info = LAPACKE_dpotrs(LAPACK_COL_MAJOR, 'L', nc, 1, amg->dense, nc, z, nc);
    /* LAPACKE refuses a right-hand side with NaN or Inf (-7): a diverged outer solve. Pass
       the NaN on so that the Krylov method reports the failure, instead of aborting. */
    INSDG_CHECK(info == 0 || info == -7);
    if (info == -7)
      for (int i = 0; i < nc; ++i) z[i] = NAN;
    return;
  }
  const double *V = amg->dense;   /* column k = eigenvector k */
  double *c = amg->coarse_tmp;
  for (int k = 0; k < nc; ++k) c[k] = amg->eig_inv[k] * dot(nc, V + (size_t)k * nc, r);
  memset(z, 0, sizeof(double) * (size_t)nc);
  for (int k = 0; k < nc; ++k)
    for (int i = 0; i < nc; ++i) z[i] += c[k] * V[(size_t)k * nc + i];
}

/* ---- setup ------------------------------------------------------------------------- */

static void level_init(amg_level *L, const insdg_csr *A)
{
  INSDG_CHECK(A->nrows == A->ncols);
  L->A = A, L->n = A->nrows;
  const size_t n = (size_t)L->n;
  L->dinv = dvec(n);
  insdg_csr_diagonal(A, L->dinv);
  for (size_t i = 0; i < n; ++i) L->dinv[i] = L->dinv[i] > 0.0 ? 1.0 / L->dinv[i] : 0.0;
  L->res = dvec(n), L->cheb_r = dvec(n), L->cheb_d = dvec(n), L->cheb_Ad = dvec(n);
  L->rho = estimate_rho(L);
}

static void level_link(amg_level *L, insdg_csr *P, int nc)
{
  L->P = P, L->R = insdg_csr_transpose(P);
  const size_t m = (size_t)nc;
  L->rc = dvec(m), L->ec = dvec(m), L->c1 = dvec(m), L->v1 = dvec(m);
  L->rt = dvec(m), L->c2 = dvec(m), L->v2 = dvec(m);
}

static insdg_amg_opts with_defaults(const insdg_amg_opts *opts)
{
  insdg_amg_opts o = {0};
  if (opts) o = *opts;
  if (o.theta <= 0) o.theta = o.strength == INSDG_AMG_STRENGTH_CLASSICAL ? 0.08 : 0.7;
  if (o.coarse_size <= 0) o.coarse_size = 500;
  if (o.cheb_degree <= 0) o.cheb_degree = 2;
  if (o.kcycle_levels == 0) o.kcycle_levels = 2;
  if (o.kcycle_levels < 0) o.kcycle_levels = 0;
  if (o.cheb_lower <= 0 || o.cheb_lower >= CHEB_UPPER) o.cheb_lower = 0.1;
  return o;
}

insdg_amg *insdg_amg_setup(const insdg_csr *A, const insdg_amg_opts *opts)
{
  insdg_amg *amg = insdg_calloc(1, sizeof *amg);
  amg->opts = with_defaults(opts);
  level_init(&amg->level[0], A);
  amg->nlevels = 1;
  double *diag = NULL;
  while (amg->nlevels < MAX_LEVELS) {
    amg_level *L = &amg->level[amg->nlevels - 1];
    if (L->n <= amg->opts.coarse_size) break;
    diag = realloc(diag, sizeof(double) * (size_t)L->n);
    INSDG_CHECK(diag);
    insdg_csr_diagonal(L->A, diag);
    insdg_csr *P = aggregate(L->A, diag, amg->opts.theta, amg->opts.strength == INSDG_AMG_STRENGTH_CLASSICAL);
    if (!P) break;
    level_link(L, P, P->ncols);
    amg_level *C = &amg->level[amg->nlevels];
    C->A_owned = insdg_csr_galerkin(L->R, L->A, P);
    level_init(C, C->A_owned);
    amg->nlevels++;
  }
  free(diag);
  coarse_setup(amg, amg->level[amg->nlevels - 1].A);
  return amg;
}

/* ---- cycle ------------------------------------------------------------------------- */

static void cycle(const insdg_amg *amg, int l, const double *r, double *z);

/* z += P e */
static void prolong_add(const insdg_csr *P, const double *e, double *z)
{
  for (int i = 0; i < P->nrows; ++i)
    for (int k = P->row_ptr[i]; k < P->row_ptr[i + 1]; ++k) z[i] += P->val[k] * e[P->col[k]];
}

/* ec ~ A_c^{-1} rc by two flexible CG steps preconditioned by the cycle of level l+1
   (Notay & Vassilevski's K-cycle). */
static void kcycle_correction(const insdg_amg *amg, int l)
{
  const amg_level *L = &amg->level[l];
  const insdg_csr *Ac = amg->level[l + 1].A;
  const int nc = Ac->nrows;
  cycle(amg, l + 1, L->rc, L->c1);
  insdg_csr_matvec(Ac, L->c1, L->v1);
  const double rho1 = dot(nc, L->c1, L->v1), alpha1 = dot(nc, L->c1, L->rc);
  if (!(rho1 > 0.0)) {   /* rc = 0, or c1 in the null space: the plain cycle it is */
    memcpy(L->ec, L->c1, sizeof(double) * (size_t)nc);
    return;
  }
  const double a1 = alpha1 / rho1;
  for (int i = 0; i < nc; ++i) L->rt[i] = L->rc[i] - a1 * L->v1[i];
  if (dot(nc, L->rt, L->rt) <= KCYCLE_SKIP * KCYCLE_SKIP * dot(nc, L->rc, L->rc)) {
    for (int i = 0; i < nc; ++i) L->ec[i] = a1 * L->c1[i];
    return;
  }
  cycle(amg, l + 1, L->rt, L->c2);
  insdg_csr_matvec(Ac, L->c2, L->v2);
  const double gamma = dot(nc, L->c2, L->v1), beta = dot(nc, L->c2, L->v2), alpha2 = dot(nc, L->c2, L->rt);
  const double rho2 = beta - gamma * gamma / rho1;
  if (!(rho2 > 0.0)) {
    for (int i = 0; i < nc; ++i) L->ec[i] = a1 * L->c1[i];
    return;
  }
  const double w1 = a1 - gamma * alpha2 / (rho1 * rho2), w2 = alpha2 / rho2;
  for (int i = 0; i < nc; ++i) L->ec[i] = w1 * L->c1[i] + w2 * L->c2[i];
}

static void cycle(const insdg_amg *amg, int l, const double *r, double *z)
{
  const amg_level *L = &amg->level[l];
  if (l == amg->nlevels - 1) {
    coarse_solve(amg, L->n, r, z);
    return;
  }
  chebyshev(L, amg->opts.cheb_degree, amg->opts.cheb_lower, r, z, 1);
  insdg_csr_residual(L->A, z, r, L->res);
  insdg_csr_matvec(L->R, L->res, L->rc);
  /* a K-cycle pays off only if level l+1 is not solved exactly */
  if (l < amg->opts.kcycle_levels && l + 1 < amg->nlevels - 1) kcycle_correction(amg, l);
  else cycle(amg, l + 1, L->rc, L->ec);
  prolong_add(L->P, L->ec, z);
  chebyshev(L, amg->opts.cheb_degree, amg->opts.cheb_lower, r, z, 0);
}

void insdg_amg_apply(const insdg_amg *amg, const double *r, double *z) { cycle(amg, 0, r, z); }

void insdg_amg_precondition(void *amg, const double *r, double *z) { insdg_amg_apply(amg, r, z); }

/* ---- reporting and teardown -------------------------------------------------------- */

size_t insdg_amg_memory(const insdg_amg *amg)
{
  size_t bytes = sizeof *amg;
  for (int l = 0; l < amg->nlevels; ++l) {
    const amg_level *L = &amg->level[l];
    if (L->A_owned) bytes += insdg_csr_memory(L->A_owned);
    bytes += 5 * sizeof(double) * (size_t)L->n;   /* dinv and the smoother's vectors */
    if (L->P) bytes += insdg_csr_memory(L->P) + insdg_csr_memory(L->R) + 7 * sizeof(double) * (size_t)L->P->ncols;
  }
  const size_t nc = (size_t)amg->level[amg->nlevels - 1].n;
  bytes += sizeof(double) * (nc * nc + nc + (amg->eig_inv ? nc : 0));
  return bytes;
}

int insdg_amg_levels(const insdg_amg *amg) { return amg->nlevels; }

int insdg_amg_level_size(const insdg_amg *amg, int level)
{
  INSDG_CHECK(level >= 0 && level < amg->nlevels);
  return amg->level[level].n;
}

double insdg_amg_operator_complexity(const insdg_amg *amg)
{
  double nnz = 0.0;
  for (int l = 0; l < amg->nlevels; ++l) nnz += amg->level[l].A->nnz;
  return nnz / amg->level[0].A->nnz;
}

void insdg_amg_print(const insdg_amg *amg, FILE *f)
{
  double rows = 0.0;
  fprintf(f, "AMG: %d levels (%s strength, theta %.3g; Chebyshev degree %d on [%.2g, %.2g] rho; K-cycle on %d levels)\n",
          amg->nlevels, amg->opts.strength == INSDG_AMG_STRENGTH_CLASSICAL ? "classical" : "signed row-relative",
          amg->opts.theta, amg->opts.cheb_degree, amg->opts.cheb_lower, CHEB_UPPER, amg->opts.kcycle_levels);
  for (int l = 0; l < amg->nlevels; ++l) {
    const amg_level *L = &amg->level[l];
    rows += L->n;
    fprintf(f, "  level %2d: %9d rows %11d nnz %7.1f nnz/row  rho(D^-1 A) %.4f\n", l, L->n, L->A->nnz,
            L->n ? (double)L->A->nnz / L->n : 0.0, L->rho);
  }
  fprintf(f, "  operator complexity %.3f, grid complexity %.3f, coarse solve: %s, memory %.2f MB\n",
          insdg_amg_operator_complexity(amg), rows / amg->level[0].n,
          amg->singular ? "pseudo-inverse (singular)" : "Cholesky", insdg_amg_memory(amg) / 1e6);
}

void insdg_amg_destroy(insdg_amg *amg)
{
  if (!amg) return;
  for (int l = 0; l < amg->nlevels; ++l) {
    amg_level *L = &amg->level[l];
    insdg_csr_destroy(L->A_owned), insdg_csr_destroy(L->P), insdg_csr_destroy(L->R);
    free(L->dinv), free(L->res), free(L->cheb_r), free(L->cheb_d), free(L->cheb_Ad);
    free(L->rc), free(L->ec), free(L->c1), free(L->v1), free(L->rt), free(L->c2), free(L->v2);
  }
  free(amg->dense), free(amg->eig_inv), free(amg->coarse_tmp);
  free(amg);
}

/* ---- flexible PCG ------------------------------------------------------------------ */

int insdg_fpcg_csr(const insdg_csr *A, const double *b, double *x, void (*prec)(void *ctx, const double *r, double *z),
                   void *ctx, double rtol, int maxit, int *iters, double *relres)
{
  const int n = A->nrows;
  const double bnorm = sqrt(dot(n, b, b));
  int it = 0, converged = 0;
  double rel = 0.0;
  if (bnorm == 0.0) {
    memset(x, 0, sizeof(double) * (size_t)n);
    converged = 1;
  } else {
    double *r = dvec((size_t)n), *r_old = dvec((size_t)n), *z = dvec((size_t)n), *p = dvec((size_t)n), *q = dvec((size_t)n);
    insdg_csr_residual(A, x, b, r);
    rel = sqrt(dot(n, r, r)) / bnorm;
    converged = rel <= rtol;
    double rz = 0.0;
    while (!converged && it < maxit) {
      if (prec) prec(ctx, r, z);
      else memcpy(z, r, sizeof(double) * (size_t)n);
      if (it == 0) {
        memcpy(p, z, sizeof(double) * (size_t)n);
      } else {
        /* Polak-Ribiere: z.(r - r_old) / z_old.r_old keeps p A-conjugate to the last
           direction even when the preconditioner changes from one step to the next */
        double zdr = 0.0;
        for (int i = 0; i < n; ++i) zdr += z[i] * (r[i] - r_old[i]);
        const double beta = zdr / rz;
        for (int i = 0; i < n; ++i) p[i] = z[i] + beta * p[i];
      }
      rz = dot(n, r, z);
      insdg_csr_matvec(A, p, q);
      const double pq = dot(n, p, q);
      if (!(pq > 0.0)) break;   /* breakdown: p in the null space, or an indefinite preconditioner */
      const double alpha = rz / pq;
      memcpy(r_old, r, sizeof(double) * (size_t)n);
      for (int i = 0; i < n; ++i) x[i] += alpha * p[i], r[i] -= alpha * q[i];
      ++it;
      rel = sqrt(dot(n, r, r)) / bnorm;
      converged = rel <= rtol;
    }
    free(r), free(r_old), free(z), free(p), free(q);
  }
  if (iters) *iters = it;
  if (relres) *relres = rel;
  return converged ? 0 : 1;
}
