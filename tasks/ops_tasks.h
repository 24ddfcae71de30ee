/* ops_tasks.h -- the operators of src/ops.h as StarPU tasks over this rank's blocks.
 *
 * Each call submits, for every block of this rank, the tasks that apply one operator (it
 * returns before they run): a volume task that reads only its own block (local
 * gradient, divergence volume, advection volume), then the exchange of the halos the
 * surface term needs with neighbour ranks (one task, exchange.h; nothing on one rank),
 * then a surface task that reads the block, the neighbouring blocks of its rank and the
 * receive buffers, and adds to the volume result. So volume work never waits for a
 * halo and blocks away from rank boundaries never wait for a message. The SIPDG
 * operator is two tasks per block: the local gradient, then (after one exchange of u and
 * its gradient) the lifting of the jumps and the volume derivative (eq. ellipticOp3).
 *
 * Static data (geometry, face maps, boundary codes and data) are read by the tasks from
 * host memory every rank holds: bc is [K][3] and g, gu, ... are [K][3Nfp] on the
 * renumbered mesh (NULL: zero), as in ops.h.
 */
#ifndef INSDG_OPS_TASKS_H
#define INSDG_OPS_TASKS_H

#include "dfield.h"

void insdg_task_local_gradient(insdg_dfield *u, insdg_dfield *ux, insdg_dfield *uy);

void insdg_task_gradient(const signed char *bc, const double *g, insdg_dfield *p, insdg_dfield *px,
                         insdg_dfield *py);

void insdg_task_divergence(const signed char *bc, const double *gu, const double *gv, insdg_dfield *u,
                           insdg_dfield *v, insdg_dfield *divu);

/* A u; ux, uy are scratch fields for the local gradient */
/* 1 where a SIPDG application is, per block, two tasks: the elements that read no halo
   (insdg_block.Kin) as soon as the block's local gradient is there, then the rest once
   its neighbours' are. That is where halos travel between ranks while the inner parts run
   and this rank has several blocks, with CPU codelets. Not with one block per rank: its
   halos come from other ranks only, and measured on 2 ranks x 1 worker the extra tasks
   cost more than the overlap gained (docs/performance.md, 2026-11-27); not on one rank:
   its blocks' halos are in memory, and on 1 rank x 2 workers the step was 3-4% faster
   without them (docs/performance.md, "The two-worker step on a Zen 5 VM", 2026-12-05);
   GPU kernels take whole blocks (a launch per part would cost more than it hides). */
int insdg_task_sipdg_in_parts(const insdg_tasks *T);

void insdg_task_sipdg(const signed char *bc, double lambda, insdg_dfield *u, insdg_dfield *ux,
                      insdg_dfield *uy, insdg_dfield *Au);
/* A u where (ux, uy) already hold u's local gradient (made by the task that wrote u:
   insdg_grad_out of vec_tasks.h) */
void insdg_task_sipdg_given_gradient(const signed char *bc, double lambda, insdg_dfield *u, insdg_dfield *ux,
                                     insdg_dfield *uy, insdg_dfield *Au);
/* 1 where a vector update may also make the local gradient of what it wrote, for the
   SIPDG application that follows (one task and one pass over the fresh vector instead of
   two): CPU codelets. GPU codelets keep the operator's own local-gradient task. */
int insdg_task_fuse_local_gradient(const insdg_tasks *T);
/* 1 where the halo exchange of plan x is made inside the task that reads the halo: one block
   on this rank, a neighbour rank, CPU codelets (insdg_xplan_in_task, tasks/README.md) */
int insdg_task_exchange_in_task(const struct insdg_xplan *x);

/* insdg_task_sipdg (gradient_given 0) or insdg_task_sipdg_given_gradient (1), whose task of
   each block then runs the vector work t on the block's nodes (vec_tasks.h, insdg_then:
   a Chebyshev update, the dot p.Ap): one task per block instead of two (with GPU codelets
   the work's launches follow the kernel's in the task). */
struct insdg_then;
void insdg_task_sipdg_then(const signed char *bc, double lambda, insdg_dfield *u, insdg_dfield *ux, insdg_dfield *uy,
                           insdg_dfield *Au, int gradient_given, const struct insdg_then *t);

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
