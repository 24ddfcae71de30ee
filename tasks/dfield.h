/* dfield.h -- a distributed scalar field: one StarPU vector per block of this rank,
 * [K_b][Np] doubles, and one receive buffer per neighbour rank for the halo values its
 * blocks send (exchange.h; none on one rank).
 *
 * Every rank registers only its own blocks (block[b] is NULL for the others) and
 * submits tasks only for them. Creation and destruction are collective in the sense that
 * every rank makes the same fields in the same order (the exchange tasks pair up by
 * order).
 */
#ifndef INSDG_DFIELD_H
#define INSDG_DFIELD_H

#include <starpu.h>

#include "runtime.h"

typedef struct insdg_dfield {
  insdg_tasks *T;
  starpu_data_handle_t *block;   /* [B]: this rank's blocks, NULL elsewhere */
  starpu_data_handle_t *recv;    /* [T->x->nnbr] halo values from each neighbour rank */
  double **block_mem;            /* [B] host memory of owned blocks, NULL elsewhere */
  double **recv_mem;
} insdg_dfield;

insdg_dfield *insdg_dfield_create(insdg_tasks *T);
void insdg_dfield_destroy(insdg_dfield *f);

/* Submit the exchange of the halos of fields f[0..nf-1] (one task, one message per
   neighbour rank for all of them; nothing on one rank). */
void insdg_dfield_exchange(int nf, insdg_dfield *const *f);
/* The same in two tasks (insdg_task_exchange_post, insdg_task_exchange_finish): the
   caller submits work that needs no halo between them, and nothing that calls MPI. */
void insdg_dfield_exchange_post(int nf, insdg_dfield *const *f);
void insdg_dfield_exchange_finish(int nf, insdg_dfield *const *f);

/* Set the owned blocks from a field of the renumbered mesh, [K][Np] (every rank passes
   the whole array; each copies its blocks). Waits for tasks using the field first. */
void insdg_dfield_set(insdg_dfield *f, const double *global);

/* Every rank receives the whole field in the ORIGINAL element order, [K][Np]: owners
   contribute their blocks, the rest zeros, summed with MPI_Allreduce (exact). */
void insdg_dfield_gather(insdg_dfield *f, double *global_original);

/* This rank's elements, packed in element order ([local K][Np], the rank's elements are
   contiguous in the renumbered mesh): for output. Returns the element range. */
void insdg_dfield_local(insdg_dfield *f, double *local, int *e_begin, int *e_end);
/* The inverse: set this rank's blocks from its elements packed in element order. */
void insdg_dfield_set_local(insdg_dfield *f, const double *local);

#endif
