/* partition.c -- two-level METIS partition, block-contiguous renumbering and pair halos
 * (partition.h, DESIGN.md "Data model: blocks").
 *
 * Steps of insdg_layout_create, each its own function:
 *   1. the dual graph of the mesh (element = vertex, interior face = edge), built from
 *      EToE in element order and face order, so the CSR arrays are deterministic;
 *   2. rank parts: METIS k-way on the whole graph (nranks parts, weighted by block shares);
 *   3. blocks: METIS k-way on each rank part's induced subgraph (that rank's blocks);
 *   4. old_elem: elements sorted by block, in a block those with no face on another block
 *      first (insdg_block.Kin: the SIPDG operator's part that needs no halo), each group by
 *      original index (a stable counting sort);
 *   5. the renumbered mesh, its geometry for ref, one insdg_block per block range;
 *   6. pair halos, read off each block's halo_src.
 * Invariants on success: every block is nonempty; block b belongs to the rank r with
 * floor(r B / nranks) <= b < floor((r+1) B / nranks); block_start is strictly increasing from 0 to K.
 *
 * METIS is asked for the minimum edge cut (the default objective): in DG, the values a
 * block exchanges are the trace nodes of its cut faces, so edge cut is halo volume.
 * Contiguous parts (METIS_OPTION_CONTIG) are asked for whenever the graph is connected
 * (METIS fails, noisily, on a disconnected graph); if METIS then fails or leaves a part
 * empty, the cut is redone without the contiguity constraint. An empty part after that
 * is a user error (too many blocks for the mesh).
 */
#include "partition.h"
#include "curved.h"

#include <math.h>
#include <metis.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

/* Fixed so that every rank and every run computes the same partition. */
#define PARTITION_SEED 4242

static int fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
  return 1;
}

/* ---- graphs ----------------------------------------------------------------------- */

/* A CSR graph in METIS's types: vertex v's neighbours are adjncy[xadj[v] .. xadj[v+1]-1]. */
typedef struct {
  idx_t nvtxs;
  idx_t *xadj, *adjncy;
} csr_graph;

static void graph_free(csr_graph *g)
{
  free(g->xadj), free(g->adjncy);
  g->xadj = g->adjncy = NULL;
}

/* The subgraph induced by the elements elems[0..n-1] (ascending): vertex i is elems[i];
   local_of[e] must be the local index of e for members and -1 for the rest. Faces are
   visited in element then face order, so the result is deterministic. With elems = all
   elements in order this is the dual graph of the mesh. */
static csr_graph induced_dual_graph(const insdg_mesh *m, const int *elems, int n, const int *local_of)
{
  csr_graph g = {n, insdg_malloc(sizeof(idx_t) * ((size_t)n + 1)), NULL};
  g.xadj[0] = 0;
  for (int i = 0; i < n; ++i) {
    const int e = elems[i];
    idx_t deg = 0;
    for (int f = 0; f < 3; ++f) {
      const int nb = m->EToE[3 * e + f];
      deg += nb != e && local_of[nb] >= 0;
    }
    g.xadj[i + 1] = g.xadj[i] + deg;
  }
  g.adjncy = insdg_malloc(sizeof(idx_t) * ((size_t)g.xadj[n] + 1));
  for (int i = 0; i < n; ++i) {
    const int e = elems[i];
    idx_t k = g.xadj[i];
    for (int f = 0; f < 3; ++f) {
      const int nb = m->EToE[3 * e + f];
      if (nb != e && local_of[nb] >= 0) g.adjncy[k++] = local_of[nb];
    }
  }
  return g;
}

static int graph_is_connected(const csr_graph *g)
{
  if (g->nvtxs == 0) return 1;
  char *seen = insdg_calloc((size_t)g->nvtxs, 1);
  idx_t *queue = insdg_malloc(sizeof(idx_t) * (size_t)g->nvtxs);
  idx_t head = 0, tail = 0;
  queue[tail++] = 0, seen[0] = 1;
  while (head < tail) {
    const idx_t v = queue[head++];
    for (idx_t k = g->xadj[v]; k < g->xadj[v + 1]; ++k)
      if (!seen[g->adjncy[k]]) seen[g->adjncy[k]] = 1, queue[tail++] = g->adjncy[k];
  }
  free(seen), free(queue);
  return tail == g->nvtxs;
}

/* ---- METIS -------------------------------------------------------------------------- */

/* tpwgts: target fraction of the vertices per part, or NULL for equal parts */
static int metis_kway(csr_graph *g, int nparts, int contig, real_t *tpwgts, idx_t *part)
{
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_OBJTYPE] = METIS_OBJTYPE_CUT;
  options[METIS_OPTION_SEED] = PARTITION_SEED;
  options[METIS_OPTION_NUMBERING] = 0;
  options[METIS_OPTION_CONTIG] = contig;
  idx_t ncon = 1, np = nparts, edgecut = 0;
  return METIS_PartGraphKway(&g->nvtxs, &ncon, g->xadj, g->adjncy, NULL, NULL, NULL, &np, tpwgts, NULL,
                             options, &edgecut, part);
}

/* Index of the first empty part, or -1. */
static int first_empty_part(const idx_t *part, idx_t n, int nparts)
{
  int *count = insdg_calloc((size_t)nparts, sizeof(int));
  for (idx_t i = 0; i < n; ++i) count[part[i]]++;
  int empty = -1;
  for (int p = 0; p < nparts && empty < 0; ++p)
    if (count[p] == 0) empty = p;
  free(count);
  return empty;
}

/* Cut g into nparts parts (part[v] in 0..nparts-1). Returns the index of an empty part
   that could not be avoided, -1 on success, or -2 if METIS failed (message in err).
   One part needs no METIS (which divides by zero when asked for one part). */
static int cut_graph(csr_graph *g, int nparts, real_t *tpwgts, idx_t *part, char *err, size_t errlen)
{
  if (nparts == 1) {
    for (idx_t v = 0; v < g->nvtxs; ++v) part[v] = 0;
    return g->nvtxs > 0 ? -1 : 0;
  }
  if (g->nvtxs < nparts) return g->nvtxs;   /* parts nvtxs.. would be empty anyway */
  int status = METIS_ERROR;
  if (graph_is_connected(g)) {
    status = metis_kway(g, nparts, 1, tpwgts, part);
    if (status == METIS_OK && first_empty_part(part, g->nvtxs, nparts) >= 0) status = METIS_ERROR;
  }
  if (status != METIS_OK) status = metis_kway(g, nparts, 0, tpwgts, part);
  if (status != METIS_OK) {
    fail(err, errlen, "METIS_PartGraphKway failed (status %d) cutting %d elements into %d parts", status,
         (int)g->nvtxs, nparts);
    return -2;
  }
  return first_empty_part(part, g->nvtxs, nparts);
}

/* ---- the two levels ----------------------------------------------------------------- */

/* Blocks of rank r: first_block(r) .. first_block(r+1)-1, as even as integers allow. */
static int first_block(int r, int nranks, int B) { return (int)((long long)r * B / nranks); }

/* elem_block[e] = the block of original element e. Ranks are cut first, each weighted by
   its share of the blocks (7 blocks on 3 ranks: 2, 2, 3), then each rank into its blocks.
   Returns 0, or 1 with a message. */
static int assign_blocks(const insdg_mesh *m, int nranks, int B, int *elem_block, char *err, size_t errlen)
{
  const int K = m->K;
  int *all = insdg_malloc(sizeof(int) * (size_t)K), *local_of = insdg_malloc(sizeof(int) * (size_t)K);
  for (int e = 0; e < K; ++e) all[e] = e, local_of[e] = e;
  idx_t *part = insdg_malloc(sizeof(idx_t) * (size_t)K);
  real_t *share = insdg_malloc(sizeof(real_t) * (size_t)nranks);
  for (int r = 0; r < nranks; ++r)
    share[r] = (real_t)(first_block(r + 1, nranks, B) - first_block(r, nranks, B)) / (real_t)B;
  csr_graph g = induced_dual_graph(m, all, K, local_of);
  int empty = cut_graph(&g, nranks, share, part, err, errlen);
  graph_free(&g);
  free(share);
  int status = 0;
  if (empty == -2) {
    status = 1;
  } else if (empty >= 0) {
    status = fail(err, errlen,
                  "rank %d got no elements when cutting %d elements into %d ranks; use fewer ranks or a finer mesh",
                  empty, K, nranks);
  }

  /* second level: the elements of rank r, ascending, then their induced subgraph */
  for (int r = 0; r < nranks && !status; ++r) {
    const int b0 = first_block(r, nranks, B), nb = first_block(r + 1, nranks, B) - b0;
    int n = 0;
    for (int e = 0; e < K; ++e) local_of[e] = part[e] == r ? n++ : -1;
    for (int e = 0; e < K; ++e)
      if (local_of[e] >= 0) all[local_of[e]] = e;
    idx_t *sub = insdg_malloc(sizeof(idx_t) * ((size_t)n + 1));
    csr_graph sg = induced_dual_graph(m, all, n, local_of);
    empty = cut_graph(&sg, nb, NULL, sub, err, errlen);
    graph_free(&sg);
    if (empty == -2) {
      status = 1;
    } else if (empty >= 0) {
      status = fail(err, errlen,
                    "block %d (rank %d, block %d of %d on that rank) came out empty: %d elements of rank %d "
                    "could not be cut into %d blocks; use fewer blocks",
                    b0 + empty, r, empty, nb, n, r, nb);
    } else {
      for (int i = 0; i < n; ++i) elem_block[all[i]] = b0 + (int)sub[i];
    }
    free(sub);
  }
  free(part), free(all), free(local_of);
  return status;
}

/* ---- locality order ---------------------------------------------------------------- */

/* The index of cell (x, y) along the Hilbert curve through a 2^bits x 2^bits grid. */
static uint64_t hilbert_index(uint32_t x, uint32_t y, int bits)
{
  const uint32_t n = 1u << bits;
  uint64_t d = 0;
  for (uint32_t s = n >> 1; s > 0; s >>= 1) {
    const uint32_t rx = (x & s) != 0, ry = (y & s) != 0;
    d += (uint64_t)s * s * ((3 * rx) ^ ry);
    if (ry == 0) {   /* rotate the quadrant so that the curve's pieces join */
      if (rx == 1) x = n - 1 - x, y = n - 1 - y;
      const uint32_t t = x;
      x = y, y = t;
    }
  }
  return d;
}

typedef struct {
  uint64_t key;
  int e;
} keyed_elem;

static int keyed_cmp(const void *a, const void *b)
{
  const keyed_elem *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return (x->e > y->e) - (x->e < y->e);
}

void insdg_mesh_locality_order(const insdg_mesh *m, int *order)
{
  const int K = m->K, bits = 16;
  double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
  for (int v = 0; v < m->Nv; ++v)
    xmin = fmin(xmin, m->vx[v]), xmax = fmax(xmax, m->vx[v]), ymin = fmin(ymin, m->vy[v]), ymax = fmax(ymax, m->vy[v]);
  const double extent = fmax(xmax - xmin, ymax - ymin), cells = (double)((1u << bits) - 1);
  keyed_elem *k = insdg_malloc(sizeof *k * (size_t)(K > 0 ? K : 1));
  for (int e = 0; e < K; ++e) {
    const int *v = m->EToV + 3 * (size_t)e;
    const double cx = (m->vx[v[0]] + m->vx[v[1]] + m->vx[v[2]]) / 3.0;
    const double cy = (m->vy[v[0]] + m->vy[v[1]] + m->vy[v[2]]) / 3.0;
    const double qx = extent > 0 ? fmin(fmax((cx - xmin) / extent, 0.0), 1.0) * cells : 0.0;
    const double qy = extent > 0 ? fmin(fmax((cy - ymin) / extent, 0.0), 1.0) * cells : 0.0;
    k[e] = (keyed_elem){hilbert_index((uint32_t)qx, (uint32_t)qy, bits), e};
  }
  qsort(k, (size_t)K, sizeof *k, keyed_cmp);
  for (int e = 0; e < K; ++e) order[e] = k[e].e;
  free(k);
}

/* Stable counting sort of elements by block, each block's elements in locality order
   (insdg_mesh_locality_order): fills block_start[B+1] and old_elem[K]. */
static void order_by_block(const insdg_mesh *m, int B, const int *elem_block, int *block_start, int *old_elem)
{
  const int K = m->K;
  int *visit = insdg_malloc(sizeof(int) * (size_t)(K > 0 ? K : 1));
  insdg_mesh_locality_order(m, visit);
  for (int b = 0; b <= B; ++b) block_start[b] = 0;
  for (int e = 0; e < K; ++e) block_start[elem_block[e] + 1]++;
  for (int b = 0; b < B; ++b) block_start[b + 1] += block_start[b];
  int *next = insdg_malloc(sizeof(int) * (size_t)B);   /* next free position of each block */
  for (int pass = 0; pass < 2; ++pass) {   /* 0: the elements with no neighbour in another block */
    if (pass == 0)
      for (int b = 0; b < B; ++b) next[b] = block_start[b];
    for (int i = 0; i < K; ++i) {
      const int e = visit[i];
      int cut = 0;
      for (int f = 0; f < 3; ++f) cut |= elem_block[m->EToE[3 * e + f]] != elem_block[e];
      if (cut == pass) old_elem[next[elem_block[e]]++] = e;
    }
  }
  free(next), free(visit);
}

/* ---- renumbering -------------------------------------------------------------------- */

insdg_mesh *insdg_mesh_renumber(const insdg_mesh *m, const int *old_elem)
{
  const int K = m->K;
  int *new_of_old = insdg_malloc(sizeof(int) * (size_t)K);
  for (int e = 0; e < K; ++e) new_of_old[e] = -1;
  for (int e = 0; e < K; ++e) {
    INSDG_CHECK(old_elem[e] >= 0 && old_elem[e] < K && new_of_old[old_elem[e]] < 0);   /* a permutation */
    new_of_old[old_elem[e]] = e;
  }
  insdg_mesh *c = insdg_calloc(1, sizeof *c);
  c->K = K, c->Nv = m->Nv, c->nbnd = m->nbnd;
  memcpy(c->bnd_name, m->bnd_name, sizeof c->bnd_name);
  c->vx = insdg_malloc(sizeof(double) * (size_t)m->Nv);
  c->vy = insdg_malloc(sizeof(double) * (size_t)m->Nv);
  memcpy(c->vx, m->vx, sizeof(double) * (size_t)m->Nv);
  memcpy(c->vy, m->vy, sizeof(double) * (size_t)m->Nv);
  c->EToV = insdg_malloc(sizeof(int) * 3 * (size_t)K);
  c->EToE = insdg_malloc(sizeof(int) * 3 * (size_t)K);
  c->EToF = insdg_malloc(sizeof(int) * 3 * (size_t)K);
  c->face_bnd = insdg_malloc(sizeof(int) * 3 * (size_t)K);
  for (int e = 0; e < K; ++e) {
    const int o = old_elem[e];
    for (int f = 0; f < 3; ++f) {
      c->EToV[3 * e + f] = m->EToV[3 * o + f];
      c->EToE[3 * e + f] = new_of_old[m->EToE[3 * o + f]];   /* a boundary face still points to itself */
      c->EToF[3 * e + f] = m->EToF[3 * o + f];
      c->face_bnd[3 * e + f] = m->face_bnd[3 * o + f];
    }
  }
  free(new_of_old);
  insdg_mesh_copy_curves(c, m, old_elem);
  return c;
}

/* ---- pair halos ---------------------------------------------------------------------- */

/* Block of new element e (block_start strictly increasing). */
static int block_of(const int *block_start, int B, int e)
{
  int lo = 0, hi = B - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (block_start[mid] <= e) lo = mid; else hi = mid - 1;
  }
  return lo;
}

/* Block d's halo_src is ascending and blocks are ascending element ranges, so its slots
   fall into runs, one per source block, in increasing source: each run is one pair. */
static void build_pair_halos(insdg_layout *L)
{
  const int B = L->B, Np = L->block[0]->Np;
  int cap = 16;
  L->pair = insdg_malloc(sizeof(insdg_pair_halo) * (size_t)cap);
  L->pairs_into = insdg_malloc(sizeof(int) * ((size_t)B + 1));
  L->npairs = 0;
  for (int d = 0; d < B; ++d) {
    L->pairs_into[d] = L->npairs;
    const insdg_block *b = L->block[d];
    for (int k0 = 0; k0 < b->nhalo;) {
      const int src = block_of(L->block_start, B, b->halo_src[k0] / Np);
      const int end = L->block_start[src + 1] * Np;
      int k1 = k0;
      while (k1 < b->nhalo && b->halo_src[k1] < end) ++k1;
      if (L->npairs == cap) cap *= 2, L->pair = realloc(L->pair, sizeof(insdg_pair_halo) * (size_t)cap);
      INSDG_CHECK(L->pair && src != d);
      insdg_pair_halo *p = &L->pair[L->npairs++];
      p->src = src, p->dst = d, p->n = k1 - k0, p->dst_offset = k0;
      p->src_node = insdg_malloc(sizeof(int) * (size_t)p->n);
      for (int k = 0; k < p->n; ++k) p->src_node[k] = b->halo_src[k0 + k] - L->block_start[src] * Np;
      k0 = k1;
    }
  }
  L->pairs_into[B] = L->npairs;
}

/* ---- the layout ------------------------------------------------------------------------ */

int insdg_layout_create(const insdg_mesh *m, const insdg_ref *ref, int nranks, int nblocks,
                        insdg_layout **out, char *err, size_t errlen)
{
  INSDG_CHECK(m && ref && out);
  *out = NULL;
  if (nranks < 1 || nblocks < nranks)
    return fail(err, errlen, "need at least one rank and at least one block per rank (got %d ranks, %d blocks)",
                nranks, nblocks);
  const int B = nblocks;
  if (B > m->K)
    return fail(err, errlen,
                "%d blocks for a mesh of %d elements: a block needs at least one element; use fewer blocks", B,
                m->K);

  int *elem_block = insdg_malloc(sizeof(int) * (size_t)m->K);
  if (assign_blocks(m, nranks, B, elem_block, err, errlen)) {
    free(elem_block);
    return 1;
  }
  insdg_layout *L = insdg_calloc(1, sizeof *L);
  L->nranks = nranks, L->B = B;
  L->block_rank = insdg_malloc(sizeof(int) * (size_t)B);
  for (int r = 0; r < nranks; ++r)
    for (int b = first_block(r, nranks, B); b < first_block(r + 1, nranks, B); ++b) L->block_rank[b] = r;
  L->block_start = insdg_malloc(sizeof(int) * ((size_t)B + 1));
  L->old_elem = insdg_malloc(sizeof(int) * (size_t)m->K);
  order_by_block(m, L->B, elem_block, L->block_start, L->old_elem);
  free(elem_block);

  L->mesh = insdg_mesh_renumber(m, L->old_elem);
  insdg_mesh_set_ref(L->mesh, ref);
  L->block = insdg_malloc(sizeof(insdg_block *) * (size_t)B);
  for (int b = 0; b < L->B; ++b) L->block[b] = insdg_block_create(L->mesh, L->block_start[b], L->block_start[b + 1]);
  build_pair_halos(L);
  *out = L;
  return 0;
}

void insdg_layout_destroy(insdg_layout *L)
{
  if (!L) return;
  for (int p = 0; p < L->npairs; ++p) free(L->pair[p].src_node);
  free(L->pair), free(L->pairs_into);
  for (int b = 0; b < L->B && L->block; ++b) insdg_block_destroy(L->block[b]);
  free(L->block);
  insdg_mesh_destroy(L->mesh);
  free(L->block_rank), free(L->block_start), free(L->old_elem);
  free(L);
}

static int cmp_idx(const void *a, const void *b)
{
  const idx_t x = *(const idx_t *)a, y = *(const idx_t *)b;
  return (x > y) - (x < y);
}

void insdg_partition_nd_order(int n, const int *row_ptr, const int *col, int *perm)
{
  if (n <= 2) {   /* nothing to reorder (and METIS wants a graph) */
    for (int k = 0; k < n; ++k) perm[k] = k;
    return;
  }
  /* The graph of A + A^T without self loops: METIS_NodeND needs a symmetric graph (given an
     asymmetric one, Debian's METIS 5.1 can refine forever), and the pattern of a matrix
     that is symmetric up to round-off need not be -- an entry that cancels to an exact
     zero on one side only is squeezed out there (assemble.c). Each (i, j) goes into rows
     i and j, then every row is sorted and its repeats dropped. */
  const size_t nnz = (size_t)row_ptr[n];
  csr_graph g = {n, insdg_calloc((size_t)n + 1, sizeof(idx_t)), insdg_malloc(sizeof(idx_t) * (2 * nnz + 1))};
  idx_t *fill = insdg_malloc(sizeof(idx_t) * (size_t)n);
  for (int i = 0; i < n; ++i)
    for (int k = row_ptr[i]; k < row_ptr[i + 1]; ++k)
      if (col[k] != i) g.xadj[i + 1]++, g.xadj[col[k] + 1]++;
  for (int i = 0; i < n; ++i) g.xadj[i + 1] += g.xadj[i], fill[i] = g.xadj[i];
  for (int i = 0; i < n; ++i)
    for (int k = row_ptr[i]; k < row_ptr[i + 1]; ++k)
      if (col[k] != i) g.adjncy[fill[i]++] = col[k], g.adjncy[fill[col[k]]++] = i;
  idx_t m = 0;
  for (int i = 0; i < n; ++i) {   /* sort each row, drop its repeats, compact in place */
    idx_t *row = g.adjncy + g.xadj[i];
    const idx_t len = g.xadj[i + 1] - g.xadj[i];
    qsort(row, (size_t)len, sizeof(idx_t), cmp_idx);
    g.xadj[i] = m;
    for (idx_t q = 0; q < len; ++q)
      if (q == 0 || row[q] != row[q - 1]) g.adjncy[m++] = row[q];
  }
  g.xadj[n] = m;
  free(fill);
  idx_t *mperm = insdg_malloc(sizeof(idx_t) * (size_t)n), *iperm = insdg_malloc(sizeof(idx_t) * (size_t)n);
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_SEED] = PARTITION_SEED;
  options[METIS_OPTION_NUMBERING] = 0;
  /* METIS: row k of the permuted matrix is row mperm[k] of the original, iperm the inverse */
  if (METIS_NodeND(&g.nvtxs, g.xadj, g.adjncy, NULL, options, mperm, iperm) != METIS_OK)
    insdg_internal_error(__FILE__, __LINE__, "METIS_NodeND failed");
  for (int k = 0; k < n; ++k) perm[k] = (int)mperm[k];
  graph_free(&g);
  free(mperm), free(iperm);
}
