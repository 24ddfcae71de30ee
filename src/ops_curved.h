/* ops_curved.h -- the operators of ops.h on the curved elements of a block (ops_curved.c).
 * Called by ops_cpu.c after the affine kernels, only for blocks with curved elements:
 * the "overwrite" functions replace the outputs of the curved elements, the "surface"
 * functions add to them (the caller has restored what the affine kernel's surface part
 * changed). Arguments as in ops.h.
 */
#ifndef INSDG_OPS_CURVED_H
#define INSDG_OPS_CURVED_H

#include "ops.h"

void insdg_curved_local_gradient(const insdg_ops *op, const insdg_block *b, const double *u, double *ux, double *uy);
void insdg_curved_gradient_surface(const insdg_ops *op, const insdg_block *b, const signed char *bc, const double *g,
                                   const double *p, const double *p_halo, double *px, double *py);
void insdg_curved_divergence_volume(const insdg_ops *op, const insdg_block *b, const double *u, const double *v,
                                    double *divu);
void insdg_curved_divergence_surface(const insdg_ops *op, const insdg_block *b, const signed char *bc,
                                     const insdg_vec_in *U, double *divu);
void insdg_curved_sipdg(const insdg_ops *op, const insdg_block *b, const signed char *bc, const double *g,
                        double lambda, const double *u, const double *ux, const double *uy, const double *u_halo,
                        const double *ux_halo, const double *uy_halo, double *Au, int e_begin, int e_end);
void insdg_curved_adv_volume(const insdg_ops *op, const insdg_block *b, const double *ub, const double *vb,
                             const double *ut, const double *vt, double *Nu, double *Nv);
void insdg_curved_adv_surface(const insdg_ops *op, const insdg_block *b, const signed char *bc, double lambda_factor,
                              const insdg_vec_in *Ub, const insdg_vec_in *Ut, double *Nu, double *Nv);
/* z = alpha M_J r (inverse 0) or M_J^{-1} r (inverse 1) on the curved elements (overwrite;
   the mass tasks of tasks/vec_tasks.c) */
void insdg_curved_mass(const insdg_block *b, int inverse, double alpha, const double *r, double *z);

#endif
