/* exchange.h -- what crosses ranks: halo exchanges and reductions as rank-level tasks.
 *
 * A set of pair halos (partition.h: the layout's trace halos, or the column halos of the
 * degree-1 matrix) gives an exchange plan for this rank. Halo values a block reads from
 * a block of the same rank are read straight from that block's data by the task that
 * needs them (no copy, no task). Values from blocks of other ranks arrive in one receive
 * buffer per neighbour rank and field, filled by ONE exchange task per rank and exchange:
 * it reads the rank's blocks of the exchanged fields, sends one message per neighbour
 * rank holding all those fields' values the neighbour needs (the pairs s -> d with s
 * here and d there, in pair order, concatenated field after field), receives the same
 * from each neighbour and writes the receive buffers.
 *
 * Every rank-level task that calls MPI (exchanges, reductions, the coarse gather) takes
 * the communication token (runtime.h) in RW mode: StarPU runs them in submission order,
 * every rank submits them in the same order, so each meets its neighbours' matching
 * task and a worker blocked in one never waits for a task that cannot start. Their MPI
 * waits sleep between tests instead of spinning (the cores belong to the workers).
 */
#ifndef INSDG_EXCHANGE_H
#define INSDG_EXCHANGE_H

#include <starpu.h>

#include "runtime.h"

typedef struct insdg_xplan {
  const insdg_layout *L;
  const insdg_pair_halo *pair;
  int npairs;
  const int *pairs_into;      /* [B+1] pairs into block d (sorted by (dst, src)) */
  int rank, b_begin, b_end;
  int nnbr;                   /* neighbour ranks, ascending */
  int *nbr;                   /* [nnbr] */
  int *send_start;            /* [nnbr+1] into send_blk/send_node */
  int *send_blk, *send_node;  /* the values sent: block (of this rank) and block-local node */
  int *recv_n;                /* [nnbr] values received per field */
  int recv_total;             /* their sum */
  /* the buffers the halo of an owned block d reads, per field: dep[dep_start[d] ..
     dep_start[d+1]-1], each a block of this rank (>= 0) or the receive buffer of
     neighbour q (-(q+1)); pair p into d reads its entry pair_dep[p] (relative to
     dep_start[d]) at node src_node (a block) or from offset pair_off[p] (a buffer) */
  int *dep_start, *dep;
  int *pair_dep, *pair_off;
} insdg_xplan;

insdg_xplan *insdg_xplan_create(const insdg_layout *L, int rank, const insdg_pair_halo *pairs, int npairs,
                                const int *pairs_into);
void insdg_xplan_destroy(insdg_xplan *x);

/* number of buffers block d's halo reads per field */
static inline int insdg_xplan_ndeps(const insdg_xplan *x, int d) { return x->dep_start[d + 1] - x->dep_start[d]; }

/* The receive buffers of one field: [nnbr] handles (and host memory). */
starpu_data_handle_t *insdg_xplan_recv_create(const insdg_xplan *x, double ***mem);
void insdg_xplan_recv_destroy(const insdg_xplan *x, starpu_data_handle_t *h, double **mem);

/* Append to descr the handles block d's halo of one field reads (R, or W for an exchange in
   the task: below); returns how many. blocks: the field's [B] block handles; recv: its
   [nnbr] receive buffers. */
int insdg_xplan_halo_descr(const insdg_xplan *x, int d, starpu_data_handle_t *blocks, starpu_data_handle_t *recv,
                           struct starpu_data_descr *descr, enum starpu_data_access_mode mode);
/* CPU: block d's halo array h (block.h layout) from buffers[first ..], as listed by
   insdg_xplan_halo_descr */
void insdg_xplan_gather(const insdg_xplan *x, int d, void *buffers[], int first, double *h);

/* Submit the exchange of nf fields (blocks[f]: [B] handles, recv[f]: [nnbr]): one task on
   this rank, none when it has no neighbour. */
void insdg_task_exchange(const insdg_xplan *x, int nf, starpu_data_handle_t *const *blocks,
                         starpu_data_handle_t *const *recv);

/* The same exchange as two tasks, so that work submitted between them runs while the
   messages travel: the post (reads the blocks, posts the receives and the sends) and the
   finish (waits, writes the receive buffers). Nothing that calls MPI may be submitted
   between the two (the post's messages are in flight until the finish). */
void insdg_task_exchange_post(const insdg_xplan *x, int nf, starpu_data_handle_t *const *blocks);
void insdg_task_exchange_finish(const insdg_xplan *x, int nf, starpu_data_handle_t *const *recv);

/* The exchange inside the task that reads the halo, where this rank has one block d (on
   several ranks each rank's blocks are one, by default, with one worker per rank): no task
   of its own, and the operator's work that reads no halo runs while the messages travel
   (ops_tasks.c). The task holds the communication token (RW) like an exchange task, the nf
   fields' block d (own[f]) and, from buffers[first], the fields' halo buffers as listed by
   insdg_xplan_halo_descr with mode W (all receive buffers: no other block on this rank).
   insdg_xplan_in_task says whether it applies: one block here and a neighbour rank. */
int insdg_xplan_in_task(const insdg_xplan *x);
void insdg_xplan_post_in_task(const insdg_xplan *x, int nf, void *const *own);
void insdg_xplan_finish_in_task(const insdg_xplan *x, int d, int nf, void *buffers[], int first);
/* Wait for MPI requests without taking the core from others for long: test for up to
   ~20 us (a balanced neighbour arrives within that), then test between short sleeps.
   The time spent is summed over the threads (insdg_mpi_wait_seconds). */
void insdg_mpi_wait_quietly(int n, MPI_Request *req);
double insdg_mpi_wait_seconds(void);

/* This thread's scratch of at least n doubles (slot 0..3), kept for the next task. */
double *insdg_thread_scratch(int slot, size_t n);
/* This thread's array of at least n task descriptors (for submission). */
struct starpu_data_descr *insdg_thread_scratch_descr(int n);
/* the same for a task's data interfaces, run on this thread (runtime.h, direct) */
void **insdg_thread_scratch_interfaces(int n);

#endif
