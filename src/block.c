/* block.c -- build a block's local face map and its halo list (see block.h). */
#include "block.h"

#include <stdlib.h>
#include <string.h>

#include "curved.h"
#include "error.h"

static int cmp_int(const void *a, const void *b)
{
  const int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

insdg_block *insdg_block_create(const insdg_mesh *m, int e0, int e1)
{
  INSDG_CHECK(m->ref && 0 <= e0 && e0 < e1 && e1 <= m->K);
  const int Np = m->ref->Np, Nfp = m->ref->Nfp, K = e1 - e0;
  const int lo = e0 * Np, hi = e1 * Np, nmap = 3 * K * Nfp;
  insdg_block *b = insdg_calloc(1, sizeof *b);
  b->e0 = e0, b->K = K, b->N = m->ref->N, b->Np = Np, b->Nfp = Nfp;
  b->vgeo = m->vgeo + (size_t)e0 * INSDG_NVGEO;
  b->sgeo = m->sgeo + (size_t)e0 * 3 * INSDG_NSGEO;
  b->face_bnd = m->face_bnd + 3 * (size_t)e0;
  if (m->curved) {
    b->curved = m->curved, b->cindex = m->curved->index + e0;
    for (int e = 0; e < K; ++e) b->ncurved += b->cindex[e] >= 0;
  }
  const int *global_map = m->mapP + (size_t)e0 * 3 * Nfp;

  /* halo slots: the distinct outside nodes, ascending, so slot order is reproducible */
  int *outside = insdg_malloc(sizeof(int) * (size_t)nmap);
  int nout = 0;
  for (int i = 0; i < nmap; ++i)
    if (global_map[i] < lo || global_map[i] >= hi) outside[nout++] = global_map[i];
  qsort(outside, (size_t)nout, sizeof(int), cmp_int);
  int nhalo = 0;
  for (int i = 0; i < nout; ++i)
    if (i == 0 || outside[i] != outside[i - 1]) outside[nhalo++] = outside[i];
  b->nhalo = nhalo;
  b->halo_src = insdg_malloc(sizeof(int) * (size_t)(nhalo > 0 ? nhalo : 1));
  memcpy(b->halo_src, outside, sizeof(int) * (size_t)nhalo);
  free(outside);

  b->mapP = insdg_malloc(sizeof(int) * (size_t)nmap);
  for (int i = 0; i < nmap; ++i) {
    const int g = global_map[i];
    if (g >= lo && g < hi) {
      b->mapP[i] = g - lo;
    } else {
      const int *slot = bsearch(&g, b->halo_src, (size_t)nhalo, sizeof(int), cmp_int);
      INSDG_CHECK(slot);
      b->mapP[i] = K * Np + (int)(slot - b->halo_src);
    }
  }
  /* whole-row neighbours (nbr_row, nbr_face) */
  b->nbr_row = insdg_calloc(3 * (size_t)K, sizeof(int));
  b->nbr_face = insdg_malloc((size_t)K);
  const int *fn = m->ref->face_nodes;
  for (int e = 0; e < K; ++e) {
    unsigned code = 0;
    for (int f = 0; f < 3 && code != INSDG_NBR_NONE; ++f) {
      const int *mp = b->mapP + ((size_t)e * 3 + f) * Nfp;
      const int nb = mp[0] / Np;
      int fp = -1;
      if (b->face_bnd[3 * e + f] < 0 && mp[0] < K * Np && nb != e)
        for (int c = 0; c < 3 && fp < 0; ++c) {
          int same = 1;
          for (int j = 0; j < Nfp; ++j) same &= mp[j] == nb * Np + fn[c * Nfp + Nfp - 1 - j];
          if (same) fp = c;
        }
      if (fp < 0) code = INSDG_NBR_NONE;
      else code |= (unsigned)fp << (2 * f), b->nbr_row[3 * e + f] = nb * Np;
    }
    b->nbr_face[e] = (unsigned char)code;
  }
  b->Kin = 0;
  while (b->Kin < K) {
    int reads_halo = 0;
    for (int i = 3 * Nfp * b->Kin; i < 3 * Nfp * (b->Kin + 1); ++i) reads_halo |= b->mapP[i] >= K * Np;
    if (reads_halo) break;
    b->Kin++;
  }
  return b;
}

void insdg_block_destroy(insdg_block *b)
{
  if (!b) return;
  free(b->mapP);
  free(b->nbr_row);
  free(b->nbr_face);
  free(b->halo_src);
  free(b);
}

void insdg_block_gather_halo(const insdg_block *b, const double *global_field, double *halo)
{
  for (int k = 0; k < b->nhalo; ++k) halo[k] = global_field[b->halo_src[k]];
}

void insdg_block_bc_codes(const insdg_block *b, const signed char *code_of_boundary, signed char *bc)
{
  for (int i = 0; i < 3 * b->K; ++i)
    bc[i] = b->face_bnd[i] < 0 ? INSDG_BC_INTERIOR : code_of_boundary[b->face_bnd[i]];
}
