/* dfield.c -- registration and host access of distributed fields (see dfield.h). */
#include "dfield.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "sched_home.h"
#include "exchange.h"

insdg_dfield *insdg_dfield_create(insdg_tasks *T)
{
  const insdg_layout *L = T->L;
  const int Np = L->mesh->ref->Np;
  insdg_dfield *f = insdg_calloc(1, sizeof *f);
  f->T = T;
  f->block = insdg_calloc((size_t)L->B, sizeof(starpu_data_handle_t));
  f->block_mem = insdg_calloc((size_t)L->B, sizeof(double *));
  for (int b = T->b_begin; b < T->b_end; ++b) {
    const int n = L->block[b]->K * Np;
    f->block_mem[b] = insdg_calloc((size_t)n, sizeof(double));
    starpu_vector_data_register(&f->block[b], STARPU_MAIN_RAM, (uintptr_t)f->block_mem[b], (uint32_t)n, sizeof(double));
    insdg_sched_home_tag(f->block[b], b - T->b_begin);
  }
  f->recv = insdg_xplan_recv_create(T->x, &f->recv_mem);
  return f;
}

void insdg_dfield_destroy(insdg_dfield *f)
{
  if (!f) return;
  insdg_tasks *T = f->T;
  for (int b = T->b_begin; b < T->b_end; ++b) insdg_runtime_unregister(f->block[b]), free(f->block_mem[b]);
  insdg_xplan_recv_destroy(T->x, f->recv, f->recv_mem);
  free(f->block), free(f->block_mem);
  free(f);
}

enum { MAXF = 8 };
static void handles(int nf, insdg_dfield *const *f, starpu_data_handle_t **blocks, starpu_data_handle_t **recv)
{
  INSDG_CHECK(nf >= 1 && nf <= MAXF);
  for (int k = 0; k < nf; ++k) blocks[k] = f[k]->block, recv[k] = f[k]->recv;
}

void insdg_dfield_exchange(int nf, insdg_dfield *const *f)
{
  starpu_data_handle_t *blocks[MAXF], *recv[MAXF];
  handles(nf, f, blocks, recv);
  insdg_task_exchange(f[0]->T->x, nf, blocks, recv);
}

void insdg_dfield_exchange_post(int nf, insdg_dfield *const *f)
{
  starpu_data_handle_t *blocks[MAXF], *recv[MAXF];
  handles(nf, f, blocks, recv);
  insdg_task_exchange_post(f[0]->T->x, nf, blocks);
}

void insdg_dfield_exchange_finish(int nf, insdg_dfield *const *f)
{
  starpu_data_handle_t *blocks[MAXF], *recv[MAXF];
  handles(nf, f, blocks, recv);
  insdg_task_exchange_finish(f[0]->T->x, nf, recv);
}

void insdg_dfield_set(insdg_dfield *f, const double *global)
{
  const insdg_layout *L = f->T->L;
  const int Np = L->mesh->ref->Np;
  for (int b = 0; b < L->B; ++b) {
    if (L->block_rank[b] != f->T->rank) continue;
    insdg_runtime_acquire(f->block[b], STARPU_W);
    memcpy(f->block_mem[b], global + (size_t)L->block_start[b] * Np, sizeof(double) * (size_t)L->block[b]->K * Np);
    starpu_data_release(f->block[b]);
  }
}

void insdg_dfield_gather(insdg_dfield *f, double *global_original)
{
  const insdg_layout *L = f->T->L;
  const int Np = L->mesh->ref->Np, K = L->mesh->K;
  double *mine = insdg_calloc((size_t)K * Np, sizeof(double));
  for (int b = 0; b < L->B; ++b) {
    if (L->block_rank[b] != f->T->rank) continue;
    insdg_runtime_acquire(f->block[b], STARPU_R);
    for (int e = L->block_start[b]; e < L->block_start[b + 1]; ++e)
      memcpy(mine + (size_t)L->old_elem[e] * Np, f->block_mem[b] + (size_t)(e - L->block_start[b]) * Np,
             sizeof(double) * Np);
    starpu_data_release(f->block[b]);
  }
  MPI_Allreduce(mine, global_original, K * Np, MPI_DOUBLE, MPI_SUM, f->T->comm);
  free(mine);
}

void insdg_dfield_set_local(insdg_dfield *f, const double *local)
{
  const insdg_layout *L = f->T->L;
  const int Np = L->mesh->ref->Np;
  int first = -1;
  for (int b = 0; b < L->B; ++b) {
    if (L->block_rank[b] != f->T->rank) continue;
    if (first < 0) first = L->block_start[b];
    insdg_runtime_acquire(f->block[b], STARPU_W);
    memcpy(f->block_mem[b], local + (size_t)(L->block_start[b] - first) * Np,
           sizeof(double) * (size_t)L->block[b]->K * Np);
    starpu_data_release(f->block[b]);
  }
}

void insdg_dfield_local(insdg_dfield *f, double *local, int *e_begin, int *e_end)
{
  const insdg_layout *L = f->T->L;
  const int Np = L->mesh->ref->Np;
  int first = -1, last = -1;
  for (int b = 0; b < L->B; ++b) {
    if (L->block_rank[b] != f->T->rank) continue;
    if (first < 0) first = L->block_start[b];
    last = L->block_start[b + 1];
    insdg_runtime_acquire(f->block[b], STARPU_R);
    memcpy(local + (size_t)(L->block_start[b] - first) * Np, f->block_mem[b],
           sizeof(double) * (size_t)L->block[b]->K * Np);
    starpu_data_release(f->block[b]);
  }
  *e_begin = first < 0 ? 0 : first;
  *e_end = first < 0 ? 0 : last;
}
