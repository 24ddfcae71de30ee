/* test_curved.c -- curved (isoparametric) elements on the annulus 0.5 <= r <= 1 against exact
 * results (meshes from tests/meshes/annulus.py, named ann_q<Q>_l<L>.msh: order Q, level L
 * with 1 * 2^L layers of 8 * 2^L cells; Q = 1 is the polygon of the same vertices).
 *
 *  geometry: the area tends to 3 pi / 4 at rate q + 1 or better; exterior trace nodes
 *    coincide with the interior ones on every face (interior faces stay straight);
 *  exactness (N = q): G and D of linear fields, the SIPDG residual of a linear (harmonic)
 *    field with its Dirichlet data, and N(U) of a constant U (free stream) vanish to
 *    round-off on curved elements;
 *  the surface terms of G and D on curved faces equal an independent face integral (Gauss
 *    quadrature with the normal of the element map) for data that jump;
 *  the assembled SIPDG matrix is symmetric and positive definite (Dirichlet, lambda = 0);
 *  Poisson, -Lap u = f, u = sin(4 pi / 3 (r^2 - 1/4)), u = 0 on both circles:
 *    L2 errors over three meshes fall at rate ~ N + 1 on curved meshes (q = N), while the
 *    polygon stalls at ~ 2 (the lost area: the paper's Table of rates needs the curves);
 *  the checkpoint's mesh fingerprint sees the curves: it changes when a curve point moves
 *    by one ulp or the curves are dropped (a restart on another curved mesh is refused).
 * Usage: test_curved MESHDIR NMAX [LEVELS]   (prints the convergence table)
 */
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "assemble.h"
#include "block.h"
#include "checkpoint_file.h"
#include "curved.h"
#include "error.h"
#include "gmsh.h"
#include "mesh.h"
#include "ops.h"
#include "ref_tri.h"

#include "expect.h"

static const char *dir;

static double *dalloc(size_t n) { return insdg_calloc(n ? n : 1, sizeof(double)); }

static insdg_mesh *load(int q, int level)
{
  char path[4096], err[1024];
  snprintf(path, sizeof path, "%s/ann_q%d_l%d.msh", dir, q, level);
  insdg_mesh *m;
  if (insdg_mesh_read(path, &m, err, sizeof err)) {
    fprintf(stderr, "%s\n", err);
    exit(1);
  }
  return m;
}

static double maxabs(const double *a, size_t n)
{
  double m = 0;
  for (size_t i = 0; i < n; ++i) m = fmax(m, fabs(a[i]));
  return m;
}

static void face_values(const insdg_mesh *m, const double *field, double *g)
{
  const insdg_ref *r = m->ref;
  for (int e = 0; e < m->K; ++e)
    for (int k = 0; k < 3 * r->Nfp; ++k) g[(size_t)e * 3 * r->Nfp + k] = field[(size_t)e * r->Np + r->face_nodes[k]];
}

static void codes_all(const insdg_block *b, signed char code, signed char *bc)
{
  signed char codes[INSDG_MAX_BOUNDARIES];
  for (int i = 0; i < INSDG_MAX_BOUNDARIES; ++i) codes[i] = code;
  insdg_block_bc_codes(b, codes, bc);
}

/* ---- the checkpoint's mesh fingerprint ----------------------------------------------- */
static void test_fingerprint(void)
{
  insdg_mesh *m = load(4, 0);
  EXPECT(m->ncurves > 0, "the order-4 annulus has curved faces");
  const uint64_t fp = insdg_checkpoint_mesh_fingerprint(m, NULL);
  EXPECT(insdg_checkpoint_mesh_fingerprint(m, NULL) == fp, "fingerprint: not deterministic");
  const double x0 = m->curve_x[1];
  m->curve_x[1] = nextafter(x0, 2.0);
  EXPECT(insdg_checkpoint_mesh_fingerprint(m, NULL) != fp, "fingerprint: a curve point moved by one ulp, same fingerprint");
  m->curve_x[1] = x0;
  int *fc = m->face_curve;
  m->face_curve = NULL;
  EXPECT(insdg_checkpoint_mesh_fingerprint(m, NULL) != fp, "fingerprint: the curves dropped, same fingerprint");
  m->face_curve = fc;
  EXPECT(insdg_checkpoint_mesh_fingerprint(m, NULL) == fp, "fingerprint: restored mesh, another fingerprint");
  insdg_mesh_destroy(m);
  printf("fingerprint: curves hashed\n");
}

/* ---- geometry --------------------------------------------------------------------- */
static void test_geometry(void)
{
  const double exact = 0.75 * acos(-1.0);
  double prev[7] = {0};
  for (int q = 1; q <= 6; ++q) {
    insdg_ref *ref = insdg_ref_create(q > 2 ? q : 2);
    for (int l = 0; l <= 1; ++l) {
      insdg_mesh *m = load(q, l);
      insdg_mesh_set_ref(m, ref);
      const double err = fabs(insdg_mesh_area(m) - exact);
      EXPECT((q == 1) == (m->curved == NULL), "q=%d: curved elements %s", q, m->curved ? "found" : "missing");
      if (l == 1 && q > 1 && prev[q] > 1e-13)   /* h halves: rate q + 1 (q odd), q + 2 (q even) */
        EXPECT(log2(prev[q] / err) > q + 0.7, "q=%d: area error %.3e -> %.3e, rate %.2f", q, prev[q], err,
               log2(prev[q] / err));
      prev[q] = err;
      double gap = 0;   /* exterior nodes sit where the interior ones do */
      for (size_t i = 0; i < (size_t)m->K * 3 * ref->Nfp; ++i) {
        const int e = (int)(i / (3 * ref->Nfp)), n = (int)(i % (3 * ref->Nfp));
        const size_t own = (size_t)e * ref->Np + ref->face_nodes[n], ext = (size_t)m->mapP[i];
        gap = fmax(gap, hypot(m->x[own] - m->x[ext], m->y[own] - m->y[ext]));
      }
      EXPECT(gap < 1e-14, "q=%d l=%d: exterior nodes %.3e away", q, l, gap);
      insdg_mesh_destroy(m);
    }
    insdg_ref_destroy(ref);
  }
  printf("geometry: area error at level 1: q=1 %.2e, q=2 %.2e, q=4 %.2e, q=6 %.2e\n", prev[1], prev[2], prev[4], prev[6]);
}

/* ---- exactness on linear fields and free stream ----------------------------------------- */
static void test_exactness(int N)
{
  insdg_ref *ref = insdg_ref_create(N);
  insdg_ops *op = insdg_ops_create(ref);
  insdg_mesh *m = load(N, 0);
  insdg_mesh_set_ref(m, ref);
  insdg_block *b = insdg_block_create(m, 0, m->K);
  EXPECT(b->ncurved > 0, "N=%d: no curved element in the block", N);
  const size_t n = (size_t)m->K * ref->Np, nf = (size_t)m->K * 3 * ref->Nfp;
  double *p = dalloc(n), *v = dalloc(n), *px = dalloc(n), *py = dalloc(n), *gp = dalloc(nf), *gv = dalloc(nf);
  double *div = dalloc(n), *Au = dalloc(n), *Nu = dalloc(n), *Nv = dalloc(n), *c1 = dalloc(n), *c2 = dalloc(n);
  signed char *dir_bc = insdg_malloc(3 * (size_t)m->K);
  codes_all(b, INSDG_BC_DIRICHLET, dir_bc);
  for (size_t i = 0; i < n; ++i) {
    p[i] = 1 + 2 * m->x[i] - 3 * m->y[i];
    v[i] = 0.5 - m->x[i] + 4 * m->y[i];
  }
  face_values(m, p, gp), face_values(m, v, gv);
  insdg_op_gradient(op, b, dir_bc, gp, p, NULL, px, py);
  double e = 0;
  for (size_t i = 0; i < n; ++i) e = fmax(e, fmax(fabs(px[i] - 2), fabs(py[i] + 3)));
  EXPECT(e < 1e-11, "N=%d: G of a linear field off by %.3e", N, e);
  const insdg_vec_in U = {p, v, NULL, NULL, gp, gv};
  insdg_op_divergence(op, b, dir_bc, &U, div);
  e = 0;
  for (size_t i = 0; i < n; ++i) e = fmax(e, fabs(div[i] - 6));
  EXPECT(e < 1e-11, "N=%d: D of a linear field off by %.3e", N, e);
  insdg_op_local_gradient(op, b, p, px, py);
  insdg_op_sipdg_data(op, b, dir_bc, gp, 0.0, p, px, py, NULL, NULL, NULL, Au);
  const double res = maxabs(Au, n);
  EXPECT(res < 1e-10, "N=%d: SIPDG residual of a harmonic linear field %.3e", N, res);
  for (size_t i = 0; i < n; ++i) c1[i] = 1.0, c2[i] = 0.5;
  face_values(m, c1, gp), face_values(m, c2, gv);
  const insdg_vec_in C = {c1, c2, NULL, NULL, gp, gv};
  insdg_op_advection(op, b, dir_bc, &C, Nu, Nv);
  const double fs = fmax(maxabs(Nu, n), maxabs(Nv, n));
  EXPECT(fs < 1e-11, "N=%d: N(U) of a constant U %.3e (free stream)", N, fs);
  printf("exactness N=%d: G %.1e, D %.1e, SIPDG %.1e, free stream %.1e\n", N, e, e, res, fs);

  /* the assembled matrix: symmetric, positive definite */
  double *A = dalloc(n * n), *u = dalloc(n);
  for (size_t j = 0; j < n; ++j) {
    u[j] = 1;
    insdg_op_local_gradient(op, b, u, px, py);
    insdg_op_sipdg(op, b, dir_bc, 0.0, u, px, py, NULL, NULL, NULL, A + j * n);
    u[j] = 0;
  }
  double norm = 0, asym = 0;
  for (size_t i = 0; i < n * n; ++i) norm = fmax(norm, fabs(A[i]));
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < i; ++j) asym = fmax(asym, fabs(A[i * n + j] - A[j * n + i]));
  EXPECT(asym <= 1e-12 * norm, "N=%d: |A - A^T| = %.3e, |A| = %.3e", N, asym, norm);
  double *w = dalloc(n);
  INSDG_CHECK(LAPACKE_dsyev(LAPACK_COL_MAJOR, 'N', 'U', (lapack_int)n, A, (lapack_int)n, w) == 0);
  EXPECT(w[0] > 0, "N=%d: smallest eigenvalue %.3e", N, w[0]);
  printf("SIPDG N=%d: |A - A^T| / |A| = %.1e, smallest eigenvalue %.3e\n", N, asym / norm, w[0]);
  free(A), free(u), free(w);
  free(p), free(v), free(px), free(py), free(gp), free(gv), free(div), free(Au), free(Nu), free(Nv), free(c1), free(c2);
  free(dir_bc);
  insdg_block_destroy(b), insdg_mesh_destroy(m), insdg_ops_destroy(op), insdg_ref_destroy(ref);
}


/* The surface terms on curved faces, against an independent integral: with Dirichlet data
   g = p + 1 for a linear p, M_J (G p - grad p) on a curved element is sum_f int l_i n sJ dt
   over its boundary faces (and the same for D with U = (p, p)): computed here by Gauss
   quadrature on the faces with the normal from the element map's derivatives
   (insdg_mesh_map), not from the geometry of curved.c. */
static void test_surface_terms(int N)
{
  insdg_ref *ref = insdg_ref_create(N);
  insdg_ops *op = insdg_ops_create(ref);
  insdg_mesh *m = load(N, 0);
  insdg_mesh_set_ref(m, ref);
  insdg_block *b = insdg_block_create(m, 0, m->K);
  const int Np = ref->Np, Nfp = ref->Nfp, Nfc = ref->Nfcub;
  const size_t n = (size_t)m->K * Np, nf = (size_t)m->K * 3 * Nfp;
  double *p = dalloc(n), *px = dalloc(n), *py = dalloc(n), *g = dalloc(nf), *div = dalloc(n);
  signed char *bc = insdg_malloc(3 * (size_t)m->K);
  codes_all(b, INSDG_BC_DIRICHLET, bc);
  for (size_t i = 0; i < n; ++i) p[i] = 1 + 2 * m->x[i] - 3 * m->y[i];
  face_values(m, p, g);
  for (size_t i = 0; i < nf; ++i) g[i] += 1.0;
  insdg_op_gradient(op, b, bc, g, p, NULL, px, py);
  const insdg_vec_in U = {p, p, NULL, NULL, g, g};
  insdg_op_divergence(op, b, bc, &U, div);
  double worst = 0, scale = 0;
  for (int k = 0; k < m->curved->n; ++k) {
    const int e = m->curved->elem[k];
    const double *M = m->curved->M + (size_t)k * Np * Np;
    double want[2][66] = {{0}};
    for (int f = 0; f < 3; ++f) {
      if (m->face_bnd[3 * e + f] < 0) continue;
      for (int q = 0; q < Nfc; ++q) {
        const double t = ref->tfc[q];
        const double r = f == 0 ? t : f == 1 ? -t : -1.0, s = f == 0 ? -1.0 : f == 1 ? t : -t;
        double x, y, xr, xs, yr, ys;
        insdg_mesh_map(m, e, 1, &r, &s, &x, &y, &xr, &xs, &yr, &ys);
        const double tx = f == 0 ? xr : f == 1 ? xs - xr : -xs, ty = f == 0 ? yr : f == 1 ? ys - yr : -ys;
        for (int j = 0; j < Nfp; ++j) {
          const int i = ref->face_nodes[f * Nfp + j];
          const double l = ref->face_interp[q * Nfp + j] * ref->wfc[q];
          want[0][i] += l * ty, want[1][i] += l * -tx;   /* n sJ = (ty, -tx) */
        }
      }
    }
    for (int i = 0; i < Np; ++i) {
      double gx = 0, gy = 0, dd = 0;
      for (int j = 0; j < Np; ++j) {
        const size_t id = (size_t)e * Np + j;
        gx += M[i * Np + j] * (px[id] - 2), gy += M[i * Np + j] * (py[id] + 3), dd += M[i * Np + j] * (div[id] + 1);
      }
      worst = fmax(worst, fmax(fabs(gx - want[0][i]), fabs(gy - want[1][i])));
      worst = fmax(worst, fabs(dd - (want[0][i] + want[1][i])));
      scale = fmax(scale, fmax(fabs(want[0][i]), fabs(want[1][i])));
    }
  }
  EXPECT(scale > 0 && worst < 1e-12 * fmax(scale, 1.0), "N=%d: curved surface terms of G, D off by %.3e (scale %.3e)", N,
         worst, scale);
  printf("surface terms N=%d: G, D on curved faces against Gauss quadrature: %.1e (scale %.1e)\n", N, worst, scale);
  free(p), free(px), free(py), free(g), free(div), free(bc);
  insdg_block_destroy(b), insdg_mesh_destroy(m), insdg_ops_destroy(op), insdg_ref_destroy(ref);
}

/* ---- Poisson convergence ------------------------------------------------------------ */
/* u = sin(k (r^2 - 1/4)), k = 4 pi / 3: zero on both circles (the wall condition a user
   gives, u = 0), so a polygon imposes it at the wrong place */
static const double kk = 4.0 / 3.0 * 3.14159265358979323846;
static double exact_u(double x, double y) { return sin(kk * (x * x + y * y - 0.25)); }
static double exact_f(double x, double y)
{
  const double rho = x * x + y * y, t = kk * (rho - 0.25);
  return -4 * kk * cos(t) + 4 * kk * kk * rho * sin(t);
}

/* L2 error of the nodal field uh against exact_u, by the volume cubature of the discrete
   (isoparametric) domain */
static double l2_error(const insdg_mesh *m, const double *uh)
{
  const insdg_ref *r = m->ref;
  double s = 0;
  for (int e = 0; e < m->K; ++e) {
    const int k = m->curved ? m->curved->index[e] : -1;
    for (int q = 0; q < r->Ncub; ++q) {
      const double *Ic = r->cub_interp + (size_t)q * r->Np;
      double x = 0, y = 0, h = 0;
      for (int j = 0; j < r->Np; ++j) {
        const size_t i = (size_t)e * r->Np + j;
        x += Ic[j] * m->x[i], y += Ic[j] * m->y[i], h += Ic[j] * uh[i];
      }
      const double w = k < 0 ? r->wc[q] * m->vgeo[e * INSDG_NVGEO + INSDG_J]
                             : m->curved->cgeo[((size_t)k * r->Ncub + q) * CC_NC + CC_J];
      s += w * (h - exact_u(x, y)) * (h - exact_u(x, y));
    }
  }
  return sqrt(s);
}

/* Solve the Dirichlet problem on mesh (q, level) at degree N by Jacobi-preconditioned CG;
   the L2 error */
static double poisson(int N, int q, int level, int *its)
{
  insdg_ref *ref = insdg_ref_create(N);
  insdg_ops *op = insdg_ops_create(ref);
  insdg_mesh *m = load(q, level);
  insdg_mesh_set_ref(m, ref);
  insdg_block *b = insdg_block_create(m, 0, m->K);
  const size_t n = (size_t)m->K * ref->Np, nf = (size_t)m->K * 3 * ref->Nfp;
  signed char *bc = insdg_malloc(3 * (size_t)m->K);
  codes_all(b, INSDG_BC_DIRICHLET, bc);
  double *f = dalloc(n), *rhs = dalloc(n), *g = dalloc(nf), *ue = dalloc(n), *zero = dalloc(n), *data = dalloc(n);
  double *x = dalloc(n), *r = dalloc(n), *z = dalloc(n), *p = dalloc(n), *Ap = dalloc(n), *ux = dalloc(n), *uy = dalloc(n);
  double *d = dalloc(n);
  for (size_t i = 0; i < n; ++i) f[i] = exact_f(m->x[i], m->y[i]), ue[i] = exact_u(m->x[i], m->y[i]);
  (void)g;   /* the data are zero: the true boundary condition, not u at the mesh's nodes */
  insdg_mesh_weak_form(m, f, rhs);
  insdg_op_sipdg_data(op, b, bc, NULL, 0.0, zero, zero, zero, NULL, NULL, NULL, data);
  for (size_t i = 0; i < n; ++i) r[i] = rhs[i] - data[i];
  insdg_assemble_sipdg_diagonal(m, op, bc, 0.0, 0, m->K, d);
  double rz = 0, r0 = 0;
  for (size_t i = 0; i < n; ++i) z[i] = r[i] / d[i], p[i] = z[i], rz += r[i] * z[i], r0 += r[i] * r[i];
  int k = 0;
  for (; k < 20000; ++k) {
    double rr = 0;
    for (size_t i = 0; i < n; ++i) rr += r[i] * r[i];
    if (rr <= 1e-26 * r0) break;
    insdg_op_local_gradient(op, b, p, ux, uy);
    insdg_op_sipdg(op, b, bc, 0.0, p, ux, uy, NULL, NULL, NULL, Ap);
    double pAp = 0;
    for (size_t i = 0; i < n; ++i) pAp += p[i] * Ap[i];
    const double alpha = rz / pAp;
    double rz_new = 0;
    for (size_t i = 0; i < n; ++i) x[i] += alpha * p[i], r[i] -= alpha * Ap[i], z[i] = r[i] / d[i], rz_new += r[i] * z[i];
    for (size_t i = 0; i < n; ++i) p[i] = z[i] + rz_new / rz * p[i];
    rz = rz_new;
  }
  *its = k;
  const double err = l2_error(m, x);
  free(f), free(rhs), free(g), free(ue), free(zero), free(data), free(x), free(r), free(z), free(p), free(Ap);
  free(ux), free(uy), free(d), free(bc);
  insdg_block_destroy(b), insdg_mesh_destroy(m), insdg_ops_destroy(op), insdg_ref_destroy(ref);
  return err;
}

static void test_poisson(int nmax, int levels)
{
  printf("Poisson on the annulus: L2 errors (rates), curved (q = N) and straight (q = 1) meshes\n");
  printf("| N | mesh | K | curved | rate | straight | rate |\n|---:|---|---:|---:|---:|---:|---:|\n");
  for (int N = 1; N <= nmax; ++N) {
    double prev[2] = {0, 0}, rate[2] = {0, 0}, last[2] = {0, 0};
    for (int l = 0; l < levels; ++l) {
      int its[2];
      const double ec = poisson(N, N > 1 ? N : 2, l, &its[0]), es = poisson(N, 1, l, &its[1]);
      const double e[2] = {ec, es};
      for (int s = 0; s < 2; ++s) {
        rate[s] = l ? log2(prev[s] / e[s]) : 0;
        prev[s] = last[s] = e[s];
      }
      const int K = 16 * (1 << (2 * l));
      if (l)
        printf("| %d | l%d | %d | %.3e | %.2f | %.3e | %.2f |\n", N, l, K, ec, rate[0], es, rate[1]);
      else
        printf("| %d | l%d | %d | %.3e | | %.3e | |\n", N, l, K, ec, es);
      EXPECT(its[0] < 20000 && its[1] < 20000, "N=%d l=%d: CG did not converge", N, l);
    }
    /* rates over the last refinement: curved ~ N + 1, straight stalls at ~ 2 */
    EXPECT(rate[0] > N + 0.5, "N=%d: curved rate %.2f, expected ~%d", N, rate[0], N + 1);
    if (N >= 3) {
      EXPECT(rate[1] < 2.6, "N=%d: straight rate %.2f: the polygon should stall near 2", N, rate[1]);
      EXPECT(last[0] < 0.01 * last[1], "N=%d: curved error %.3e not far below straight %.3e", N, last[0], last[1]);
    }
  }
}

int main(int argc, char **argv)
{
  if (argc < 3) {
    fprintf(stderr, "usage: test_curved MESHDIR NMAX [LEVELS]\n");
    return 2;
  }
  dir = argv[1];
  const int nmax = atoi(argv[2]), levels = argc > 3 ? atoi(argv[3]) : 3;
  test_fingerprint();
  test_geometry();
  for (int N = 2; N <= (nmax < 6 ? nmax : 6); ++N) test_exactness(N), test_surface_terms(N);
  test_poisson(nmax, levels);
  if (failures) printf("%d failure(s)\n", failures);
  return failures ? 1 : 0;
}
