/* assemble.c -- the SIPDG matrix by probing with a distance-2 element colouring
 * (see assemble.h; paper §3: the full AMG and the degree-1 AMG level of pMG-AMG).
 *
 * Why probing is exact: column e*Np + j of A is nonzero only in the rows of e and of its
 * face neighbours (the SIPDG stencil reaches one face across). If no two probed elements
 * are within distance 2, their closed neighbourhoods are disjoint, so in every row of the
 * closed neighbourhood of a probed element e the probe's result holds e's column alone.
 *
 * The sparsity pattern is known before any operator application: the rows of element e
 * couple to the Np columns of every element of its closed neighbourhood (sorted by
 * element), so values are written straight into their slots and exact zeros are squeezed
 * out at the end.
 */
#include "assemble.h"

#include <stdlib.h>
#include <string.h>

#include "block.h"
#include "error.h"

#define MAX_COLOURS 64   /* a triangle mesh needs <= 10 (1 + 3 + 6 elements within distance 2) */

int insdg_assemble_colour_elements(const insdg_mesh *m, int *colour)
{
  int forbidden_by[MAX_COLOURS], ncolours = 0;
  for (int c = 0; c < MAX_COLOURS; ++c) forbidden_by[c] = -1;
  for (int e = 0; e < m->K; ++e) colour[e] = -1;
  for (int e = 0; e < m->K; ++e) {
    /* stamp the colours already taken within distance 2 of e with e */
    for (int f = 0; f < 3; ++f) {
      const int nb = m->EToE[3 * e + f];
      if (colour[nb] >= 0) forbidden_by[colour[nb]] = e;
      for (int g = 0; g < 3; ++g) {
        const int nb2 = m->EToE[3 * nb + g];
        if (colour[nb2] >= 0) forbidden_by[colour[nb2]] = e;
      }
    }
    int c = 0;
    while (forbidden_by[c] == e) ++c;
    INSDG_CHECK(c < MAX_COLOURS);
    colour[e] = c;
    if (c + 1 > ncolours) ncolours = c + 1;
  }
  return ncolours;
}

/* closed neighbourhood of every element: nbhd[4e .. 4e+count[e]-1], sorted, distinct */
static void closed_neighbourhoods(const insdg_mesh *m, int *nbhd, int *count)
{
  for (int e = 0; e < m->K; ++e) {
    int *list = nbhd + 4 * e, n = 0;
    list[n++] = e;
    for (int f = 0; f < 3; ++f) {
      const int nb = m->EToE[3 * e + f];
      int seen = 0;
      for (int k = 0; k < n; ++k) seen |= list[k] == nb;
      if (!seen) list[n++] = nb;
    }
    for (int a = 1; a < n; ++a)   /* insertion sort of <= 4 entries */
      for (int b = a; b > 0 && list[b - 1] > list[b]; --b) {
        const int t = list[b];
        list[b] = list[b - 1], list[b - 1] = t;
      }
    count[e] = n;
  }
}

/* the pattern: row e*Np+i holds the Np columns of each element of nbhd(e) in order */
static insdg_csr *pattern(const insdg_mesh *m, int Np, const int *nbhd, const int *count)
{
  size_t nnz = 0;
  for (int e = 0; e < m->K; ++e) nnz += (size_t)count[e] * Np * Np;
  INSDG_CHECK(nnz <= (size_t)0x7fffffff && (size_t)m->K * Np <= (size_t)0x7fffffff);
  const int n = m->K * Np;
  insdg_csr *A = insdg_csr_create(n, n, (int)nnz);
  for (int e = 0; e < m->K; ++e)
    for (int i = 0; i < Np; ++i) {
      const int row = e * Np + i;
      int k = A->row_ptr[row];
      for (int s = 0; s < count[e]; ++s)
        for (int j = 0; j < Np; ++j) A->col[k++] = nbhd[4 * e + s] * Np + j;
      A->row_ptr[row + 1] = k;
    }
  return A;
}

static int slot_of(const int *nbhd, int count, int e)
{
  for (int s = 0; s < count; ++s)
    if (nbhd[s] == e) return s;
  INSDG_CHECK(!"element adjacency is not symmetric");
  return -1;
}

/* remove stored exact zeros in place */
static void drop_zeros(insdg_csr *A)
{
  int k = 0, start = 0;
  for (int i = 0; i < A->nrows; ++i) {
    const int end = A->row_ptr[i + 1];
    for (int q = start; q < end; ++q)
      if (A->val[q] != 0.0) A->col[k] = A->col[q], A->val[k] = A->val[q], ++k;
    start = end;
    A->row_ptr[i + 1] = k;
  }
  A->nnz = k;
  /* give the dropped room back, so insdg_csr_memory tells the truth */
  int *col = realloc(A->col, sizeof(int) * (size_t)(k > 0 ? k : 1));
  double *val = realloc(A->val, sizeof(double) * (size_t)(k > 0 ? k : 1));
  if (col) A->col = col;
  if (val) A->val = val;
}

insdg_csr *insdg_assemble_sipdg(const insdg_mesh *m, const insdg_ops *op, const signed char *bc, double lambda)
{
  INSDG_CHECK(m->ref && m->ref->N == op->ref->N);
  const int K = m->K, Np = op->ref->Np;
  int *colour = insdg_malloc(sizeof(int) * (size_t)K);
  const int ncolours = insdg_assemble_colour_elements(m, colour);
  int *nbhd = insdg_malloc(sizeof(int) * 4 * (size_t)K), *count = insdg_malloc(sizeof(int) * (size_t)K);
  closed_neighbourhoods(m, nbhd, count);
  insdg_csr *A = pattern(m, Np, nbhd, count);

  /* members[c] lists the elements of colour c in increasing order */
  int *start = insdg_calloc((size_t)ncolours + 1, sizeof(int)), *members = insdg_malloc(sizeof(int) * (size_t)K);
  for (int e = 0; e < K; ++e) start[colour[e] + 1]++;
  for (int c = 0; c < ncolours; ++c) start[c + 1] += start[c];
  int *fill = insdg_malloc(sizeof(int) * (size_t)ncolours);
  memcpy(fill, start, sizeof(int) * (size_t)ncolours);
  for (int e = 0; e < K; ++e) members[fill[colour[e]]++] = e;

  insdg_block *b = insdg_block_create(m, 0, K);
  const size_t n = (size_t)K * Np;
  double *u = insdg_calloc(n, sizeof(double)), *ux = insdg_malloc(sizeof(double) * n);
  double *uy = insdg_malloc(sizeof(double) * n), *Au = insdg_malloc(sizeof(double) * n);
  for (int c = 0; c < ncolours; ++c)
    for (int j = 0; j < Np; ++j) {
      for (int q = start[c]; q < start[c + 1]; ++q) u[(size_t)members[q] * Np + j] = 1.0;
      insdg_op_local_gradient(op, b, u, ux, uy);
      insdg_op_sipdg(op, b, bc, lambda, u, ux, uy, NULL, NULL, NULL, Au);
      for (int q = start[c]; q < start[c + 1]; ++q) {
        const int e = members[q];
        u[(size_t)e * Np + j] = 0.0;
        for (int s = 0; s < count[e]; ++s) {   /* rows of e's closed neighbourhood */
          const int er = nbhd[4 * e + s], slot = slot_of(nbhd + 4 * er, count[er], e);
          for (int i = 0; i < Np; ++i) {
            const int row = er * Np + i;
            A->val[A->row_ptr[row] + slot * Np + j] = Au[row];
          }
        }
      }
    }
  drop_zeros(A);
  insdg_block_destroy(b);
  free(u), free(ux), free(uy), free(Au);
  free(colour), free(nbhd), free(count), free(start), free(members), free(fill);
  return A;
}

/* the probes of insdg_assemble_sipdg_diagonal; full: keep e's whole diagonal block
   (column j of it is e's rows of the probe at node j), else only its diagonal */
static void probe_diagonal_blocks(const insdg_mesh *m, const insdg_ops *op, const signed char *bc, double lambda,
                                  int e0, int e1, double *d, int full)
{
  INSDG_CHECK(m->ref && m->ref->N == op->ref->N && 0 <= e0 && e0 <= e1 && e1 <= m->K);
  const int K = e1 - e0, Np = op->ref->Np;
  if (K == 0) return;
  /* greedy distance-1 colouring in element order: the smallest colour no face neighbour in
     the range has yet */
  int *colour = insdg_malloc(sizeof(int) * (size_t)K), ncolours = 0;
  for (int e = 0; e < K; ++e) {
    unsigned taken = 0;
    for (int f = 0; f < 3; ++f) {
      const int nb = m->EToE[3 * (e0 + e) + f] - e0;
      if (nb >= 0 && nb < e) taken |= 1u << colour[nb];
    }
    int c = 0;
    while (taken >> c & 1u) ++c;
    colour[e] = c;
    if (c + 1 > ncolours) ncolours = c + 1;
  }
  insdg_block *b = insdg_block_create(m, e0, e1);
  const size_t n = (size_t)K * Np;
  double *u = insdg_calloc(n, sizeof(double)), *ux = insdg_malloc(sizeof(double) * n);
  double *uy = insdg_malloc(sizeof(double) * n), *Au = insdg_malloc(sizeof(double) * n);
  double *zero_halo = insdg_calloc((size_t)(b->nhalo > 0 ? b->nhalo : 1), sizeof(double));
  for (int c = 0; c < ncolours; ++c)
    for (int j = 0; j < Np; ++j) {
      for (int e = 0; e < K; ++e)
        if (colour[e] == c) u[(size_t)e * Np + j] = 1.0;
      insdg_op_local_gradient(op, b, u, ux, uy);
      insdg_op_sipdg(op, b, bc + 3 * (size_t)e0, lambda, u, ux, uy, zero_halo, zero_halo, zero_halo, Au);
      for (int e = 0; e < K; ++e) {
        if (colour[e] != c) continue;
        u[(size_t)e * Np + j] = 0.0;
        if (full)
          for (int i = 0; i < Np; ++i) d[((size_t)e * Np + i) * Np + j] = Au[(size_t)e * Np + i];
        else
          d[(size_t)e * Np + j] = Au[(size_t)e * Np + j];
      }
    }
  insdg_block_destroy(b);
  free(u), free(ux), free(uy), free(Au), free(zero_halo), free(colour);
}

void insdg_assemble_sipdg_diagonal(const insdg_mesh *m, const insdg_ops *op, const signed char *bc, double lambda,
                                   int e0, int e1, double *d)
{
  probe_diagonal_blocks(m, op, bc, lambda, e0, e1, d, 0);
}

void insdg_assemble_sipdg_diagonal_blocks(const insdg_mesh *m, const insdg_ops *op, const signed char *bc,
                                          double lambda, int e0, int e1, double *d)
{
  probe_diagonal_blocks(m, op, bc, lambda, e0, e1, d, 1);
}
