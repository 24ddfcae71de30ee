/* ops_curved.c -- the operators of ops.h on a block's curved elements (curved.h).
 *
 * The affine kernels (ops_kernels.inc) run on every element of a block; for the block's
 * curved elements these functions then overwrite (local gradient, divergence volume,
 * SIPDG, advection volume) or add (the surface parts) what the curved geometry gives.
 * ops_cpu.c calls them; for the "adds" operators it first saves the curved elements'
 * outputs and restores them after the affine kernel, so that the affine surface term of a
 * curved element is never added.
 *
 * The forms (docs/numerics.md "Curved elements"), with M_J the element's own mass matrix
 * (volume cubature), Dx = diag(rx) Dr + diag(sx) Ds (nodal metric), E_f the face-node
 * extraction and Mf the reference face mass matrix:
 *   strong operators (G, D, advection): the volume part at the nodes (G, D) or with the
 *     metric at the cubature points (advection, weak form), the surface part
 *     M_J^{-1} sum_f E_f^T Mf (sJ n . flux) (G, D, at face nodes) or at the face cubature
 *     points (advection), then M_J^{-1};
 *   SIPDG, the bilinear form of the affine kernel (symmetric interior penalty),
 *     a(u, v) = int grad u . grad v J (volume cubature, the metric at the cubature points)
 *             - sum_f [v]^T Mf (sJ n . {grad u}) - sum_f [u]^T Mf (sJ n . {grad v})
 *             + tau sum_f [u]^T W_f [v] + lambda v^T M_J u,
 *     gradients at the face nodes pointwise (nodal metric), W_f = diag(sqrt sJ) Mf
 *     diag(sqrt sJ): symmetric by construction, exact (to the cubature) on the linear
 *     functions, and on an interior (always straight) face every weight is sJ Mf, the
 *     affine neighbour's.
 * Generic in N (run-time loops): curved elements are a boundary layer of the mesh.
 */
#include "ops_curved.h"

#include <math.h>
#include <string.h>

#include "curved.h"
#include "error.h"

#define EXTV(arr, halo, idx, KNP) ((idx) < (KNP) ? (arr)[idx] : (halo)[(idx) - (KNP)])

enum { MAXP = (INSDG_NMAX + 1) * (INSDG_NMAX + 2) / 2, MAXF = 3 * (INSDG_NMAX + 1), MAXC = ((3 * INSDG_NMAX + 2) / 2) * ((3 * INSDG_NMAX + 2) / 2) };

/* y = A x (A rows x cols, row-major) */
static void mv(const double *A, int rows, int cols, const double *x, double *y)
{
  for (int i = 0; i < rows; ++i) {
    double s = 0;
    for (int j = 0; j < cols; ++j) s += A[(size_t)i * cols + j] * x[j];
    y[i] = s;
  }
}

/* y += A^T x */
static void mtv_acc(const double *A, int rows, int cols, const double *x, double *y)
{
  for (int j = 0; j < rows; ++j) {
    const double xj = x[j];
    for (int i = 0; i < cols; ++i) y[i] += A[(size_t)j * cols + i] * xj;
  }
}

/* out[face nodes of f] += Mf z (z at the Nfp nodes of face f) */
static void face_mass_acc(const insdg_curved *c, const int *fn, int f, const double *z, double *out)
{
  const int Nfp = c->Nfp;
  for (int j = 0; j < Nfp; ++j) {
    double s = 0;
    for (int l = 0; l < Nfp; ++l) s += c->Mf[j * Nfp + l] * z[l];
    out[fn[f * Nfp + j]] += s;
  }
}

/* (u* - u-) * 2 under the central flux, per bc code (as the affine kernels) */
static double jump2(int code, double uM, double uP, const double *g, size_t gi)
{
  if (code == INSDG_BC_INTERIOR) return uP - uM;
  if (code == INSDG_BC_DIRICHLET) return 2.0 * ((g ? g[gi] : 0.0) - uM);
  return 0.0;
}

/* out[0..Np) += M_J^{-1} w for curved element k: a weak surface term made strong */
static void add_inverse_mass(const insdg_curved *c, int k, const double *w, double *out)
{
  const int Np = c->Np;
  double a[MAXP];
  mv(c->invM + (size_t)k * Np * Np, Np, Np, w, a);
  for (int i = 0; i < Np; ++i) out[i] += a[i];
}

static const double *cvg(const insdg_curved *c, int k) { return c->vgeo + (size_t)k * c->Np * CV_NV; }
static const double *csg(const insdg_curved *c, int k) { return c->sgeo + (size_t)k * 3 * c->Nfp * CF_NF; }

static void local_gradient_one(const insdg_ops *op, const insdg_curved *c, int k, const double *u, double *ux,
                               double *uy)
{
  const int Np = c->Np;
  const double *vg = cvg(c, k);
  double ur[MAXP], us[MAXP];
  mv(op->ref->Dr, Np, Np, u, ur), mv(op->ref->Ds, Np, Np, u, us);
  for (int i = 0; i < Np; ++i) {
    const double *g = vg + i * CV_NV;
    ux[i] = g[CV_RX] * ur[i] + g[CV_SX] * us[i];
    uy[i] = g[CV_RY] * ur[i] + g[CV_SY] * us[i];
  }
}

void insdg_curved_local_gradient(const insdg_ops *op, const insdg_block *b, const double *u, double *ux, double *uy)
{
  const int Np = b->Np;
  for (int e = 0; e < b->K; ++e)
    if (b->cindex[e] >= 0)
      local_gradient_one(op, b->curved, b->cindex[e], u + (size_t)e * Np, ux + (size_t)e * Np, uy + (size_t)e * Np);
}

void insdg_curved_gradient_surface(const insdg_ops *op, const insdg_block *b, const signed char *bc, const double *g,
                                   const double *p, const double *p_halo, double *px, double *py)
{
  const insdg_curved *c = b->curved;
  const int Np = b->Np, Nfp = b->Nfp, *fn = op->ref->face_nodes;
  const size_t KNP = (size_t)b->K * Np;
  for (int e = 0; e < b->K; ++e) {
    const int k = b->cindex[e];
    if (k < 0) continue;
    const double *sg = csg(c, k);
    double wx[MAXP] = {0}, wy[MAXP] = {0};
    for (int f = 0; f < 3; ++f) {
      double zx[INSDG_NMAX + 1], zy[INSDG_NMAX + 1];
      for (int j = 0; j < Nfp; ++j) {
        const int n = f * Nfp + j;
        const size_t idP = (size_t)b->mapP[(size_t)e * 3 * Nfp + n];
        const double dp = jump2(bc[3 * e + f], p[(size_t)e * Np + fn[n]], EXTV(p, p_halo, idP, KNP), g,
                                (size_t)e * 3 * Nfp + n);
        const double *s = sg + n * CF_NF;
        zx[j] = 0.5 * dp * s[CF_NX] * s[CF_SJ], zy[j] = 0.5 * dp * s[CF_NY] * s[CF_SJ];
      }
      face_mass_acc(c, fn, f, zx, wx), face_mass_acc(c, fn, f, zy, wy);
    }
    add_inverse_mass(c, k, wx, px + (size_t)e * Np), add_inverse_mass(c, k, wy, py + (size_t)e * Np);
  }
}

void insdg_curved_divergence_volume(const insdg_ops *op, const insdg_block *b, const double *u, const double *v,
                                    double *divu)
{
  const int Np = b->Np;
  for (int e = 0; e < b->K; ++e) {
    const int k = b->cindex[e];
    if (k < 0) continue;
    double ux[MAXP], uy[MAXP], vx[MAXP], vy[MAXP];
    local_gradient_one(op, b->curved, k, u + (size_t)e * Np, ux, uy);
    local_gradient_one(op, b->curved, k, v + (size_t)e * Np, vx, vy);
    for (int i = 0; i < Np; ++i) divu[(size_t)e * Np + i] = ux[i] + vy[i];
  }
}

void insdg_curved_divergence_surface(const insdg_ops *op, const insdg_block *b, const signed char *bc,
                                     const insdg_vec_in *U, double *divu)
{
  const insdg_curved *c = b->curved;
  const int Np = b->Np, Nfp = b->Nfp, *fn = op->ref->face_nodes;
  const size_t KNP = (size_t)b->K * Np;
  for (int e = 0; e < b->K; ++e) {
    const int k = b->cindex[e];
    if (k < 0) continue;
    const double *sg = csg(c, k);
    double w[MAXP] = {0};
    for (int f = 0; f < 3; ++f) {
      double z[INSDG_NMAX + 1];
      for (int j = 0; j < Nfp; ++j) {
        const int n = f * Nfp + j;
        const size_t idP = (size_t)b->mapP[(size_t)e * 3 * Nfp + n], gi = (size_t)e * 3 * Nfp + n, idM = (size_t)e * Np + fn[n];
        const double du = jump2(bc[3 * e + f], U->u[idM], EXTV(U->u, U->u_halo, idP, KNP), U->gu, gi);
        const double dv = jump2(bc[3 * e + f], U->v[idM], EXTV(U->v, U->v_halo, idP, KNP), U->gv, gi);
        const double *s = sg + n * CF_NF;
        z[j] = 0.5 * s[CF_SJ] * (s[CF_NX] * du + s[CF_NY] * dv);
      }
      face_mass_acc(c, fn, f, z, w);
    }
    add_inverse_mass(c, k, w, divu + (size_t)e * Np);
  }
}

void insdg_curved_sipdg(const insdg_ops *op, const insdg_block *b, const signed char *bc, const double *g,
                        double lambda, const double *u, const double *ux, const double *uy, const double *u_halo,
                        const double *ux_halo, const double *uy_halo, double *Au)
{
  const insdg_curved *c = b->curved;
  const insdg_ref *ref = op->ref;
  const int Np = b->Np, Nfp = b->Nfp, *fn = ref->face_nodes;
  const size_t KNP = (size_t)b->K * Np;
  for (int e = 0; e < b->K; ++e) {
    const int k = b->cindex[e];
    if (k < 0) continue;
    const size_t e0 = (size_t)e * Np, f0 = (size_t)e * 3 * Nfp;   /* first node, first face node */
    const double *vg = cvg(c, k), *sg = csg(c, k), *M = c->M + (size_t)k * Np * Np;
    const double *esg = b->sgeo + (size_t)e * 3 * INSDG_NSGEO;
    /* jumps [u], [grad u] at the face nodes (the affine kernel's boundary rules) */
    double du[MAXF], dux[MAXF], duy[MAXF];
    for (int f = 0; f < 3; ++f) {
      const int code = bc[3 * e + f];
      for (int j = 0; j < Nfp; ++j) {
        const int n = f * Nfp + j;
        const size_t idM = e0 + fn[n], idP = (size_t)b->mapP[f0 + n];
        const double *s = sg + n * CF_NF;
        if (code == INSDG_BC_INTERIOR) {
          du[n] = EXTV(u, u_halo, idP, KNP) - u[idM];
          dux[n] = EXTV(ux, ux_halo, idP, KNP) - ux[idM];
          duy[n] = EXTV(uy, uy_halo, idP, KNP) - uy[idM];
        } else if (code == INSDG_BC_DIRICHLET) {
          du[n] = 2.0 * ((g ? g[f0 + n] : 0.0) - u[idM]), dux[n] = 0.0, duy[n] = 0.0;
        } else {
          const double h2 = g ? 2.0 * g[f0 + n] : 0.0;
          du[n] = 0.0, dux[n] = -2.0 * ux[idM] + h2 * s[CF_NX], duy[n] = -2.0 * uy[idM] + h2 * s[CF_NY];
        }
      }
    }
    /* the volume term by cubature: sum_q w J grad l_i . grad u at the cubature points */
    const int Nc = c->Ncub;
    const double *cg = c->cgeo + (size_t)k * Nc * CC_NC;
    double ur[MAXC], us[MAXC], vr[MAXC], vs[MAXC];
    mv(c->cub_Dr, Nc, Np, u + e0, ur), mv(c->cub_Ds, Nc, Np, u + e0, us);
    for (int q = 0; q < Nc; ++q) {
      const double *gq = cg + q * CC_NC;
      const double gx = gq[CC_RX] * ur[q] + gq[CC_SX] * us[q], gy = gq[CC_RY] * ur[q] + gq[CC_SY] * us[q];   /* w J grad u */
      vr[q] = (gq[CC_RX] * gx + gq[CC_RY] * gy) / gq[CC_J];
      vs[q] = (gq[CC_SX] * gx + gq[CC_SY] * gy) / gq[CC_J];
    }
    double out[MAXP], zx[MAXP] = {0}, zy[MAXP] = {0};
    mv(M, Np, Np, u + e0, out);
    for (int i = 0; i < Np; ++i) out[i] *= lambda;
    mtv_acc(c->cub_Dr, Nc, Np, vr, out), mtv_acc(c->cub_Ds, Nc, Np, vs, out);
    /* faces: - Mf (sJ (n.grad u- + n.[grad u]/2)) - tau W [u] on the face nodes, and the
       test gradients' term n.grad l_i sJ (Mf [u]) / 2 through z = (n sJ Mf [u] / 2) */
    for (int f = 0; f < 3; ++f) {
      const double tau = esg[f * INSDG_NSGEO + INSDG_TAU];
      double a[INSDG_NMAX + 1], d[INSDG_NMAX + 1], rd[INSDG_NMAX + 1];
      for (int j = 0; j < Nfp; ++j) {
        const int n = f * Nfp + j;
        const double *sf = sg + n * CF_NF, nx = sf[CF_NX], ny = sf[CF_NY];
        const size_t idM = e0 + fn[n];
        const double rs = sqrt(sf[CF_SJ]);
        a[j] = sf[CF_SJ] * (nx * ux[idM] + ny * uy[idM] + 0.5 * (nx * dux[n] + ny * duy[n]));
        d[j] = du[n], rd[j] = rs * du[n];
      }
      for (int j = 0; j < Nfp; ++j) {
        const double *sf = sg + (f * Nfp + j) * CF_NF;
        double ma = 0, md = 0, mrd = 0;
        for (int l = 0; l < Nfp; ++l) {
          const double mf = c->Mf[j * Nfp + l];
          ma += mf * a[l], md += mf * d[l], mrd += mf * rd[l];
        }
        const int i = fn[f * Nfp + j];
        out[i] -= ma + tau * sqrt(sf[CF_SJ]) * mrd;
        zx[i] += 0.5 * sf[CF_NX] * sf[CF_SJ] * md, zy[i] += 0.5 * sf[CF_NY] * sf[CF_SJ] * md;
      }
    }
    double qr[MAXP], qs[MAXP];
    for (int i = 0; i < Np; ++i) {
      const double *gg = vg + i * CV_NV;
      qr[i] = gg[CV_RX] * zx[i] + gg[CV_RY] * zy[i];
      qs[i] = gg[CV_SX] * zx[i] + gg[CV_SY] * zy[i];
    }
    mtv_acc(ref->Dr, Np, Np, qr, out), mtv_acc(ref->Ds, Np, Np, qs, out);
    memcpy(Au + e0, out, sizeof(double) * (size_t)Np);
  }
}

void insdg_curved_adv_volume(const insdg_ops *op, const insdg_block *b, const double *ub, const double *vb,
                             const double *ut, const double *vt, double *Nu, double *Nv)
{
  const insdg_curved *c = b->curved;
  const insdg_ref *ref = op->ref;
  const int Np = b->Np, Nc = c->Ncub;
  for (int e = 0; e < b->K; ++e) {
    const int k = b->cindex[e];
    if (k < 0) continue;
    const size_t e0 = (size_t)e * Np;
    const double *cg = c->cgeo + (size_t)k * Nc * CC_NC;
    double cub[MAXC], cvb[MAXC], cut[MAXC], cvt[MAXC], fr[2][MAXC], fs[2][MAXC];
    mv(ref->cub_interp, Nc, Np, ub + e0, cub), mv(ref->cub_interp, Nc, Np, vb + e0, cvb);
    mv(ref->cub_interp, Nc, Np, ut + e0, cut), mv(ref->cub_interp, Nc, Np, vt + e0, cvt);
    for (int q = 0; q < Nc; ++q) {   /* -(grad l_i, Ubar (x) Ut) with w J and the metric at q */
      const double *gq = cg + q * CC_NC;
      const double rb = -(gq[CC_RX] * cub[q] + gq[CC_RY] * cvb[q]), sb = -(gq[CC_SX] * cub[q] + gq[CC_SY] * cvb[q]);
      fr[0][q] = rb * cut[q], fs[0][q] = sb * cut[q], fr[1][q] = rb * cvt[q], fs[1][q] = sb * cvt[q];
    }
    double *outs[2] = {Nu + e0, Nv + e0};
    for (int d = 0; d < 2; ++d) {
      double w[MAXP] = {0};
      mtv_acc(c->cub_Dr, Nc, Np, fr[d], w), mtv_acc(c->cub_Ds, Nc, Np, fs[d], w);
      mv(c->invM + (size_t)k * Np * Np, Np, Np, w, outs[d]);
    }
  }
}

void insdg_curved_adv_surface(const insdg_ops *op, const insdg_block *b, const signed char *bc, double lambda_factor,
                              const insdg_vec_in *Ub, const insdg_vec_in *Ut, double *Nu, double *Nv)
{
  const insdg_curved *c = b->curved;
  const insdg_ref *ref = op->ref;
  const int Np = b->Np, Nfp = b->Nfp, Nfc = c->Nfcub, *fn = ref->face_nodes;
  const double *FI = ref->face_interp;   /* [Nfc][Nfp] */
  const size_t KNP = (size_t)b->K * Np;
  for (int e = 0; e < b->K; ++e) {
    const int k = b->cindex[e];
    if (k < 0) continue;
    const size_t e0 = (size_t)e * Np;
    const double *fg = c->fcgeo + (size_t)k * 3 * Nfc * CF_NF;
    double wu[MAXP] = {0}, wv[MAXP] = {0};
    for (int f = 0; f < 3; ++f) {
      const int code = bc[3 * e + f];
      const int outflow = code != INSDG_BC_INTERIOR && code != INSDG_BC_DIRICHLET;
      double tr[2][4][INSDG_NMAX + 1];   /* interior/exterior traces of ub, vb, ut, vt */
      for (int j = 0; j < Nfp; ++j) {
        const int n = f * Nfp + j;
        const size_t idM = e0 + fn[n], idP = (size_t)b->mapP[(size_t)e * 3 * Nfp + n], gi = (size_t)e * 3 * Nfp + n;
        tr[0][0][j] = Ub->u[idM], tr[0][1][j] = Ub->v[idM], tr[0][2][j] = Ut->u[idM], tr[0][3][j] = Ut->v[idM];
        if (code == INSDG_BC_INTERIOR) {
          tr[1][0][j] = EXTV(Ub->u, Ub->u_halo, idP, KNP), tr[1][1][j] = EXTV(Ub->v, Ub->v_halo, idP, KNP);
          tr[1][2][j] = EXTV(Ut->u, Ut->u_halo, idP, KNP), tr[1][3][j] = EXTV(Ut->v, Ut->v_halo, idP, KNP);
        } else if (code == INSDG_BC_DIRICHLET) {
          tr[1][0][j] = Ub->gu ? Ub->gu[gi] : 0.0, tr[1][1][j] = Ub->gv ? Ub->gv[gi] : 0.0;
          tr[1][2][j] = Ut->gu ? Ut->gu[gi] : 0.0, tr[1][3][j] = Ut->gv ? Ut->gv[gi] : 0.0;
        } else {
          tr[1][0][j] = tr[0][0][j], tr[1][1][j] = tr[0][1][j];
          tr[1][2][j] = Ut->gu ? Ut->gu[gi] : 0.0, tr[1][3][j] = Ut->gv ? Ut->gv[gi] : 0.0;
        }
      }
      for (int q = 0; q < Nfc; ++q) {
        double val[2][4] = {{0}};
        for (int side = 0; side < 2; ++side)
          for (int a = 0; a < 4; ++a)
            for (int j = 0; j < Nfp; ++j) val[side][a] += FI[q * Nfp + j] * tr[side][a][j];
        const double *gq = fg + (size_t)(f * Nfc + q) * CF_NF, nx = gq[CF_NX], ny = gq[CF_NY];
        const double unM = nx * val[0][0] + ny * val[0][1], unP = nx * val[1][0] + ny * val[1][1];
        if (outflow && unM >= 0) val[1][2] = val[0][2], val[1][3] = val[0][3];
        const double lam = outflow ? fabs(unM) : lambda_factor * fmax(fabs(unM), fabs(unP));
        const double fu = 0.5 * gq[CF_SJ] * (unM * val[0][2] + unP * val[1][2] + lam * (val[0][2] - val[1][2]));
        const double fv = 0.5 * gq[CF_SJ] * (unM * val[0][3] + unP * val[1][3] + lam * (val[0][3] - val[1][3]));
        for (int j = 0; j < Nfp; ++j) wu[fn[f * Nfp + j]] += FI[q * Nfp + j] * fu, wv[fn[f * Nfp + j]] += FI[q * Nfp + j] * fv;
      }
    }
    add_inverse_mass(c, k, wu, Nu + e0), add_inverse_mass(c, k, wv, Nv + e0);
  }
}
