/* dfield.h -- a distributed scalar field: one StarPU vector per block, [K_b][Np] doubles,
 * and one per ordered pair of adjacent blocks (s -> d) for the halo values d reads from s.
 *
 * Block b's vector is owned by rank L->block_rank[b]; the pair halo (s -> d) by the rank
 * of s, where the pack task that writes it runs. Ranks allocate memory only for what they
 * own; StarPU-MPI allocates and fills the rest when a task needs it.
 *
 * Creation and destruction are collective (every rank, same order): tags are handed out
 * in creation order from the task context.
 */
#ifndef INSDG_DFIELD_H
#define INSDG_DFIELD_H

#include <starpu.h>

#include "runtime.h"

typedef struct insdg_dfield {
  insdg_tasks *T;
  starpu_data_handle_t *block;   /* [B] */
  starpu_data_handle_t *halo;    /* [npairs], pair p of L->pair */
  double **block_mem;            /* [B] host memory of owned blocks, NULL elsewhere */
  double **halo_mem;             /* [npairs] host memory of owned pair halos */
} insdg_dfield;

insdg_dfield *insdg_dfield_create(insdg_tasks *T);
void insdg_dfield_destroy(insdg_dfield *f);

/* Buffers for another set of pair halos (owner: the source block's rank), e.g. the column
   halos of a distributed sparse matrix; collective. */
starpu_data_handle_t *insdg_dfield_pair_buffers(insdg_tasks *T, const insdg_pair_halo *pairs, int npairs, double ***mem);
void insdg_dfield_pair_buffers_free(int npairs, starpu_data_handle_t *h, double **mem);

/* Set the owned blocks from a field of the renumbered mesh, [K][Np] (every rank passes
   the whole array; each copies its blocks). Waits for tasks using the field first. */
void insdg_dfield_set(insdg_dfield *f, const double *global);

/* Every rank receives the whole field in the ORIGINAL element order, [K][Np]: owners
   contribute their blocks, the rest zeros, summed with MPI_Allreduce (exact). */
void insdg_dfield_gather(insdg_dfield *f, double *global_original);

/* This rank's elements, packed in element order ([local K][Np], the rank's elements are
   contiguous in the renumbered mesh): for output. Returns the element range. */
void insdg_dfield_local(insdg_dfield *f, double *local, int *e_begin, int *e_end);

#endif
