/* ops_curved.c -- the operators of ops.h on a block's curved elements (curved.h).
 *
 * The affine kernels (ops_kernels.inc) run on every element of a block; for the block's
 * curved elements these functions then overwrite (local gradient, divergence volume,
 * SIPDG, advection volume) or add (the surface parts) what the curved geometry gives.
 * ops_cpu.c calls them; for the "adds" operators it first saves the curved elements'
 * outputs and restores them after the affine kernel, so that the affine surface term of a
 * curved element is never added.
 *
 * The element operators and their forms are in curved_elem.inc, the one source this file
 * and the GPU path (cuda/curved.cu) share. Generic in N (run-time loops): curved elements
 * are a boundary layer of the mesh.
 */
#include "ops_curved.h"

#include <math.h>
#include <stddef.h>

#include "curved.h"
#include "curved_kernels.h"

#define CE_FN static
#define CE_NMAX INSDG_NMAX
#include "curved_elem.inc"

/* every curved element of b (of its elements [e_begin, e_end)): e block-local, k its
   curved index */
#define FOR_CURVED_IN(b, e, k, e_begin, e_end) \
  for (int e = (e_begin), k; e < (e_end); ++e) \
    if ((k = (b)->cindex[e]) >= 0)
#define FOR_CURVED(b, e, k) FOR_CURVED_IN(b, e, k, 0, (b)->K)

void insdg_curved_local_gradient(const insdg_ops *op, const insdg_block *b, const double *u, double *ux, double *uy)
{
  (void)op;
  insdg_curved_ctx C;
  insdg_curved_ctx_of_block(b, &C);
  const size_t Np = (size_t)b->Np;
  FOR_CURVED(b, e, k) ce_local_gradient(&C, k, u + e * Np, ux + e * Np, uy + e * Np);
}

void insdg_curved_gradient_surface(const insdg_ops *op, const insdg_block *b, const signed char *bc, const double *g,
                                   const double *p, const double *p_halo, double *px, double *py)
{
  (void)op;
  insdg_curved_ctx C;
  insdg_curved_ctx_of_block(b, &C);
  const size_t Np = (size_t)b->Np;
  FOR_CURVED(b, e, k) ce_gradient_surface(&C, e, k, bc, g, p, p_halo, px + e * Np, py + e * Np);
}

void insdg_curved_divergence_volume(const insdg_ops *op, const insdg_block *b, const double *u, const double *v,
                                    double *divu)
{
  (void)op;
  insdg_curved_ctx C;
  insdg_curved_ctx_of_block(b, &C);
  const size_t Np = (size_t)b->Np;
  FOR_CURVED(b, e, k) ce_divergence_volume(&C, k, u + e * Np, v + e * Np, divu + e * Np);
}

void insdg_curved_divergence_surface(const insdg_ops *op, const insdg_block *b, const signed char *bc,
                                     const insdg_vec_in *U, double *divu)
{
  (void)op;
  insdg_curved_ctx C;
  insdg_curved_ctx_of_block(b, &C);
  const insdg_curved_pair P = {U->u, U->v, U->u_halo, U->v_halo, U->gu, U->gv};
  const size_t Np = (size_t)b->Np;
  FOR_CURVED(b, e, k) ce_divergence_surface(&C, e, k, bc, &P, divu + e * Np);
}

void insdg_curved_sipdg(const insdg_ops *op, const insdg_block *b, const signed char *bc, const double *g,
                        double lambda, const double *u, const double *ux, const double *uy, const double *u_halo,
                        const double *ux_halo, const double *uy_halo, double *Au, int e_begin, int e_end)
{
  (void)op;
  insdg_curved_ctx C;
  insdg_curved_ctx_of_block(b, &C);
  const size_t Np = (size_t)b->Np;
  FOR_CURVED_IN(b, e, k, e_begin, e_end) ce_sipdg(&C, e, k, bc, g, lambda, u, ux, uy, u_halo, ux_halo, uy_halo, Au + e * Np);
}

void insdg_curved_adv_volume(const insdg_ops *op, const insdg_block *b, const double *ub, const double *vb,
                             const double *ut, const double *vt, double *Nu, double *Nv)
{
  (void)op;
  insdg_curved_ctx C;
  insdg_curved_ctx_of_block(b, &C);
  const size_t Np = (size_t)b->Np;
  FOR_CURVED(b, e, k)
  ce_adv_volume(&C, k, ub + e * Np, vb + e * Np, ut + e * Np, vt + e * Np, Nu + e * Np, Nv + e * Np);
}

void insdg_curved_adv_surface(const insdg_ops *op, const insdg_block *b, const signed char *bc, double lambda_factor,
                              const insdg_vec_in *Ub, const insdg_vec_in *Ut, double *Nu, double *Nv)
{
  (void)op;
  insdg_curved_ctx C;
  insdg_curved_ctx_of_block(b, &C);
  const insdg_curved_pair Pb = {Ub->u, Ub->v, Ub->u_halo, Ub->v_halo, Ub->gu, Ub->gv};
  const insdg_curved_pair Pt = {Ut->u, Ut->v, Ut->u_halo, Ut->v_halo, Ut->gu, Ut->gv};
  const size_t Np = (size_t)b->Np;
  FOR_CURVED(b, e, k) ce_adv_surface(&C, e, k, bc, lambda_factor, &Pb, &Pt, Nu + e * Np, Nv + e * Np);
}

void insdg_curved_mass(const insdg_block *b, int inverse, double alpha, const double *r, double *z)
{
  insdg_curved_ctx C;
  insdg_curved_ctx_of_block(b, &C);
  const size_t Np = (size_t)b->Np;
  FOR_CURVED(b, e, k) {
    if (inverse) ce_inverse_mass_apply(&C, k, r + e * Np, z + e * Np, 0);
    else ce_mass(&C, k, alpha, r + e * Np, z + e * Np);
  }
}
