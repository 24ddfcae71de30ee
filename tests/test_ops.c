/* test_ops.c -- mesh geometry and the DG operators against exact results.
 *
 *  - geometry: exterior trace nodes coincide with interior ones, normals point outward,
 *    areas add up, tau follows eq. Ch2.PenaltyParameter;
 *  - G and D are exact on polynomial fields of degree <= N (their jumps vanish and the
 *    Dirichlet data are exact), and on discontinuous random data with random boundary data
 *    equal the strong form written out with the reference matrices, fused and in parts;
 *  - A (SIPDG), assembled column by column, is symmetric and positive definite for
 *    lambda = 0 with Dirichlet boundaries and for lambda > 0 with Neumann ones, has the
 *    constants as null space with Neumann boundaries and lambda = 0, and equals
 *    J M (-Lap u + lambda u) on elements away from the boundary for u of degree <= N, and
 *    on discontinuous random data (with and without boundary data) equals the interior
 *    penalty form written out with the reference matrices;
 *  - N(U) of a divergence-free polynomial velocity of degree k, 2k - 1 <= N, equals
 *    (u.grad)u, and Ntilde(Ubar, Ut) equals (Ubar.grad)Ut for deg Ubar + deg Ut - 1 <= N;
 *  - every operator gives the same result on one block as on three blocks with halos.
 * Usage: test_ops MESHDIR
 */
#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "block.h"
#include "error.h"
#include "gmsh.h"
#include "mesh.h"
#include "ops.h"
#include "poly.h"
#include "ref_tri.h"

#include "expect.h"

static double maxabs(const double *a, size_t n)
{
  double m = 0;
  for (size_t i = 0; i < n; ++i) m = fmax(m, fabs(a[i]));
  return m;
}

static double maxdiff(const double *a, const double *b, size_t n)
{
  double m = 0;
  for (size_t i = 0; i < n; ++i) m = fmax(m, fabs(a[i] - b[i]));
  return m;
}

static double *dalloc(size_t n) { return insdg_calloc(n, sizeof(double)); }

/* n values uniform in [-1, 1) from a linear congruential sequence (the same on every platform) */
static void random_values(double *x, size_t n, unsigned *seed)
{
  for (size_t i = 0; i < n; ++i) *seed = *seed * 1103515245u + 12345u, x[i] = ((*seed >> 8) & 0xffff) / 32768.0 - 1.0;
}

/* nodal values of d^dx d^dy p */
static void sample(const insdg_mesh *m, const poly *p, int dx, int dy, double *out)
{
  const size_t n = (size_t)m->K * m->ref->Np;
  for (size_t i = 0; i < n; ++i) out[i] = poly_eval(p, dx, dy, m->x[i], m->y[i]);
}

/* values at face nodes [K][3Nfp] of a nodal field (used as Dirichlet data) */
static void face_values(const insdg_mesh *m, const double *field, double *g)
{
  const insdg_ref *r = m->ref;
  for (int e = 0; e < m->K; ++e)
    for (int k = 0; k < 3 * r->Nfp; ++k) g[(size_t)e * 3 * r->Nfp + k] = field[(size_t)e * r->Np + r->face_nodes[k]];
}

static void all_codes(signed char code, signed char *codes)
{
  for (int i = 0; i < INSDG_MAX_BOUNDARIES; ++i) codes[i] = code;
}

/* ---- geometry ------------------------------------------------------------------- */
static void test_geometry(insdg_mesh *m, const char *label)
{
  const insdg_ref *r = m->ref;
  const int Np = r->Np, Nfp = r->Nfp;
  double worst_match = 0, area = 0, xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
  int bad_normal = 0, bad_tau = 0;
  for (int e = 0; e < m->K; ++e) {
    double cx = 0, cy = 0;
    for (int v = 0; v < 3; ++v) cx += m->vx[m->EToV[3 * e + v]] / 3, cy += m->vy[m->EToV[3 * e + v]] / 3;
    area += 2 * m->vgeo[e * INSDG_NVGEO + INSDG_J];
    for (int f = 0; f < 3; ++f) {
      const double *sg = m->sgeo + (e * 3 + f) * INSDG_NSGEO;
      const int a = m->EToV[3 * e + f], b = m->EToV[3 * e + (f + 1) % 3];
      const double mx = 0.5 * (m->vx[a] + m->vx[b]), my = 0.5 * (m->vy[a] + m->vy[b]);
      if (sg[INSDG_NX] * (mx - cx) + sg[INSDG_NY] * (my - cy) <= 0) ++bad_normal;
      if (fabs(hypot(sg[INSDG_NX], sg[INSDG_NY]) - 1) > 1e-14) ++bad_normal;
      const double len = hypot(m->vx[b] - m->vx[a], m->vy[b] - m->vy[a]);
      const double area_e = 2 * m->vgeo[e * INSDG_NVGEO + INSDG_J];
      const int e2 = m->EToE[3 * e + f];
      const double area2 = 2 * m->vgeo[e2 * INSDG_NVGEO + INSDG_J];
      const double tau = 0.5 * (r->N + 1) * (r->N + 2) * fmax(len / area_e, len / area2);
      if (fabs(sg[INSDG_TAU] - tau) > 1e-12 * tau || fabs(2 * sg[INSDG_SJ] - len) > 1e-14 * len) ++bad_tau;
      for (int j = 0; j < Nfp; ++j) {
        const int iM = e * Np + r->face_nodes[f * Nfp + j], iP = m->mapP[(e * 3 + f) * Nfp + j];
        worst_match = fmax(worst_match, hypot(m->x[iM] - m->x[iP], m->y[iM] - m->y[iP]));
        if (m->face_bnd[3 * e + f] < 0) EXPECT(iP / Np != e, "%s: interior face maps to itself", label);
      }
    }
    for (int i = 0; i < Np; ++i) {
      xmin = fmin(xmin, m->x[e * Np + i]), xmax = fmax(xmax, m->x[e * Np + i]);
      ymin = fmin(ymin, m->y[e * Np + i]), ymax = fmax(ymax, m->y[e * Np + i]);
    }
  }
  EXPECT(worst_match < 1e-12 * fmax(xmax - xmin, ymax - ymin), "%s N=%d: trace nodes differ by %.3e", label, r->N, worst_match);
  EXPECT(bad_normal == 0, "%s: %d normals not outward unit", label, bad_normal);
  EXPECT(bad_tau == 0, "%s: %d faces with wrong tau or sJ", label, bad_tau);
  printf("geometry %-10s N=%2d  K=%d  area %.12g  trace mismatch %.1e\n", label, r->N, m->K, area, worst_match);
}

/* ---- G and D on polynomials --------------------------------------------------------- */
static void test_grad_div(insdg_mesh *m, insdg_ops *op, const char *label)
{
  const insdg_ref *r = m->ref;
  const int N = r->N;
  const size_t n = (size_t)m->K * r->Np, nf = (size_t)m->K * 3 * r->Nfp;
  insdg_block *b = insdg_block_create(m, 0, m->K);
  double *p = dalloc(n), *px = dalloc(n), *py = dalloc(n), *ex = dalloc(n), *ey = dalloc(n), *g = dalloc(nf);
  double *u = dalloc(n), *v = dalloc(n), *gu = dalloc(nf), *gv = dalloc(nf), *div = dalloc(n), *ediv = dalloc(n);
  signed char codes[INSDG_MAX_BOUNDARIES], *bc = insdg_malloc(3 * (size_t)m->K);
  unsigned seed = 17u + N;
  /* Dirichlet on even boundaries, Neumann on odd ones: both are exact for exact data */
  for (int i = 0; i < INSDG_MAX_BOUNDARIES; ++i) codes[i] = i % 2 ? INSDG_BC_NEUMANN : INSDG_BC_DIRICHLET;
  insdg_block_bc_codes(b, codes, bc);
  for (int deg = 0; deg <= N; ++deg) {
    poly P = poly_random(deg, &seed), Pu = poly_random(deg, &seed), Pv = poly_random(deg, &seed);
    sample(m, &P, 0, 0, p), sample(m, &P, 1, 0, ex), sample(m, &P, 0, 1, ey);
    face_values(m, p, g);
    insdg_op_gradient(op, b, bc, g, p, NULL, px, py);
    const double scale = fmax(1, fmax(maxabs(ex, n), maxabs(ey, n)));
    const double err = fmax(maxdiff(px, ex, n), maxdiff(py, ey, n)) / scale;
    EXPECT(err < 1e-11, "%s N=%d deg=%d: G error %.3e", label, N, deg, err);

    sample(m, &Pu, 0, 0, u), sample(m, &Pv, 0, 0, v);
    for (size_t i = 0; i < n; ++i)
      ediv[i] = poly_eval(&Pu, 1, 0, m->x[i], m->y[i]) + poly_eval(&Pv, 0, 1, m->x[i], m->y[i]);
    face_values(m, u, gu), face_values(m, v, gv);
    insdg_vec_in U = {u, v, NULL, NULL, gu, gv};
    insdg_op_divergence(op, b, bc, &U, div);
    const double derr = maxdiff(div, ediv, n) / fmax(1, maxabs(ediv, n));
    EXPECT(derr < 1e-11, "%s N=%d deg=%d: D error %.3e", label, N, deg, derr);
    if (deg == N) printf("G, D exact   %-10s N=%2d  deg %d  errors %.1e %.1e\n", label, N, deg, err, derr);
  }
  /* and a field of degree N+1 is not differentiated exactly: the test can tell */
  poly Q = poly_random(N + 1, &seed);
  sample(m, &Q, 0, 0, p), sample(m, &Q, 1, 0, ex), sample(m, &Q, 0, 1, ey), face_values(m, p, g);
  insdg_op_gradient(op, b, bc, g, p, NULL, px, py);
  EXPECT(fmax(maxdiff(px, ex, n), maxdiff(py, ey, n)) > 1e-8, "%s N=%d: G exact on degree N+1?", label, N);
  free(p), free(px), free(py), free(ex), free(ey), free(g), free(u), free(v), free(gu), free(gv), free(div), free(ediv), free(bc);
  insdg_block_destroy(b);
}

/* ---- G and D on discontinuous data ---------------------------------------------------
   Random nodal values, independent per element, and random boundary data: the face jumps do
   not vanish, so the surface terms count. Checked against the strong form written out with
   the reference matrices (ref_tri.h) and the mesh's factors, node by node:
     G p = (rx Dr + sx Ds) p, (ry Dr + sy Ds) p  + LIFT (Fscale n (p* - p-)),
     D u = (rx Dr + sx Ds) u + (ry Dr + sy Ds) v + LIFT (Fscale n.(u* - u-)),
   with p* = (p- + p+)/2 inside, g on Dirichlet faces, p- on Neumann faces (ops.h); fused and
   in parts (local gradient + surface, volume + surface), as the task layer runs them. */
static void strong_grad(const insdg_mesh *m, const signed char *bc, const double *g, const double *p, int dir,
                        double *out)
{
  const insdg_ref *r = m->ref;
  const int Np = r->Np, Nfp = r->Nfp;
  for (int e = 0; e < m->K; ++e) {
    const double *vg = m->vgeo + e * INSDG_NVGEO, *pe = p + (size_t)e * Np;
    const double a = vg[dir ? INSDG_RY : INSDG_RX], c = vg[dir ? INSDG_SY : INSDG_SX];
    double flux[3 * INSDG_NMAX + 3];
    for (int f = 0; f < 3; ++f) {
      const double *sg = m->sgeo + (e * 3 + f) * INSDG_NSGEO;
      const double w = sg[INSDG_FSCALE] * sg[dir ? INSDG_NY : INSDG_NX];
      for (int j = 0; j < Nfp; ++j) {
        const int q = f * Nfp + j, iM = e * Np + r->face_nodes[q];
        const signed char code = bc[3 * e + f];
        const double pstar = code == INSDG_BC_INTERIOR   ? 0.5 * (p[iM] + p[m->mapP[(size_t)e * 3 * Nfp + q]])
                             : code == INSDG_BC_DIRICHLET ? g[(size_t)e * 3 * Nfp + q]
                                                          : p[iM];
        flux[q] = w * (pstar - p[iM]);
      }
    }
    for (int i = 0; i < Np; ++i) {
      double dr = 0, ds = 0, lift = 0;
      for (int j = 0; j < Np; ++j) dr += r->Dr[i * Np + j] * pe[j], ds += r->Ds[i * Np + j] * pe[j];
      for (int q = 0; q < 3 * Nfp; ++q) lift += r->LIFT[i * 3 * Nfp + q] * flux[q];
      out[(size_t)e * Np + i] += a * dr + c * ds + lift;
    }
  }
}

static void test_grad_div_jumps(insdg_mesh *m, insdg_ops *op, const char *label)
{
  const insdg_ref *r = m->ref;
  const size_t n = (size_t)m->K * r->Np, nf = (size_t)m->K * 3 * r->Nfp;
  insdg_block *b = insdg_block_create(m, 0, m->K);
  signed char codes[INSDG_MAX_BOUNDARIES], *bc = insdg_malloc(3 * (size_t)m->K);
  for (int i = 0; i < INSDG_MAX_BOUNDARIES; ++i) codes[i] = i % 2 ? INSDG_BC_NEUMANN : INSDG_BC_DIRICHLET;
  insdg_block_bc_codes(b, codes, bc);
  double *u = dalloc(n), *v = dalloc(n), *gu = dalloc(nf), *gv = dalloc(nf);
  double *ex = dalloc(n), *ey = dalloc(n), *ediv = dalloc(n), *px = dalloc(n), *py = dalloc(n), *div = dalloc(n);
  unsigned seed = 991u + (unsigned)r->N;
  random_values(u, n, &seed), random_values(v, n, &seed), random_values(gu, nf, &seed), random_values(gv, nf, &seed);
  strong_grad(m, bc, gu, u, 0, ex), strong_grad(m, bc, gu, u, 1, ey);
  strong_grad(m, bc, gu, u, 0, ediv), strong_grad(m, bc, gv, v, 1, ediv);
  /* the surface part alone, to tell that it is not small beside the volume part */
  double surf = 0;
  {
    double *vol = dalloc(n), *vy = dalloc(n);
    insdg_op_local_gradient(op, b, u, vol, vy);
    surf = fmax(maxdiff(ex, vol, n), maxdiff(ey, vy, n));
    free(vol), free(vy);
  }
  const double gs = fmax(maxabs(ex, n), maxabs(ey, n)), ds = maxabs(ediv, n);
  insdg_vec_in U = {u, v, NULL, NULL, gu, gv};
  for (int parts = 0; parts < 2; ++parts) {
    memset(px, 0, sizeof(double) * n), memset(py, 0, sizeof(double) * n), memset(div, 0, sizeof(double) * n);
    if (parts) {
      insdg_op_local_gradient(op, b, u, px, py);
      insdg_op_gradient_surface(op, b, bc, gu, u, NULL, px, py);
      insdg_op_divergence_volume(op, b, u, v, div);
      insdg_op_divergence_surface(op, b, bc, &U, div);
    } else {
      insdg_op_gradient(op, b, bc, gu, u, NULL, px, py);
      insdg_op_divergence(op, b, bc, &U, div);
    }
    const double gerr = fmax(maxdiff(px, ex, n), maxdiff(py, ey, n)) / gs, derr = maxdiff(div, ediv, n) / ds;
    EXPECT(gerr < 1e-13, "%s N=%d: G on discontinuous data (%s): error %.3e of %.3e", label, r->N,
           parts ? "in parts" : "fused", gerr, gs);
    EXPECT(derr < 1e-13, "%s N=%d: D on discontinuous data (%s): error %.3e of %.3e", label, r->N,
           parts ? "in parts" : "fused", derr, ds);
    if (parts) printf("G, D jumps   %-10s N=%2d  errors %.1e %.1e (surface part %.2f of G)\n", label, r->N, gerr, derr, surf / gs);
  }
  EXPECT(surf > 0.1 * gs, "%s N=%d: the jumps hardly count (%.3e of %.3e)", label, r->N, surf, gs);
  free(u), free(v), free(gu), free(gv), free(ex), free(ey), free(ediv), free(px), free(py), free(div), free(bc);
  insdg_block_destroy(b);
}

/* ---- SIPDG -------------------------------------------------------------------------- */
static void apply_A(insdg_ops *op, insdg_block *b, const signed char *bc, double lambda, const double *u,
                    double *ux, double *uy, double *Au)
{
  insdg_op_local_gradient(op, b, u, ux, uy);
  insdg_op_sipdg(op, b, bc, lambda, u, ux, uy, NULL, NULL, NULL, Au);
}

/* assemble A column by column; returns it (n x n, column j = A e_j) */
static double *assemble_A(insdg_ops *op, insdg_block *b, const signed char *bc, double lambda, size_t n)
{
  double *A = dalloc(n * n), *u = dalloc(n), *ux = dalloc(n), *uy = dalloc(n);
  for (size_t j = 0; j < n; ++j) {
    u[j] = 1;
    apply_A(op, b, bc, lambda, u, ux, uy, A + j * n);
    u[j] = 0;
  }
  free(u), free(ux), free(uy);
  return A;
}

static double min_eigenvalue(const double *A, size_t n)
{
  double *copy = dalloc(n * n), *w = dalloc(n);
  memcpy(copy, A, sizeof(double) * n * n);
  INSDG_CHECK(LAPACKE_dsyev(LAPACK_COL_MAJOR, 'N', 'U', (lapack_int)n, copy, (lapack_int)n, w) == 0);
  const double lmin = w[0];
  free(copy), free(w);
  return lmin;
}

static void test_sipdg_matrix(insdg_mesh *m, insdg_ops *op, const char *label)
{
  const insdg_ref *r = m->ref;
  const size_t n = (size_t)m->K * r->Np;
  insdg_block *b = insdg_block_create(m, 0, m->K);
  signed char codes[INSDG_MAX_BOUNDARIES], *dir = insdg_malloc(3 * (size_t)m->K), *neu = insdg_malloc(3 * (size_t)m->K);
  all_codes(INSDG_BC_DIRICHLET, codes), insdg_block_bc_codes(b, codes, dir);
  all_codes(INSDG_BC_NEUMANN, codes), insdg_block_bc_codes(b, codes, neu);
  struct { const signed char *bc; double lambda; const char *name; int definite; } cases[] = {
      {dir, 0.0, "Dirichlet, lambda=0", 1}, {neu, 10.0, "Neumann, lambda=10", 1},
      {dir, 10.0, "Dirichlet, lambda=10", 1}, {neu, 0.0, "Neumann, lambda=0", 0}};
  for (int c = 0; c < 4; ++c) {
    double *A = assemble_A(op, b, cases[c].bc, cases[c].lambda, n);
    double norm = 0, asym = 0;
    for (size_t i = 0; i < n * n; ++i) norm = fmax(norm, fabs(A[i]));
    for (size_t i = 0; i < n; ++i)
      for (size_t j = 0; j < i; ++j) asym = fmax(asym, fabs(A[i * n + j] - A[j * n + i]));
    EXPECT(asym <= 1e-12 * norm, "%s N=%d %s: |A-A^T| = %.3e |A| = %.3e", label, r->N, cases[c].name, asym, norm);
    const double lmin = min_eigenvalue(A, n);
    if (cases[c].definite) {
      double *chol = dalloc(n * n);
      memcpy(chol, A, sizeof(double) * n * n);
      const lapack_int info = LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', (lapack_int)n, chol, (lapack_int)n);
      free(chol);
      EXPECT(info == 0 && lmin > 0, "%s N=%d %s: not positive definite (dpotrf %d, lambda_min %.3e)", label,
             r->N, cases[c].name, (int)info, lmin);
    } else {
      /* null space: the constants */
      double *one = dalloc(n), *A1 = dalloc(n), *ux = dalloc(n), *uy = dalloc(n);
      for (size_t i = 0; i < n; ++i) one[i] = 1;
      apply_A(op, b, cases[c].bc, 0.0, one, ux, uy, A1);
      EXPECT(maxabs(A1, n) < 1e-12 * norm, "%s N=%d: Neumann A 1 = %.3e", label, r->N, maxabs(A1, n));
      EXPECT(lmin > -1e-12 * norm, "%s N=%d: Neumann A has a negative eigenvalue %.3e", label, r->N, lmin);
      free(one), free(A1), free(ux), free(uy);
    }
    printf("SIPDG matrix %-10s N=%2d  n=%zu  %-22s |A-A^T|/|A| = %.1e  lambda_min = %.3e\n", label, r->N, n,
           cases[c].name, asym / norm, lmin);
    free(A);
  }
  free(dir), free(neu);
  insdg_block_destroy(b);
}

/* A u = J M (-Lap u + lambda u) on elements with no boundary face, for deg u <= N */
static void test_sipdg_consistency(insdg_mesh *m, insdg_ops *op, const char *label)
{
  const insdg_ref *r = m->ref;
  const int Np = r->Np;
  const size_t n = (size_t)m->K * Np;
  insdg_block *b = insdg_block_create(m, 0, m->K);
  signed char codes[INSDG_MAX_BOUNDARIES], *bc = insdg_malloc(3 * (size_t)m->K);
  all_codes(INSDG_BC_DIRICHLET, codes), insdg_block_bc_codes(b, codes, bc);
  double *u = dalloc(n), *ux = dalloc(n), *uy = dalloc(n), *Au = dalloc(n), *rhs = dalloc(n);
  unsigned seed = 99u + r->N;
  const double lambda = 3.0;
  poly P = poly_random(r->N, &seed);
  sample(m, &P, 0, 0, u);
  for (size_t i = 0; i < n; ++i) rhs[i] = -poly_eval(&P, 2, 0, m->x[i], m->y[i]) - poly_eval(&P, 0, 2, m->x[i], m->y[i]) + lambda * u[i];
  apply_A(op, b, bc, lambda, u, ux, uy, Au);
  double err = 0, scale = 0;
  int checked = 0;
  for (int e = 0; e < m->K; ++e) {
    if (m->face_bnd[3 * e] >= 0 || m->face_bnd[3 * e + 1] >= 0 || m->face_bnd[3 * e + 2] >= 0) continue;
    ++checked;
    const double J = m->vgeo[e * INSDG_NVGEO + INSDG_J];
    for (int i = 0; i < Np; ++i) {
      double ref_val = 0;
      for (int j = 0; j < Np; ++j) ref_val += J * r->M[i * Np + j] * rhs[(size_t)e * Np + j];
      err = fmax(err, fabs(Au[(size_t)e * Np + i] - ref_val));
      scale = fmax(scale, fabs(ref_val));
    }
  }
  EXPECT(checked > 0 && err <= 1e-10 * fmax(scale, 1e-300), "%s N=%d: SIPDG consistency error %.3e (scale %.3e)", label, r->N, err, scale);
  printf("SIPDG consistency %-10s N=%2d  %d interior elements  rel error %.1e\n", label, r->N, checked, err / scale);
  free(u), free(ux), free(uy), free(Au), free(rhs), free(bc);
  insdg_block_destroy(b);
}


/* With exact boundary data (values on Dirichlet faces, normal derivatives on Neumann
   faces) the affine operator A_g u equals J M (-Lap u + lambda u) on EVERY element for u
   of degree <= N: checks the boundary treatment of insdg_op_sipdg_data, both kinds. */
static void test_sipdg_boundary_data(insdg_mesh *m, insdg_ops *op, const char *label)
{
  const insdg_ref *r = m->ref;
  const int Np = r->Np, Nfp = r->Nfp;
  const size_t n = (size_t)m->K * Np, nf = (size_t)m->K * 3 * Nfp;
  insdg_block *b = insdg_block_create(m, 0, m->K);
  signed char codes[INSDG_MAX_BOUNDARIES], *bc = insdg_malloc(3 * (size_t)m->K);
  for (int i = 0; i < INSDG_MAX_BOUNDARIES; ++i) codes[i] = i % 2 ? INSDG_BC_NEUMANN : INSDG_BC_DIRICHLET;
  insdg_block_bc_codes(b, codes, bc);
  double *u = dalloc(n), *ux = dalloc(n), *uy = dalloc(n), *Au = dalloc(n), *rhs = dalloc(n), *g = dalloc(nf);
  unsigned seed = 321u + r->N;
  const double lambda = 2.0;
  poly P = poly_random(r->N, &seed);
  sample(m, &P, 0, 0, u);
  for (size_t i = 0; i < n; ++i)
    rhs[i] = -poly_eval(&P, 2, 0, m->x[i], m->y[i]) - poly_eval(&P, 0, 2, m->x[i], m->y[i]) + lambda * u[i];
  for (int e = 0; e < m->K; ++e)
    for (int k = 0; k < 3 * Nfp; ++k) {
      const int f = k / Nfp;
      const size_t node = (size_t)e * Np + r->face_nodes[k];
      const double *sg = m->sgeo + ((size_t)e * 3 + f) * INSDG_NSGEO, x = m->x[node], y = m->y[node];
      g[(size_t)e * 3 * Nfp + k] = bc[3 * e + f] == INSDG_BC_NEUMANN
                                       ? sg[INSDG_NX] * poly_eval(&P, 1, 0, x, y) + sg[INSDG_NY] * poly_eval(&P, 0, 1, x, y)
                                       : poly_eval(&P, 0, 0, x, y);
    }
  insdg_op_local_gradient(op, b, u, ux, uy);
  insdg_op_sipdg_data(op, b, bc, g, lambda, u, ux, uy, NULL, NULL, NULL, Au);
  double err = 0, scale = 0;
  for (int e = 0; e < m->K; ++e) {
    const double J = m->vgeo[e * INSDG_NVGEO + INSDG_J];
    for (int i = 0; i < Np; ++i) {
      double want = 0;
      for (int j = 0; j < Np; ++j) want += J * r->M[i * Np + j] * rhs[(size_t)e * Np + j];
      err = fmax(err, fabs(Au[(size_t)e * Np + i] - want)), scale = fmax(scale, fabs(want));
    }
  }
  EXPECT(err <= 1e-10 * scale, "%s N=%d: SIPDG with boundary data: error %.3e (scale %.3e)", label, r->N, err, scale);
  free(u), free(ux), free(uy), free(Au), free(rhs), free(g), free(bc);
  insdg_block_destroy(b);
}

/* ---- SIPDG on discontinuous data -------------------------------------------------------
   A u on random nodal values, independent per element, against the symmetric interior penalty
   form written out with the reference matrices, row i of element e (l_i its basis function,
   Dx = rx Dr + sx Ds, Dy likewise, E_f = sJ_f M LIFT_f the face mass):
     J [Dx^T M Dx u + Dy^T M Dy u + lambda M u]_i
     + sum_f [E_f (tau (u- - u+) - n.{grad u})]_i - [(nx Dx^T + ny Dy^T) E_f (u- - u+) / 2]_i,
   the exterior values by the codes of ops.h (Dirichlet u+ = 2g - u-, grad u+ = grad u-;
   Neumann u+ = u-, grad u+ = -grad u- + 2 g n), g = 0 for insdg_op_sipdg and random for
   insdg_op_sipdg_data; lambda = 0 (the pressure's path, M's columns skipped) and > 0. The
   symmetry, definiteness and polynomial checks above cannot see a face term's factor that
   keeps the matrix symmetric, and run the matrix only up to N = 5. */
static void sipdg_form(const insdg_mesh *m, const signed char *bc, const double *g, double lambda,
                       const double *u, double *out)
{
  const insdg_ref *r = m->ref;
  const int Np = r->Np, Nfp = r->Nfp, NF = 3 * Nfp;
  const size_t n = (size_t)m->K * Np;
  double *gx = dalloc(n), *gy = dalloc(n), *T = dalloc((size_t)Np * NF), *Dx = dalloc((size_t)Np * Np),
         *Dy = dalloc((size_t)Np * Np), *w = dalloc((size_t)Np * 4), *a = dalloc(NF), *c = dalloc(NF);
  for (int i = 0; i < Np; ++i)
    for (int q = 0; q < NF; ++q)
      for (int k = 0; k < Np; ++k) T[i * NF + q] += r->M[i * Np + k] * r->LIFT[k * NF + q];
  for (int pass = 0; pass < 2; ++pass)
    for (int e = 0; e < m->K; ++e) {
      const double *vg = m->vgeo + e * INSDG_NVGEO, *ue = u + (size_t)e * Np;
      for (int i = 0; i < Np * Np; ++i)
        Dx[i] = vg[INSDG_RX] * r->Dr[i] + vg[INSDG_SX] * r->Ds[i], Dy[i] = vg[INSDG_RY] * r->Dr[i] + vg[INSDG_SY] * r->Ds[i];
      if (pass == 0) {   /* every element's gradient first: the faces read the neighbours' */
        for (int i = 0; i < Np; ++i)
          for (int j = 0; j < Np; ++j)
            gx[(size_t)e * Np + i] += Dx[i * Np + j] * ue[j], gy[(size_t)e * Np + i] += Dy[i * Np + j] * ue[j];
        continue;
      }
      const double *ex = gx + (size_t)e * Np, *ey = gy + (size_t)e * Np;
      double *o = out + (size_t)e * Np;
      memset(w, 0, sizeof(double) * (size_t)Np * 3);
      for (int i = 0; i < Np; ++i)   /* w = [M Dx u, M Dy u, M u] */
        for (int j = 0; j < Np; ++j)
          w[i] += r->M[i * Np + j] * ex[j], w[Np + i] += r->M[i * Np + j] * ey[j], w[2 * Np + i] += r->M[i * Np + j] * ue[j];
      for (int i = 0; i < Np; ++i) {
        double t = lambda * w[2 * Np + i];
        for (int k = 0; k < Np; ++k) t += Dx[k * Np + i] * w[k] + Dy[k * Np + i] * w[Np + k];
        o[i] = vg[INSDG_J] * t;
      }
      for (int f = 0; f < 3; ++f) {
        const double *sg = m->sgeo + (e * 3 + f) * INSDG_NSGEO;
        const double nx = sg[INSDG_NX], ny = sg[INSDG_NY], tau = sg[INSDG_TAU], sJ = sg[INSDG_SJ];
        const signed char code = bc[3 * e + f];
        for (int q = f * Nfp; q < (f + 1) * Nfp; ++q) {
          const size_t iM = (size_t)e * Np + r->face_nodes[q], iP = (size_t)m->mapP[(size_t)e * NF + q];
          const double gq = g ? g[(size_t)e * NF + q] : 0.0;
          double uP = u[iP], gxP = gx[iP], gyP = gy[iP];
          if (code == INSDG_BC_DIRICHLET) uP = 2 * gq - u[iM], gxP = gx[iM], gyP = gy[iM];
          if (code == INSDG_BC_NEUMANN) uP = u[iM], gxP = -gx[iM] + 2 * gq * nx, gyP = -gy[iM] + 2 * gq * ny;
          a[q] = tau * (u[iM] - uP) - 0.5 * (nx * (gx[iM] + gxP) + ny * (gy[iM] + gyP));
          c[q] = 0.5 * (u[iM] - uP);
        }
        for (int i = 0; i < Np; ++i) {
          double t = 0;
          for (int q = f * Nfp; q < (f + 1) * Nfp; ++q) {
            double dnT = 0;   /* [(nx Dx^T + ny Dy^T) M LIFT]_iq */
            for (int k = 0; k < Np; ++k) dnT += (nx * Dx[k * Np + i] + ny * Dy[k * Np + i]) * T[k * NF + q];
            t += T[i * NF + q] * a[q] - dnT * c[q];
          }
          o[i] += sJ * t;
        }
      }
    }
  free(gx), free(gy), free(T), free(Dx), free(Dy), free(w), free(a), free(c);
}

static void test_sipdg_jumps(insdg_mesh *m, insdg_ops *op, const char *label)
{
  const insdg_ref *r = m->ref;
  const size_t n = (size_t)m->K * r->Np, nf = (size_t)m->K * 3 * r->Nfp;
  insdg_block *b = insdg_block_create(m, 0, m->K);
  signed char codes[INSDG_MAX_BOUNDARIES], *bc = insdg_malloc(3 * (size_t)m->K);
  for (int i = 0; i < INSDG_MAX_BOUNDARIES; ++i) codes[i] = i % 2 ? INSDG_BC_DIRICHLET : INSDG_BC_NEUMANN;
  insdg_block_bc_codes(b, codes, bc);
  double *u = dalloc(n), *g = dalloc(nf), *ux = dalloc(n), *uy = dalloc(n), *Au = dalloc(n), *ref = dalloc(n);
  unsigned seed = 3113u + (unsigned)r->N;
  random_values(u, n, &seed), random_values(g, nf, &seed);
  insdg_op_local_gradient(op, b, u, ux, uy);
  double worst = 0;
  for (int c = 0; c < 3; ++c) {
    const double lambda = c ? 0.7 : 0.0;
    const double *data = c == 2 ? g : NULL;
    sipdg_form(m, bc, data, lambda, u, ref);
    if (data) insdg_op_sipdg_data(op, b, bc, data, lambda, u, ux, uy, NULL, NULL, NULL, Au);
    else insdg_op_sipdg(op, b, bc, lambda, u, ux, uy, NULL, NULL, NULL, Au);
    const double err = maxdiff(Au, ref, n) / maxabs(ref, n);
    worst = fmax(worst, err);
    EXPECT(err < 1e-13, "%s N=%d: SIPDG on discontinuous data (lambda %g, %s): error %.3e of %.3e", label, r->N,
           lambda, data ? "with data" : "homogeneous", err, maxabs(ref, n));
  }
  printf("SIPDG jumps  %-10s N=%2d  error %.1e (lambda 0, 0.7, with data)\n", label, r->N, worst);
  free(u), free(g), free(ux), free(uy), free(Au), free(ref), free(bc);
  insdg_block_destroy(b);
}

/* ---- advection ---------------------------------------------------------------------- */
static void test_advection(insdg_mesh *m, insdg_ops *op, const char *label)
{
  const insdg_ref *r = m->ref;
  const int N = r->N;
  const size_t n = (size_t)m->K * r->Np, nf = (size_t)m->K * 3 * r->Nfp;
  insdg_block *b = insdg_block_create(m, 0, m->K);
  signed char codes[INSDG_MAX_BOUNDARIES], *bc = insdg_malloc(3 * (size_t)m->K);
  all_codes(INSDG_BC_DIRICHLET, codes), insdg_block_bc_codes(b, codes, bc);
  double *u = dalloc(n), *v = dalloc(n), *gu = dalloc(nf), *gv = dalloc(nf), *Nu = dalloc(n), *Nv = dalloc(n);
  double *eu = dalloc(n), *ev = dalloc(n), *wu = dalloc(n), *wv = dalloc(n), *gwu = dalloc(nf), *gwv = dalloc(nf);
  unsigned seed = 7u + N;
  const int k = (N + 1) / 2;               /* velocity degree: (u.grad)u has degree 2k-1 <= N */
  poly psi = poly_random(k + 1, &seed);    /* u = psi_y, v = -psi_x: divergence free */
  for (size_t i = 0; i < n; ++i) {
    const double x = m->x[i], y = m->y[i];
    u[i] = poly_eval(&psi, 0, 1, x, y), v[i] = -poly_eval(&psi, 1, 0, x, y);
    const double ux = poly_eval(&psi, 1, 1, x, y), uy = poly_eval(&psi, 0, 2, x, y);
    const double vx = -poly_eval(&psi, 2, 0, x, y), vy = -poly_eval(&psi, 1, 1, x, y);
    eu[i] = u[i] * ux + v[i] * uy, ev[i] = u[i] * vx + v[i] * vy;
  }
  face_values(m, u, gu), face_values(m, v, gv);
  insdg_vec_in U = {u, v, NULL, NULL, gu, gv};
  insdg_op_advection(op, b, bc, &U, Nu, Nv);
  const double scale = fmax(1, fmax(maxabs(eu, n), maxabs(ev, n)));
  const double err = fmax(maxdiff(Nu, eu, n), maxdiff(Nv, ev, n)) / scale;
  EXPECT(err < 1e-11, "%s N=%d: N(U) error %.3e (velocity degree %d)", label, N, err, k);

  /* Ntilde(Ubar, W) = (Ubar.grad) W for deg Ubar + deg W - 1 <= N */
  const int kb = (N + 1) / 2 > 0 ? (N + 1) / 2 : 1, kw = N + 1 - kb;
  poly psib = poly_random(kb + 1, &seed), Pw = poly_random(kw, &seed), Qw = poly_random(kw, &seed);
  for (size_t i = 0; i < n; ++i) {
    const double x = m->x[i], y = m->y[i];
    u[i] = poly_eval(&psib, 0, 1, x, y), v[i] = -poly_eval(&psib, 1, 0, x, y);
    wu[i] = poly_eval(&Pw, 0, 0, x, y), wv[i] = poly_eval(&Qw, 0, 0, x, y);
    eu[i] = u[i] * poly_eval(&Pw, 1, 0, x, y) + v[i] * poly_eval(&Pw, 0, 1, x, y);
    ev[i] = u[i] * poly_eval(&Qw, 1, 0, x, y) + v[i] * poly_eval(&Qw, 0, 1, x, y);
  }
  face_values(m, u, gu), face_values(m, v, gv), face_values(m, wu, gwu), face_values(m, wv, gwv);
  insdg_vec_in W = {wu, wv, NULL, NULL, gwu, gwv};
  insdg_op_subcycle(op, b, bc, &U, &W, Nu, Nv);
  const double scale2 = fmax(1, fmax(maxabs(eu, n), maxabs(ev, n)));
  const double err2 = fmax(maxdiff(Nu, eu, n), maxdiff(Nv, ev, n)) / scale2;
  EXPECT(err2 < 1e-11, "%s N=%d: Ntilde error %.3e", label, N, err2);
  printf("advection    %-10s N=%2d  N(U) error %.1e (deg u %d)   Ntilde error %.1e (deg %d, %d)\n", label, N, err, k, err2, kb, kw);
  free(u), free(v), free(gu), free(gv), free(Nu), free(Nv), free(eu), free(ev), free(wu), free(wv), free(gwu), free(gwv), free(bc);
  insdg_block_destroy(b);
}


/* 1^T A 1 with Dirichlet faces: only the boundary penalty survives, 2 tau |f| per
   boundary face (u+ = -u- doubles the jump), plus lambda * area. Checks tau enters. */
static void test_sipdg_penalty(insdg_mesh *m, insdg_ops *op, const char *label)
{
  const insdg_ref *r = m->ref;
  const size_t n = (size_t)m->K * r->Np;
  insdg_block *b = insdg_block_create(m, 0, m->K);
  signed char codes[INSDG_MAX_BOUNDARIES], *bc = insdg_malloc(3 * (size_t)m->K);
  all_codes(INSDG_BC_DIRICHLET, codes), insdg_block_bc_codes(b, codes, bc);
  double *one = dalloc(n), *ux = dalloc(n), *uy = dalloc(n), *A1 = dalloc(n);
  for (size_t i = 0; i < n; ++i) one[i] = 1;
  const double lambda = 0.5;
  apply_A(op, b, bc, lambda, one, ux, uy, A1);
  double got = 0, expect = 0;
  for (size_t i = 0; i < n; ++i) got += A1[i];
  for (int e = 0; e < m->K; ++e) {
    expect += lambda * 2 * m->vgeo[e * INSDG_NVGEO + INSDG_J];
    for (int f = 0; f < 3; ++f)
      if (m->face_bnd[3 * e + f] >= 0) {
        const double *sg = m->sgeo + (e * 3 + f) * INSDG_NSGEO;
        expect += 2 * sg[INSDG_TAU] * 2 * sg[INSDG_SJ];
      }
  }
  EXPECT(fabs(got - expect) <= 1e-11 * expect, "%s N=%d: 1'A1 = %.15g, expected %.15g", label, r->N, got, expect);
  free(one), free(ux), free(uy), free(A1), free(bc);
  insdg_block_destroy(b);
}

/* For piecewise-constant fields the element mean of M N is a finite-volume flux sum:
   Ntilde with constant Ubar gives the upwind flux (Lambda = |n.ubar|), N(U) the local
   Lax-Friedrichs flux with Lambda = 2 max|n.u|; on the outflow boundary both are upwind,
   un U- where the flow leaves and un g (the data) where it enters. Checks the sign and
   size of the dissipation, which exactness on continuous fields cannot see. */
static void test_advection_flux(insdg_mesh *m, insdg_ops *op, const char *label)
{
  const insdg_ref *r = m->ref;
  const int Np = r->Np, K = m->K;
  const size_t n = (size_t)K * Np, nf = (size_t)K * 3 * r->Nfp;
  insdg_block *b = insdg_block_create(m, 0, K);
  signed char codes[INSDG_MAX_BOUNDARIES], *bc = insdg_malloc(3 * (size_t)K);
  all_codes(INSDG_BC_NEUMANN, codes), insdg_block_bc_codes(b, codes, bc);
  double *cu = dalloc(K), *cv = dalloc(K), *u = dalloc(n), *v = dalloc(n), *ub = dalloc(n), *vb = dalloc(n);
  double *Nu = dalloc(n), *Nv = dalloc(n), *g = dalloc(nf);
  unsigned seed = 4242u;
  for (int e = 0; e < K; ++e) {
    seed = seed * 1103515245u + 12345u, cu[e] = ((seed >> 8) & 0xffff) / 32768.0 - 1.0;
    seed = seed * 1103515245u + 12345u, cv[e] = ((seed >> 8) & 0xffff) / 32768.0 - 1.0;
    for (int i = 0; i < Np; ++i) u[e * Np + i] = cu[e], v[e * Np + i] = cv[e], ub[e * Np + i] = 0.7, vb[e * Np + i] = -0.4;
  }
  const double gval = 0.25;   /* outflow data, taken where the flow enters */
  for (size_t q = 0; q < nf; ++q) g[q] = gval;
  for (int pass = 0; pass < 2; ++pass) {
    insdg_vec_in U = {u, v, NULL, NULL, g, g}, Ub = {ub, vb, NULL, NULL, g, g};
    if (pass == 0) insdg_op_subcycle(op, b, bc, &Ub, &U, Nu, Nv);
    else insdg_op_advection(op, b, bc, &U, Nu, Nv);
    double worst = 0;
    for (int e = 0; e < K; ++e) {
      double mean_u = 0, mean_v = 0, flux_u = 0, flux_v = 0;
      for (int i = 0; i < Np; ++i)
        for (int j = 0; j < Np; ++j)
          mean_u += m->vgeo[e * INSDG_NVGEO + INSDG_J] * r->M[i * Np + j] * Nu[e * Np + j],
          mean_v += m->vgeo[e * INSDG_NVGEO + INSDG_J] * r->M[i * Np + j] * Nv[e * Np + j];
      for (int f = 0; f < 3; ++f) {
        const double *sg = m->sgeo + (e * 3 + f) * INSDG_NSGEO;
        const int e2 = m->EToE[3 * e + f];   /* boundary faces point to e itself: outflow */
        const double nx = sg[INSDG_NX], ny = sg[INSDG_NY], len = 2 * sg[INSDG_SJ];
        if (e2 == e) {
          const double un = pass == 0 ? nx * 0.7 - ny * 0.4 : nx * cu[e] + ny * cv[e];
          flux_u += len * un * (un >= 0 ? cu[e] : gval), flux_v += len * un * (un >= 0 ? cv[e] : gval);
        } else if (pass == 0) {
          const double un = nx * 0.7 - ny * 0.4;
          const int up = un >= 0 ? e : e2;
          flux_u += len * un * cu[up], flux_v += len * un * cv[up];
        } else {
          const double unM = nx * cu[e] + ny * cv[e], unP = nx * cu[e2] + ny * cv[e2];
          const double lam = 2 * fmax(fabs(unM), fabs(unP));
          flux_u += len * 0.5 * (unM * cu[e] + unP * cu[e2] + lam * (cu[e] - cu[e2]));
          flux_v += len * 0.5 * (unM * cv[e] + unP * cv[e2] + lam * (cv[e] - cv[e2]));
        }
      }
      worst = fmax(worst, fmax(fabs(mean_u - flux_u), fabs(mean_v - flux_v)));
    }
    EXPECT(worst < 1e-12, "%s N=%d: %s element means differ from the flux sums by %.3e", label, r->N,
           pass ? "N(U)" : "Ntilde", worst);
  }
  free(cu), free(cv), free(u), free(v), free(ub), free(vb), free(Nu), free(Nv), free(g), free(bc);
  insdg_block_destroy(b);
}

/* ---- blocks with halos give the same result as one block ---------------------------- */
static void test_blocks(insdg_mesh *m, insdg_ops *op, const char *label)
{
  const insdg_ref *r = m->ref;
  const int Np = r->Np, Nfp = r->Nfp, K = m->K;
  const size_t n = (size_t)K * Np, nf = (size_t)K * 3 * Nfp;
  enum { NB = 3 };
  int cut[NB + 1] = {0, K / 3, (2 * K) / 3, K};
  insdg_block *whole = insdg_block_create(m, 0, K);
  signed char codes[INSDG_MAX_BOUNDARIES], *bc = insdg_malloc(3 * (size_t)K);
  for (int i = 0; i < INSDG_MAX_BOUNDARIES; ++i) codes[i] = i % 2 ? INSDG_BC_NEUMANN : INSDG_BC_DIRICHLET;
  insdg_block_bc_codes(whole, codes, bc);
  double *f[4], *ref_out[7], *blk_out[7], *g = dalloc(nf);
  for (int i = 0; i < 4; ++i) f[i] = dalloc(n);
  for (int i = 0; i < 7; ++i) ref_out[i] = dalloc(n), blk_out[i] = dalloc(n);
  for (size_t i = 0; i < n; ++i)
    f[0][i] = sin(m->x[i] + 2 * m->y[i]), f[1][i] = cos(3 * m->x[i] - m->y[i]), f[2][i] = m->x[i] * m->y[i],
    f[3][i] = exp(0.3 * m->x[i]);
  for (size_t i = 0; i < nf; ++i) g[i] = 0.1 * (double)(i % 7);
  /* one block */
  insdg_vec_in U = {f[0], f[1], NULL, NULL, g, g}, Wt = {f[2], f[3], NULL, NULL, g, g};
  insdg_op_gradient(op, whole, bc, g, f[0], NULL, ref_out[0], ref_out[1]);
  insdg_op_divergence(op, whole, bc, &U, ref_out[2]);
  insdg_op_local_gradient(op, whole, f[0], blk_out[0], blk_out[1]);
  insdg_op_sipdg(op, whole, bc, 2.0, f[0], blk_out[0], blk_out[1], NULL, NULL, NULL, ref_out[3]);
  insdg_op_subcycle(op, whole, bc, &U, &Wt, ref_out[4], ref_out[5]);
  memcpy(ref_out[6], ref_out[3], sizeof(double) * n);   /* SIPDG again, in parts per block */
  /* three blocks; the gradient of f[0] for SIPDG is computed globally first (its halo) */
  double *ux = dalloc(n), *uy = dalloc(n);
  insdg_op_local_gradient(op, whole, f[0], ux, uy);
  for (int k = 0; k < NB; ++k) {
    insdg_block *b = insdg_block_create(m, cut[k], cut[k + 1]);
    EXPECT(b->nhalo > 0, "%s: block %d has no halo", label, k);
    const size_t off = (size_t)cut[k] * Np, offf = (size_t)cut[k] * 3 * Nfp;
    double *h[4], *hx = dalloc((size_t)b->nhalo), *hy = dalloc((size_t)b->nhalo);
    for (int i = 0; i < 4; ++i) h[i] = dalloc((size_t)b->nhalo), insdg_block_gather_halo(b, f[i], h[i]);
    insdg_block_gather_halo(b, ux, hx), insdg_block_gather_halo(b, uy, hy);
    const signed char *bcb = bc + 3 * cut[k];
    insdg_vec_in Ub = {f[0] + off, f[1] + off, h[0], h[1], g + offf, g + offf};
    insdg_vec_in Wb = {f[2] + off, f[3] + off, h[2], h[3], g + offf, g + offf};
    insdg_op_gradient(op, b, bcb, g + offf, f[0] + off, h[0], blk_out[0] + off, blk_out[1] + off);
    insdg_op_divergence(op, b, bcb, &Ub, blk_out[2] + off);
    insdg_op_sipdg(op, b, bcb, 2.0, f[0] + off, ux + off, uy + off, h[0], hx, hy, blk_out[3] + off);
    /* SIPDG in parts, as the task layer runs it: [0, Kin) without halos (NULL: none read),
       then the rest in two pieces */
    const int Kin = b->Kin, mid = Kin + (b->K - Kin) / 2;
    insdg_op_sipdg_elements(op, b, bcb, NULL, 2.0, f[0] + off, ux + off, uy + off, NULL, NULL, NULL, blk_out[6] + off, 0, Kin);
    insdg_op_sipdg_elements(op, b, bcb, NULL, 2.0, f[0] + off, ux + off, uy + off, h[0], hx, hy, blk_out[6] + off, Kin, mid);
    insdg_op_sipdg_elements(op, b, bcb, NULL, 2.0, f[0] + off, ux + off, uy + off, h[0], hx, hy, blk_out[6] + off, mid, b->K);
    insdg_op_subcycle(op, b, bcb, &Ub, &Wb, blk_out[4] + off, blk_out[5] + off);
    for (int i = 0; i < 4; ++i) free(h[i]);
    free(hx), free(hy);
    insdg_block_destroy(b);
  }
  for (int i = 0; i < 7; ++i)
    EXPECT(memcmp(ref_out[i], blk_out[i], sizeof(double) * n) == 0, "%s N=%d: output %d differs on 3 blocks (max %.3e)",
           label, r->N, i, maxdiff(ref_out[i], blk_out[i], n));
  printf("blocks       %-10s N=%2d  3 blocks with halos == 1 block, bitwise (SIPDG also in parts)\n", label, r->N);
  for (int i = 0; i < 4; ++i) free(f[i]);
  for (int i = 0; i < 7; ++i) free(ref_out[i]), free(blk_out[i]);
  free(g), free(ux), free(uy), free(bc);
  insdg_block_destroy(whole);
}

/* ---- the element products of the vector operations ------------------------------------
   insdg_op_mass against the products written out node by node (its own sum order, so equal
   to round-off: 4 ulp of the terms' size), M (M^-1 r) = r, insdg_op_element_blocks against
   the same with random symmetric blocks, and insdg_op_element_product with a random
   rectangular matrix */
static void test_mass_blocks(insdg_mesh *m, insdg_ops *op, const char *label)
{
  const insdg_ref *r = m->ref;
  const int Np = r->Np, N = r->N;
  const size_t n = (size_t)m->K * Np;
  insdg_block *b = insdg_block_create(m, 0, m->K);
  double *x = dalloc(n), *z = dalloc(n), *w = dalloc(n), *B = dalloc(n * Np);
  unsigned seed = 91u + N;
  for (size_t i = 0; i < n; ++i) x[i] = 2.0 * rand_r(&seed) / RAND_MAX - 1.0;
  for (int e = 0; e < m->K; ++e)
    for (int i = 0; i < Np; ++i)
      for (int j = 0; j <= i; ++j)
        B[((size_t)e * Np + i) * Np + j] = B[((size_t)e * Np + j) * Np + i] = 2.0 * rand_r(&seed) / RAND_MAX - 1.0;
  double worst[3] = {0, 0, 0}, roundtrip = 0;
  for (int which = 0; which < 3; ++which) {
    if (which < 2) insdg_op_mass(op, b, which, 0.75, x, z);
    else insdg_op_element_blocks(op, m->K, B, x, z);
    for (int e = 0; e < m->K; ++e) {
      const double J = m->vgeo[(size_t)e * INSDG_NVGEO + INSDG_J];
      const double *A = which == 0 ? r->M : which == 1 ? r->invM : B + (size_t)e * Np * Np;
      const double s = which == 0 ? 0.75 * J : which == 1 ? 1.0 / J : 1.0;
      for (int i = 0; i < Np; ++i) {
        double sum = 0, size = 0;
        for (int j = 0; j < Np; ++j) sum += A[i * Np + j] * x[(size_t)e * Np + j], size += fabs(A[i * Np + j] * x[(size_t)e * Np + j]);
        const double err = fabs(z[(size_t)e * Np + i] - s * sum) / (fabs(s) * size * DBL_EPSILON);
        if (err > worst[which]) worst[which] = err;
      }
    }
  }
  /* insdg_op_element_product: a random A [Np][n] (n = 7, as from a smaller degree's nodes)
     on x read as [K][n], written and then accumulated */
  const int nin = 7;
  double *AT = dalloc((size_t)nin * Np), *xi = dalloc((size_t)m->K * nin), prod = 0;
  for (int i = 0; i < nin * Np; ++i) AT[i] = 2.0 * rand_r(&seed) / RAND_MAX - 1.0;
  for (int i = 0; i < m->K * nin; ++i) xi[i] = 2.0 * rand_r(&seed) / RAND_MAX - 1.0;
  for (size_t i = 0; i < n; ++i) w[i] = 0.5;
  insdg_op_element_product(N, m->K, nin, AT, xi, 0, z);
  insdg_op_element_product(N, m->K, nin, AT, xi, 1, w);
  for (int e = 0; e < m->K; ++e)
    for (int i = 0; i < Np; ++i) {
      double sum = 0, size = 0;
      for (int j = 0; j < nin; ++j) sum += AT[j * Np + i] * xi[(size_t)e * nin + j], size += fabs(AT[j * Np + i] * xi[(size_t)e * nin + j]);
      const size_t k = (size_t)e * Np + i;
      prod = fmax(prod, fmax(fabs(z[k] - sum) / (size * DBL_EPSILON), fabs(w[k] - 0.5 - sum) / ((size + 0.5) * DBL_EPSILON)));
    }
  EXPECT(prod <= 4, "%s N=%d: element product off by %.1f ulp", label, N, prod);
  free(AT), free(xi);
  /* insdg_op_mass_norms: d^T M d (d = x - w, and x alone) against the double sum over the
     nodes, relative to the sum of its terms' sizes; and 1^T M 1 = the reference area, 2 */
  double norm_err = 0, area_err = 0, *nrm = dalloc((size_t)m->K), *ones = dalloc(n);
  for (size_t i = 0; i < n; ++i) w[i] = 2.0 * rand_r(&seed) / RAND_MAX - 1.0, ones[i] = 1.0;
  for (int with_y = 0; with_y < 2; ++with_y) {
    insdg_op_mass_norms(op, m->K, x, with_y ? w : NULL, nrm);
    for (int e = 0; e < m->K; ++e) {
      double sum = 0, size = 0, d[(INSDG_NMAX + 1) * (INSDG_NMAX + 2) / 2];
      for (int i = 0; i < Np; ++i) d[i] = x[(size_t)e * Np + i] - (with_y ? w[(size_t)e * Np + i] : 0.0);
      for (int i = 0; i < Np; ++i)
        for (int j = 0; j < Np; ++j) sum += d[i] * r->M[i * Np + j] * d[j], size += fabs(d[i] * r->M[i * Np + j] * d[j]);
      norm_err = fmax(norm_err, fabs(nrm[e] - sum) / (Np * size * DBL_EPSILON));
    }
  }
  insdg_op_mass_norms(op, m->K, ones, NULL, nrm);
  for (int e = 0; e < m->K; ++e) area_err = fmax(area_err, fabs(nrm[e] - 2.0));
  EXPECT(norm_err <= 8 && area_err < 1e-13, "%s N=%d: mass norms off by %.1f Np ulp, 1^T M 1 - 2 = %.1e", label, N,
         norm_err, area_err);
  free(nrm), free(ones);
  insdg_op_mass(op, b, 1, 1.0, x, w);
  insdg_op_mass(op, b, 0, 1.0, w, z);
  for (size_t i = 0; i < n; ++i) roundtrip = fmax(roundtrip, fabs(z[i] - x[i]));
  EXPECT(worst[0] <= 4 && worst[1] <= 4 && worst[2] <= 4, "%s N=%d: element products off by %.1f / %.1f / %.1f ulp", label,
         N, worst[0], worst[1], worst[2]);
  EXPECT(roundtrip < 1e-11, "%s N=%d: M (M^-1 r) - r = %.2e", label, N, roundtrip);
  printf("mass     %-10s N=%2d  M, M^-1, blocks, product within %.1f / %.1f / %.1f / %.1f ulp; M M^-1 r - r %.1e; "
         "norms %.2f Np ulp\n", label, N, worst[0], worst[1], worst[2], prod, roundtrip, norm_err);
  free(x), free(z), free(w), free(B);
  insdg_block_destroy(b);
}

int main(int argc, char **argv)
{
  if (argc < 2) {
    fprintf(stderr, "usage: test_ops MESHDIR\n");
    return 2;
  }
  /* the variants built for a vector ISA (tests/ops.cmake) skip where this CPU lacks it */
#if defined(__GNUC__) && defined(__x86_64__) && defined(__AVX512F__)
  if (!__builtin_cpu_supports("avx512f") || !__builtin_cpu_supports("avx512dq") ||
      !__builtin_cpu_supports("avx512vl") || !__builtin_cpu_supports("fma")) {
    printf("skipped: built for AVX-512 (F, DQ, VL) and FMA, which this CPU lacks\n");
    return 77;
  }
#elif defined(__GNUC__) && defined(__x86_64__) && defined(__AVX2__)
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) {
    printf("skipped: built for AVX2 and FMA, which this CPU lacks\n");
    return 77;
  }
#endif
#ifdef OPS_GROUP_GE   /* a variant built for groups of OPS_GROUP_GE elements runs them */
  if (insdg_ops_cpu_grouped(6) != OPS_GROUP_GE) {
    fprintf(stderr, "FAIL: groups of %d elements at N = 6, built for %d\n", insdg_ops_cpu_grouped(6), OPS_GROUP_GE);
    return 1;
  }
#endif
#if defined(INSDG_SIPDG_REG) && defined(__FMA__) && (defined(__AVX512VL__) || defined(__AVX2__))   /* a variant built for it runs it */
  /* N = 2..5 where the SIPDG's kernels are AVX-512's (8-double vectors), N = 2..4 in AVX2's */
  for (int N = 1; N <= INSDG_NMAX; ++N)
    if (insdg_ops_cpu_sipdg_reg(N) !=
        (INSDG_SIPDG_REG && N >= 2 && N <= (insdg_ops_cpu_vector_width(N, INSDG_OPS_FAM_S) == 8 ? 5 : 4))) {
      fprintf(stderr, "FAIL: register SIPDG at N = %d: %d, built with INSDG_SIPDG_REG=%d\n", N,
              insdg_ops_cpu_sipdg_reg(N), INSDG_SIPDG_REG);
      return 1;
    }
#endif
  /* bench_ops counts G's and SIPDG's flops by how they lift (insdg_ops_cpu_lift_faces): the
     groups and the register SIPDG lift face by face, and the one-element kernels of the low
     degrees do too (the tiles, N >= 7 or 8 without groups, take two lifts) */
  for (int N = 1; N <= INSDG_NMAX; ++N) {
    const int lf = insdg_ops_cpu_lift_faces(N);
    const int bad = lf < 0 || lf > 3 || ((insdg_ops_cpu_grouped(N) || N <= 6) && lf != 3) ||
                    (insdg_ops_cpu_sipdg_reg(N) && !(lf & 2));
    if (bad) {
      fprintf(stderr, "FAIL: lift bits at N = %d: %d (grouped %d, register SIPDG %d)\n", N, lf,
              insdg_ops_cpu_grouped(N), insdg_ops_cpu_sipdg_reg(N));
      return 1;
    }
  }
  char path[1024], err[INSDG_ERRMSG_LEN];
  snprintf(path, sizeof path, "%s/hole41.msh", argv[1]);
  insdg_mesh *hole;
  if (insdg_mesh_read(path, &hole, err, sizeof err)) {
    printf("FAIL: %s\n", err);
    return 1;
  }
  insdg_mesh *rect = insdg_mesh_rectangle(7, 5, -1.0, 1.5, -0.5, 1.0, 0.25, 3u);
  insdg_mesh *small = insdg_mesh_rectangle(3, 3, -1.0, 1.0, -1.0, 1.0, 0.2, 5u);
  struct { insdg_mesh *m; const char *label; } meshes[] = {{hole, "hole41"}, {rect, "rectangle"}};
  for (int N = 1; N <= 8; ++N) {
    insdg_ref *ref = insdg_ref_create(N);
    insdg_ops *op = insdg_ops_create(ref);
    for (int k = 0; k < 2; ++k) {
      insdg_mesh_set_ref(meshes[k].m, ref);
      test_geometry(meshes[k].m, meshes[k].label);
      test_grad_div(meshes[k].m, op, meshes[k].label);
      test_grad_div_jumps(meshes[k].m, op, meshes[k].label);
      test_sipdg_consistency(meshes[k].m, op, meshes[k].label);
      test_sipdg_boundary_data(meshes[k].m, op, meshes[k].label);
      test_sipdg_jumps(meshes[k].m, op, meshes[k].label);
      test_advection(meshes[k].m, op, meshes[k].label);
      test_advection_flux(meshes[k].m, op, meshes[k].label);
      test_sipdg_penalty(meshes[k].m, op, meshes[k].label);
      test_blocks(meshes[k].m, op, meshes[k].label);
      test_mass_blocks(meshes[k].m, op, meshes[k].label);
    }
    if (N <= 5) {
      insdg_mesh_set_ref(small, ref);
      test_sipdg_matrix(small, op, "small");
    }
    insdg_ops_destroy(op);
    insdg_ref_destroy(ref);
  }
  /* uniform refinement: 4x the triangles, 2x the boundary faces, the same area and
     boundary names, and a valid mesh for the operators */
  insdg_mesh *fine = insdg_mesh_refine(hole);
  EXPECT(fine->K == 4 * hole->K, "refine: %d triangles from %d", fine->K, hole->K);
  int nb_coarse = 0, nb_fine = 0;
  for (int i = 0; i < 3 * hole->K; ++i) nb_coarse += hole->face_bnd[i] >= 0;
  for (int i = 0; i < 3 * fine->K; ++i) nb_fine += fine->face_bnd[i] >= 0;
  EXPECT(nb_fine == 2 * nb_coarse && fine->nbnd == hole->nbnd, "refine: %d boundary faces from %d", nb_fine, nb_coarse);
  for (int b = 0; b < hole->nbnd; ++b)
    EXPECT(insdg_mesh_boundary(fine, hole->bnd_name[b]) >= 0, "refine: boundary %s lost", hole->bnd_name[b]);
  {
    insdg_ref *ref = insdg_ref_create(3);
    insdg_ops *op = insdg_ops_create(ref);
    insdg_mesh_set_ref(fine, ref);
    test_geometry(fine, "refined");
    test_grad_div(fine, op, "refined");
    insdg_ops_destroy(op);
    insdg_ref_destroy(ref);
  }
  insdg_mesh_destroy(fine);
  insdg_mesh_destroy(hole), insdg_mesh_destroy(rect), insdg_mesh_destroy(small);
  printf(failures ? "%d FAILURES\n" : "all operator tests passed\n", failures);
  return failures ? 1 : 0;
}
