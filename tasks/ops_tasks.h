/* ops_tasks.h -- the operators of src/ops.h as StarPU tasks over blocks.
 *
 * Each call submits, for every block, the tasks that apply one operator (it returns
 * before they run). Operators that read exterior traces first submit the pack tasks of
 * their inputs: pack (s -> d) reads block s and writes the pair halo. Each operator is a
 * volume task that reads only its own block (local gradient, divergence volume,
 * advection volume) and a surface task that reads the block's pair halos, never its
 * neighbours' blocks, and adds to the volume result. So volume work never waits for a
 * halo, and halo transfers between ranks (StarPU-MPI) overlap volume work. The SIPDG
 * operator's halo-dependent part (lifting the jumps of u and grad u, then the volume
 * derivative of the lifted field, eq. ellipticOp3) is one task after the local
 * gradient; its volume half is the local gradient task.
 *
 * Static data (geometry, face maps, boundary codes and data) are read by the tasks from
 * host memory every rank holds: bc is [K][3] and g, gu, ... are [K][3Nfp] on the
 * renumbered mesh (NULL: zero), as in ops.h.
 */
#ifndef INSDG_OPS_TASKS_H
#define INSDG_OPS_TASKS_H

#include "dfield.h"

/* pair halos of f from its current block values */
void insdg_task_pack(insdg_dfield *f);
/* the same for another set of pairs (e.g. the column halos of a distributed matrix) with
   their buffers (insdg_dfield_pair_buffers) */
void insdg_task_pack_pairs(insdg_dfield *f, const insdg_pair_halo *pairs, int npairs, starpu_data_handle_t *bufs);

void insdg_task_local_gradient(insdg_dfield *u, insdg_dfield *ux, insdg_dfield *uy);

void insdg_task_gradient(const signed char *bc, const double *g, insdg_dfield *p, insdg_dfield *px,
                         insdg_dfield *py);

void insdg_task_divergence(const signed char *bc, const double *gu, const double *gv, insdg_dfield *u,
                           insdg_dfield *v, insdg_dfield *divu);

/* A u; ux, uy are scratch fields for the local gradient */
void insdg_task_sipdg(const signed char *bc, double lambda, insdg_dfield *u, insdg_dfield *ux,
                      insdg_dfield *uy, insdg_dfield *Au);

/* A u with Dirichlet data g [K][3Nfp] (insdg_op_sipdg_data): with u = 0, the data's part
   of the right-hand side */
void insdg_task_sipdg_data(const signed char *bc, const double *g, double lambda, insdg_dfield *u,
                           insdg_dfield *ux, insdg_dfield *uy, insdg_dfield *Au);

/* N(U) */
void insdg_task_advection(const signed char *bc, const double *gu, const double *gv, insdg_dfield *u,
                          insdg_dfield *v, insdg_dfield *Nu, insdg_dfield *Nv);

/* Ntilde(Ubar, Ut) */
void insdg_task_subcycle(const signed char *bc, const double *gub, const double *gvb, const double *gut,
                         const double *gvt, insdg_dfield *ub, insdg_dfield *vb, insdg_dfield *ut,
                         insdg_dfield *vt, insdg_dfield *Nu, insdg_dfield *Nv);

#endif
