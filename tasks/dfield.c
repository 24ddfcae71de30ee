/* dfield.c -- registration and host access of distributed fields (see dfield.h). */
#include "dfield.h"

#include <starpu_mpi.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

static void register_vector(insdg_tasks *T, starpu_data_handle_t *h, double **mem, int n, int owner)
{
  if (owner == T->rank) {
    *mem = insdg_calloc((size_t)(n > 0 ? n : 1), sizeof(double));
    starpu_vector_data_register(h, STARPU_MAIN_RAM, (uintptr_t)*mem, (uint32_t)n, sizeof(double));
  } else {
    *mem = NULL;
    starpu_vector_data_register(h, -1, (uintptr_t)NULL, (uint32_t)n, sizeof(double));
  }
  starpu_mpi_data_register(*h, insdg_runtime_new_tag(), owner);
}

insdg_dfield *insdg_dfield_create(insdg_tasks *T)
{
  const insdg_layout *L = T->L;
  const int Np = L->mesh->ref->Np;
  insdg_dfield *f = insdg_calloc(1, sizeof *f);
  f->T = T;
  f->block = insdg_calloc((size_t)L->B, sizeof(starpu_data_handle_t));
  f->block_mem = insdg_calloc((size_t)L->B, sizeof(double *));
  f->halo = insdg_calloc((size_t)(L->npairs + 1), sizeof(starpu_data_handle_t));
  f->halo_mem = insdg_calloc((size_t)(L->npairs + 1), sizeof(double *));
  for (int b = 0; b < L->B; ++b)
    register_vector(T, &f->block[b], &f->block_mem[b], L->block[b]->K * Np, L->block_rank[b]);
  for (int p = 0; p < L->npairs; ++p)
    register_vector(T, &f->halo[p], &f->halo_mem[p], L->pair[p].n, L->block_rank[L->pair[p].src]);
  return f;
}

starpu_data_handle_t *insdg_dfield_pair_buffers(insdg_tasks *T, const insdg_pair_halo *pairs, int npairs, double ***mem)
{
  starpu_data_handle_t *h = insdg_calloc((size_t)(npairs + 1), sizeof(starpu_data_handle_t));
  *mem = insdg_calloc((size_t)(npairs + 1), sizeof(double *));
  for (int p = 0; p < npairs; ++p) register_vector(T, &h[p], &(*mem)[p], pairs[p].n, T->L->block_rank[pairs[p].src]);
  return h;
}

void insdg_dfield_pair_buffers_free(int npairs, starpu_data_handle_t *h, double **mem)
{
  for (int p = 0; p < npairs; ++p) starpu_data_unregister(h[p]), free(mem[p]);
  free(h), free(mem);
}

void insdg_dfield_destroy(insdg_dfield *f)
{
  if (!f) return;
  const insdg_layout *L = f->T->L;
  for (int b = 0; b < L->B; ++b) starpu_data_unregister(f->block[b]), free(f->block_mem[b]);
  for (int p = 0; p < L->npairs; ++p) starpu_data_unregister(f->halo[p]), free(f->halo_mem[p]);
  free(f->block), free(f->block_mem), free(f->halo), free(f->halo_mem);
  free(f);
}

void insdg_dfield_set(insdg_dfield *f, const double *global)
{
  const insdg_layout *L = f->T->L;
  const int Np = L->mesh->ref->Np;
  for (int b = 0; b < L->B; ++b) {
    if (L->block_rank[b] != f->T->rank) continue;
    starpu_data_acquire(f->block[b], STARPU_W);
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
    starpu_data_acquire(f->block[b], STARPU_R);
    for (int e = L->block_start[b]; e < L->block_start[b + 1]; ++e)
      memcpy(mine + (size_t)L->old_elem[e] * Np, f->block_mem[b] + (size_t)(e - L->block_start[b]) * Np,
             sizeof(double) * Np);
    starpu_data_release(f->block[b]);
  }
  MPI_Allreduce(mine, global_original, K * Np, MPI_DOUBLE, MPI_SUM, f->T->comm);
  free(mine);
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
    starpu_data_acquire(f->block[b], STARPU_R);
    memcpy(local + (size_t)(L->block_start[b] - first) * Np, f->block_mem[b],
           sizeof(double) * (size_t)L->block[b]->K * Np);
    starpu_data_release(f->block[b]);
  }
  *e_begin = first < 0 ? 0 : first;
  *e_end = first < 0 ? 0 : last;
}
