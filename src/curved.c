/* curved.c -- element maps of triangles with curved boundary faces and their geometry of
 * degree N (curved.h).
 */
#include "curved.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "block.h"
#include "curved_kernels.h"
#include "dense.h"
#include "error.h"

/* ---- curves ------------------------------------------------------------------------- */

/* l_k(t) of the Lagrange basis on the n points pts, and its derivative (dl may be NULL) */
static void lagrange(int n, const double *pts, double t, double *l, double *dl)
{
  for (int k = 0; k < n; ++k) {
    double p = 1, d = 0;
    for (int m = 0; m < n; ++m) {
      if (m == k) continue;
      const double a = 1.0 / (pts[k] - pts[m]);
      d = d * (t - pts[m]) * a + p * a;   /* product rule, one factor at a time */
      p *= (t - pts[m]) * a;
    }
    l[k] = p;
    if (dl) dl[k] = d;
  }
}

static void equispaced(int q, double *t)
{
  INSDG_CHECK(q >= 1 && q <= INSDG_CURVE_QMAX);
  for (int k = 0; k <= q; ++k) t[k] = -1.0 + 2.0 * k / q;
}

void insdg_mesh_curve_point(const insdg_mesh *m, int c, double t, double *x, double *y)
{
  const int q = m->curve_q;
  double pts[INSDG_CURVE_QMAX + 1], l[INSDG_CURVE_QMAX + 1];
  equispaced(q, pts);
  lagrange(q + 1, pts, t, l, NULL);
  double sx = 0, sy = 0;
  for (int k = 0; k <= q; ++k) sx += l[k] * m->curve_x[(size_t)c * (q + 1) + k], sy += l[k] * m->curve_y[(size_t)c * (q + 1) + k];
  *x = sx, *y = sy;
}

/* phi(t) = 4 d(t) / (1 - t^2) of curve c (d: deviation from its chord) and phi'(t): the
   degree-(q-2) polynomial through the values at the q - 1 interior parameters */
static void curve_phi(const insdg_mesh *m, int c, double t, double phi[2], double dphi[2])
{
  const int q = m->curve_q;
  const double *cx = m->curve_x + (size_t)c * (q + 1), *cy = m->curve_y + (size_t)c * (q + 1);
  double all[INSDG_CURVE_QMAX + 1], l[INSDG_CURVE_QMAX], dl[INSDG_CURVE_QMAX];
  equispaced(q, all);
  lagrange(q - 1, all + 1, t, l, dl);
  phi[0] = phi[1] = dphi[0] = dphi[1] = 0;
  for (int k = 1; k < q; ++k) {
    const double tk = all[k], wa = 0.5 * (1 - tk), wb = 0.5 * (1 + tk), scale = 4.0 / (1 - tk * tk);
    const double px = scale * (cx[k] - (wa * cx[0] + wb * cx[q])), py = scale * (cy[k] - (wa * cy[0] + wb * cy[q]));
    phi[0] += l[k - 1] * px, phi[1] += l[k - 1] * py;
    dphi[0] += dl[k - 1] * px, dphi[1] += dl[k - 1] * py;
  }
}

void insdg_mesh_map(const insdg_mesh *m, int e, int n, const double *r, const double *s, double *x,
                    double *y, double *xr, double *xs, double *yr, double *ys)
{
  const int *v = m->EToV + 3 * e;
  const double X[3] = {m->vx[v[0]], m->vx[v[1]], m->vx[v[2]]}, Y[3] = {m->vy[v[0]], m->vy[v[1]], m->vy[v[2]]};
  /* d l_v / dr and d l_v / ds */
  static const double dlr[3] = {-0.5, 0.5, 0.0}, dls[3] = {-0.5, 0.0, 0.5};
  for (int i = 0; i < n; ++i) {
    const double l[3] = {-0.5 * (r[i] + s[i]), 0.5 * (1 + r[i]), 0.5 * (1 + s[i])};
    double px = 0, py = 0, pxr = 0, pxs = 0, pyr = 0, pys = 0;
    for (int k = 0; k < 3; ++k) {
      px += l[k] * X[k], py += l[k] * Y[k];
      pxr += dlr[k] * X[k], pxs += dls[k] * X[k], pyr += dlr[k] * Y[k], pys += dls[k] * Y[k];
    }
    for (int f = 0; f < 3 && m->face_curve; ++f) {
      const int c = m->face_curve[3 * e + f];
      if (c < 0) continue;
      const int a = f, b = (f + 1) % 3;
      double phi[2], dphi[2];
      curve_phi(m, c, l[b] - l[a], phi, dphi);
      const double w = l[a] * l[b];
      const double wr = dlr[a] * l[b] + l[a] * dlr[b], ws = dls[a] * l[b] + l[a] * dls[b];
      const double tr = dlr[b] - dlr[a], ts = dls[b] - dls[a];
      px += w * phi[0], py += w * phi[1];
      pxr += wr * phi[0] + w * dphi[0] * tr, pxs += ws * phi[0] + w * dphi[0] * ts;
      pyr += wr * phi[1] + w * dphi[1] * tr, pys += ws * phi[1] + w * dphi[1] * ts;
    }
    x[i] = px, y[i] = py;
    if (xr) xr[i] = pxr, xs[i] = pxs, yr[i] = pyr, ys[i] = pys;
  }
}

double insdg_mesh_min_jacobian(const insdg_mesh *m, int e, double *xmin, double *ymin)
{
  const int L = 2 * (m->curve_q > 1 && m->curve_q <= INSDG_CURVE_QMAX ? m->curve_q : 1);
  double jmin = INFINITY;
  for (int i = 0; i <= L; ++i)
    for (int j = 0; i + j <= L; ++j) {
      const double r = -1.0 + 2.0 * i / L, s = -1.0 + 2.0 * j / L;
      double x, y, xr, xs, yr, ys;
      insdg_mesh_map(m, e, 1, &r, &s, &x, &y, &xr, &xs, &yr, &ys);
      const double J = xr * ys - xs * yr;
      if (J < jmin) jmin = J, *xmin = x, *ymin = y;
    }
  return jmin;
}

void insdg_mesh_copy_curves(insdg_mesh *to, const insdg_mesh *from, const int *old_elem)
{
  if (!from->face_curve) return;
  const size_t pts = (size_t)from->ncurves * (from->curve_q + 1);
  to->curve_q = from->curve_q, to->ncurves = from->ncurves, to->nstraightened = from->nstraightened;
  to->curve_x = insdg_malloc(sizeof(double) * (pts ? pts : 1));
  to->curve_y = insdg_malloc(sizeof(double) * (pts ? pts : 1));
  memcpy(to->curve_x, from->curve_x, sizeof(double) * pts);
  memcpy(to->curve_y, from->curve_y, sizeof(double) * pts);
  to->face_curve = insdg_malloc(sizeof(int) * 3 * (size_t)to->K);
  for (int e = 0; e < to->K; ++e)
    for (int f = 0; f < 3; ++f) to->face_curve[3 * e + f] = from->face_curve[3 * (old_elem ? old_elem[e] : e) + f];
}

int insdg_mesh_inverse_map(const insdg_mesh *m, int e, double x, double y, double tol, double *r, double *s)
{
  const int *v = m->EToV + 3 * (size_t)e;
  const double x0 = m->vx[v[0]], y0 = m->vy[v[0]];
  const double ax = m->vx[v[1]] - x0, ay = m->vy[v[1]] - y0, bx = m->vx[v[2]] - x0, by = m->vy[v[2]] - y0;
  const double det = ax * by - ay * bx, size = sqrt(fabs(det));
  double rr = 2 * ((x - x0) * by - (y - y0) * bx) / det - 1, ss = 2 * (ax * (y - y0) - ay * (x - x0)) / det - 1;
  int converged = 0;
  for (int it = 0; it < 50 && !converged; ++it) {
    double px, py, xr, xs, yr, ys;
    insdg_mesh_map(m, e, 1, &rr, &ss, &px, &py, &xr, &xs, &yr, &ys);
    const double J = xr * ys - xs * yr, dx = x - px, dy = y - py;
    if (!(J > 0)) return 0;
    const double dr = (ys * dx - xs * dy) / J, ds = (xr * dy - yr * dx) / J;
    rr += dr, ss += ds;
    converged = hypot(dx, dy) <= 1e-14 * size && fabs(dr) + fabs(ds) <= 1e-13;
    if (fabs(rr) > 10 || fabs(ss) > 10) return 0;   /* far outside: not this element */
  }
  *r = rr, *s = ss;
  return converged && rr >= -1 - tol && ss >= -1 - tol && rr + ss <= tol;
}

/* ---- geometry of degree N -------------------------------------------------------------- */

/* y[i] = sum_j A[i][j] x[j], A rows x cols */
static void matvec(const double *A, int rows, int cols, const double *x, double *y)
{
  for (int i = 0; i < rows; ++i) {
    double s = 0;
    for (int j = 0; j < cols; ++j) s += A[(size_t)i * cols + j] * x[j];
    y[i] = s;
  }
}

/* The inverse of the symmetric positive definite A (n x n) by Cholesky, symmetric to the
   bit (the upper triangle computed and mirrored). */
static void spd_inverse(const double *A, int n, double *inv)
{
  double *L = insdg_calloc((size_t)n * n, sizeof(double)), *Li = insdg_calloc((size_t)n * n, sizeof(double));
  memcpy(L, A, sizeof(double) * (size_t)n * n);
  INSDG_CHECK(insdg_cholesky(n, L) == 0);   /* L in the lower triangle; the upper one is never read */
  for (int j = 0; j < n; ++j) {   /* Li = L^{-1}, lower */
    Li[(size_t)j * n + j] = 1.0 / L[(size_t)j * n + j];
    for (int i = j + 1; i < n; ++i) {
      double s = 0;
      for (int k = j; k < i; ++k) s -= L[(size_t)i * n + k] * Li[(size_t)k * n + j];
      Li[(size_t)i * n + j] = s / L[(size_t)i * n + i];
    }
  }
  for (int i = 0; i < n; ++i)   /* inv = Li^T Li */
    for (int j = i; j < n; ++j) {
      double s = 0;
      for (int k = j; k < n; ++k) s += Li[(size_t)k * n + i] * Li[(size_t)k * n + j];
      inv[(size_t)i * n + j] = inv[(size_t)j * n + i] = s;
    }
  free(L), free(Li);
}

/* tangent d x / dt of face f at a point with the map's derivatives (faces of ref_tri.h:
   face 0: r = t; face 1: r = -t, s = t; face 2: s = -t), then outward normal and sJ */
static void face_frame(int f, double xr, double xs, double yr, double ys, double out[CF_NF])
{
  double tx, ty;
  if (f == 0) tx = xr, ty = yr;
  else if (f == 1) tx = xs - xr, ty = ys - yr;
  else tx = -xs, ty = -ys;
  const double len = sqrt(tx * tx + ty * ty);
  out[CF_NX] = ty / len, out[CF_NY] = -tx / len, out[CF_SJ] = len;
}

insdg_curved *insdg_curved_create(const insdg_mesh *m, const insdg_ref *ref)
{
  if (!m->face_curve) return NULL;
  int n = 0;
  for (int e = 0; e < m->K; ++e)
    n += m->face_curve[3 * e] >= 0 || m->face_curve[3 * e + 1] >= 0 || m->face_curve[3 * e + 2] >= 0;
  if (n == 0) return NULL;
  const int Np = ref->Np, Nfp = ref->Nfp, Nc = ref->Ncub, Nfc = ref->Nfcub;
  insdg_curved *c = insdg_calloc(1, sizeof *c);
  c->n = n, c->Np = Np, c->Nfp = Nfp, c->Ncub = Nc, c->Nfcub = Nfc, c->ref = ref;
  c->elem = insdg_malloc(sizeof(int) * (size_t)n);
  c->index = insdg_malloc(sizeof(int) * (size_t)m->K);
  for (int e = 0, k = 0; e < m->K; ++e) {
    const int curved = m->face_curve[3 * e] >= 0 || m->face_curve[3 * e + 1] >= 0 || m->face_curve[3 * e + 2] >= 0;
    c->index[e] = curved ? k : -1;
    if (curved) c->elem[k++] = e;
  }
  c->vgeo = insdg_malloc(sizeof(double) * (size_t)n * Np * CV_NV);
  c->sgeo = insdg_malloc(sizeof(double) * (size_t)n * 3 * Nfp * CF_NF);
  c->cgeo = insdg_malloc(sizeof(double) * (size_t)n * Nc * CC_NC);
  c->fcgeo = insdg_malloc(sizeof(double) * (size_t)n * 3 * Nfc * CF_NF);
  c->M = insdg_malloc(sizeof(double) * (size_t)n * Np * Np);
  c->invM = insdg_malloc(sizeof(double) * (size_t)n * Np * Np);

  /* reference data: the face mass matrix from E = M LIFT on face 0, derivatives at the
     cubature points */
  c->Mf = insdg_malloc(sizeof(double) * (size_t)Nfp * Nfp);
  for (int j = 0; j < Nfp; ++j)
    for (int k = 0; k < Nfp; ++k) {
      double s = 0;
      for (int l = 0; l < Np; ++l) s += ref->M[(size_t)ref->face_nodes[j] * Np + l] * ref->LIFT[(size_t)l * 3 * Nfp + k];
      c->Mf[(size_t)j * Nfp + k] = s;
    }
  c->cub_Dr = insdg_malloc(sizeof(double) * (size_t)Nc * Np);
  c->cub_Ds = insdg_malloc(sizeof(double) * (size_t)Nc * Np);
  for (int q = 0; q < Nc; ++q)
    for (int j = 0; j < Np; ++j) {
      double sr = 0, ss = 0;
      for (int l = 0; l < Np; ++l) {
        sr += ref->cub_interp[(size_t)q * Np + l] * ref->Dr[(size_t)l * Np + j];
        ss += ref->cub_interp[(size_t)q * Np + l] * ref->Ds[(size_t)l * Np + j];
      }
      c->cub_Dr[(size_t)q * Np + j] = sr, c->cub_Ds[(size_t)q * Np + j] = ss;
    }

  double *d = insdg_malloc(sizeof(double) * 4 * (size_t)(Np > Nc ? Np : Nc));   /* xr, xs, yr, ys */
  double *dc = insdg_malloc(sizeof(double) * 4 * (size_t)Nc), fd[4][INSDG_NMAX + 1];
  double *wJ = insdg_malloc(sizeof(double) * (size_t)Nc);
  for (int k = 0; k < n; ++k) {
    const int e = c->elem[k];
    const double *x = m->x + (size_t)e * Np, *y = m->y + (size_t)e * Np;
    double *xr = d, *xs = d + Np, *yr = d + 2 * Np, *ys = d + 3 * Np;
    matvec(ref->Dr, Np, Np, x, xr), matvec(ref->Ds, Np, Np, x, xs);
    matvec(ref->Dr, Np, Np, y, yr), matvec(ref->Ds, Np, Np, y, ys);
    double *vg = c->vgeo + (size_t)k * Np * CV_NV;
    for (int i = 0; i < Np; ++i) {
      const double J = xr[i] * ys[i] - xs[i] * yr[i];
      INSDG_CHECK(J > 0);   /* insdg_mesh_from_gmsh refused inverted maps */
      vg[i * CV_NV + CV_RX] = ys[i] / J, vg[i * CV_NV + CV_SX] = -yr[i] / J;
      vg[i * CV_NV + CV_RY] = -xs[i] / J, vg[i * CV_NV + CV_SY] = xr[i] / J;
      vg[i * CV_NV + CV_J] = J;
    }
    double *sg = c->sgeo + (size_t)k * 3 * Nfp * CF_NF, *fg = c->fcgeo + (size_t)k * 3 * Nfc * CF_NF;
    for (int f = 0; f < 3; ++f) {
      if (m->face_curve[3 * e + f] < 0) {   /* a straight face: exactly its neighbour's factors */
        const double *a = m->sgeo + ((size_t)e * 3 + f) * INSDG_NSGEO;
        for (int j = 0; j < Nfp; ++j) {
          double *out = sg + (size_t)(f * Nfp + j) * CF_NF;
          out[CF_NX] = a[INSDG_NX], out[CF_NY] = a[INSDG_NY], out[CF_SJ] = a[INSDG_SJ];
        }
        for (int q = 0; q < Nfc; ++q) {
          double *out = fg + (size_t)(f * Nfc + q) * CF_NF;
          out[CF_NX] = a[INSDG_NX], out[CF_NY] = a[INSDG_NY], out[CF_SJ] = ref->wfc[q] * a[INSDG_SJ];
        }
        continue;
      }
      for (int j = 0; j < Nfp; ++j) {
        const int i = ref->face_nodes[f * Nfp + j];
        face_frame(f, xr[i], xs[i], yr[i], ys[i], sg + (size_t)(f * Nfp + j) * CF_NF);
        fd[0][j] = xr[i], fd[1][j] = xs[i], fd[2][j] = yr[i], fd[3][j] = ys[i];
      }
      for (int q = 0; q < Nfc; ++q) {   /* the derivatives are polynomials along the face */
        double v[4];
        for (int a = 0; a < 4; ++a) matvec(ref->face_interp + (size_t)q * Nfp, 1, Nfp, fd[a], &v[a]);
        double *out = fg + (size_t)(f * Nfc + q) * CF_NF;
        face_frame(f, v[0], v[1], v[2], v[3], out);
        out[CF_SJ] *= ref->wfc[q];
      }
    }
    double *cxr = dc, *cxs = dc + Nc, *cyr = dc + 2 * Nc, *cys = dc + 3 * Nc;
    matvec(ref->cub_interp, Nc, Np, xr, cxr), matvec(ref->cub_interp, Nc, Np, xs, cxs);
    matvec(ref->cub_interp, Nc, Np, yr, cyr), matvec(ref->cub_interp, Nc, Np, ys, cys);
    double *cg = c->cgeo + (size_t)k * Nc * CC_NC;
    for (int q = 0; q < Nc; ++q) {
      const double w = ref->wc[q], J = cxr[q] * cys[q] - cxs[q] * cyr[q];
      INSDG_CHECK(J > 0);
      cg[q * CC_NC + CC_RX] = w * cys[q], cg[q * CC_NC + CC_SX] = -w * cyr[q];
      cg[q * CC_NC + CC_RY] = -w * cxs[q], cg[q * CC_NC + CC_SY] = w * cxr[q];
      cg[q * CC_NC + CC_J] = wJ[q] = w * J;
    }
    double *Me = c->M + (size_t)k * Np * Np;
    for (int i = 0; i < Np; ++i)
      for (int j = i; j < Np; ++j) {
        double s = 0;
        for (int q = 0; q < Nc; ++q) s += ref->cub_interp[(size_t)q * Np + i] * wJ[q] * ref->cub_interp[(size_t)q * Np + j];
        Me[(size_t)i * Np + j] = Me[(size_t)j * Np + i] = s;
      }
    spd_inverse(Me, Np, c->invM + (size_t)k * Np * Np);
  }
  free(d), free(dc), free(wJ);
  return c;
}

void insdg_curved_destroy(insdg_curved *c)
{
  if (!c) return;
  free(c->elem), free(c->index), free(c->vgeo), free(c->sgeo), free(c->cgeo), free(c->fcgeo);
  free(c->M), free(c->invM), free(c->Mf), free(c->cub_Dr), free(c->cub_Ds);
  free(c);
}

void insdg_curved_ctx_of_block(const insdg_block *b, insdg_curved_ctx *ctx)
{
  const insdg_curved *c = b->curved;
  const insdg_ref *ref = c->ref;
  *ctx = (insdg_curved_ctx){.K = b->K, .Np = c->Np, .Nfp = c->Nfp, .Ncub = c->Ncub, .Nfcub = c->Nfcub,
                            .mapP = b->mapP, .face_nodes = ref->face_nodes, .esgeo = b->sgeo, .Dr = ref->Dr,
                            .Ds = ref->Ds, .cub_interp = ref->cub_interp, .face_interp = ref->face_interp,
                            .Mf = c->Mf, .cub_Dr = c->cub_Dr, .cub_Ds = c->cub_Ds, .vgeo = c->vgeo, .sgeo = c->sgeo,
                            .cgeo = c->cgeo, .fcgeo = c->fcgeo, .M = c->M, .invM = c->invM};
}
