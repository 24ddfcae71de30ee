/* test_partition.c -- the METIS layout (partition/partition.h) on hole41.msh and on a
 * generated rectangle, for (ranks, total blocks) in {(1,1), (1,7), (3,3), (3,7), (3,21), (2,8)}
 * and N in {1, 3}:
 *  1. every element is in exactly one block, blocks are nonempty ascending ranges,
 *     block_rank[b] = the rank whose share floor(rB/R)..floor((r+1)B/R)-1 holds b, old_elem a permutation;
 *  2. the renumbered mesh is the same mesh: vertices, node coordinates, neighbours,
 *     faces and boundary tags carried along;
 *  3. the pair halos into each block, in increasing source, are exactly its halo_src;
 *  4. the gradient on the renumbered mesh, block by block with halos filled from the
 *     pair halos, equals the gradient on the original mesh bitwise;
 *  5. two calls give identical layouts;
 *  6. too many blocks and nonpositive counts are user errors with a message;
 *  7. insdg_mesh_locality_order on a 64x64 rectangle (8192 triangles, numbered row by row):
 *     a permutation, the same on a second call, and local: at least 85% of the face
 *     neighbour pairs at most 32 elements apart in it (89.5% when written; row order: 2/3,
 *     the rest a row, ~128 elements, apart).
 * It also prints the partition quality (cut faces, halo sizes) of each layout and of a
 * 100x100 rectangle at (3 ranks, 21 blocks).
 * Usage: test_partition HOLE41_MSH
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "block.h"
#include "error.h"
#include "gmsh.h"
#include "mesh.h"
#include "ops.h"
#include "partition.h"
#include "ref_tri.h"

#include "expect.h"

/* (ranks, total blocks) */
static const int configs[][2] = {{1, 1}, {1, 7}, {3, 3}, {3, 7}, {3, 21}, {2, 8}};

/* ---- 1. blocks cover the mesh --------------------------------------------------------- */
static void check_blocks(const insdg_layout *L, int K, const char *label)
{
  EXPECT(L->B >= L->nranks, "%s: B = %d", label, L->B);
  EXPECT(L->block_start[0] == 0 && L->block_start[L->B] == K, "%s: block_start does not span 0..K", label);
  for (int b = 0; b < L->B; ++b) {
    EXPECT(L->block_start[b + 1] > L->block_start[b], "%s: block %d is empty or out of order", label, b);
    EXPECT((long long)L->block_rank[b] * L->B / L->nranks <= b && b < (long long)(L->block_rank[b] + 1) * L->B / L->nranks,
           "%s: block %d on rank %d", label, b, L->block_rank[b]);
    EXPECT(L->block[b]->e0 == L->block_start[b] && L->block[b]->K == L->block_start[b + 1] - L->block_start[b],
           "%s: block %d's range differs from block_start", label, b);
  }
  /* a block's elements with no face on another block come first: exactly Kin of them */
  for (int b = 0; b < L->B; ++b) {
    const insdg_block *blk = L->block[b];
    int last_inner = -1, first_cut = blk->K, ninner = 0;
    for (int e = 0; e < blk->K; ++e) {
      const int E = blk->e0 + e;
      int cut = 0;
      for (int f = 0; f < 3; ++f) {
        const int nb = L->mesh->EToE[3 * E + f];
        cut |= nb < blk->e0 || nb >= blk->e0 + blk->K;
      }
      if (cut && e < first_cut) first_cut = e;
      if (!cut) last_inner = e, ninner++;
    }
    EXPECT(last_inner < first_cut && blk->Kin == ninner,
           "%s: block %d: inner elements up to %d, cut ones from %d, Kin %d (%d inner)", label, b, last_inner, first_cut,
           blk->Kin, ninner);
  }
  int *seen = insdg_calloc((size_t)K, sizeof(int));
  for (int e = 0; e < K; ++e)
    if (L->old_elem[e] >= 0 && L->old_elem[e] < K) seen[L->old_elem[e]]++;
  for (int e = 0; e < K; ++e) EXPECT(seen[e] == 1, "%s: element %d appears %d times in old_elem", label, e, seen[e]);
  free(seen);
}

/* ---- 2. the renumbered mesh is the same mesh ------------------------------------------ */
static void check_renumbered_mesh(const insdg_mesh *m, const insdg_layout *L, const char *label)
{
  const insdg_mesh *c = L->mesh;
  const int K = m->K, Np = m->ref->Np;
  EXPECT(c->K == K && c->Nv == m->Nv && c->nbnd == m->nbnd, "%s: sizes differ", label);
  for (int b = 0; b < m->nbnd && b < c->nbnd; ++b)
    EXPECT(strcmp(c->bnd_name[b], m->bnd_name[b]) == 0, "%s: boundary %d renamed", label, b);
  int *new_of_old = insdg_malloc(sizeof(int) * (size_t)K);
  for (int e = 0; e < K; ++e) new_of_old[L->old_elem[e]] = e;
  int bad_vertex = 0, bad_nodes = 0, bad_topology = 0;
  for (int e = 0; e < K; ++e) {
    const int o = L->old_elem[e];
    for (int f = 0; f < 3; ++f) {
      const int vn = c->EToV[3 * e + f], vo = m->EToV[3 * o + f];
      bad_vertex += c->vx[vn] != m->vx[vo] || c->vy[vn] != m->vy[vo];
      bad_topology += c->EToE[3 * e + f] != new_of_old[m->EToE[3 * o + f]] || c->EToF[3 * e + f] != m->EToF[3 * o + f] ||
                      c->face_bnd[3 * e + f] != m->face_bnd[3 * o + f];
    }
    bad_nodes += memcmp(c->x + (size_t)e * Np, m->x + (size_t)o * Np, sizeof(double) * Np) != 0 ||
                 memcmp(c->y + (size_t)e * Np, m->y + (size_t)o * Np, sizeof(double) * Np) != 0;
  }
  EXPECT(bad_vertex == 0, "%s: %d element vertices moved", label, bad_vertex);
  EXPECT(bad_nodes == 0, "%s: %d elements' nodes moved", label, bad_nodes);
  EXPECT(bad_topology == 0, "%s: %d faces lost their neighbour, face or boundary tag", label, bad_topology);
  free(new_of_old);
}

/* ---- 3. pair halos reproduce halo_src ------------------------------------------------- */
static void check_pair_halos(const insdg_layout *L, const char *label)
{
  const int Np = L->block[0]->Np;
  EXPECT(L->pairs_into[0] == 0 && L->pairs_into[L->B] == L->npairs, "%s: pairs_into does not span the pairs", label);
  for (int d = 0; d < L->B; ++d) {
    const insdg_block *b = L->block[d];
    int filled = 0, last_src = -1, mismatches = 0;
    for (int p = L->pairs_into[d]; p < L->pairs_into[d + 1]; ++p) {
      const insdg_pair_halo *h = &L->pair[p];
      EXPECT(h->dst == d && h->src != d && h->src > last_src && h->n > 0, "%s: pair %d (%d -> %d, n %d) out of place",
             label, p, h->src, h->dst, h->n);
      EXPECT(h->dst_offset == filled, "%s: pair %d starts at slot %d, expected %d", label, p, h->dst_offset, filled);
      for (int k = 0; k < h->n && filled + k < b->nhalo; ++k)
        mismatches += L->block_start[h->src] * Np + h->src_node[k] != b->halo_src[h->dst_offset + k];
      last_src = h->src, filled += h->n;
    }
    EXPECT(filled == b->nhalo, "%s: pairs into block %d fill %d of %d halo slots", label, d, filled, b->nhalo);
    EXPECT(mismatches == 0, "%s: %d halo slots of block %d name the wrong node", label, mismatches, d);
  }
}

/* ---- 4. the gradient on blocks == on the original mesh -------------------------------- */
static void all_dirichlet(signed char *codes)
{
  for (int i = 0; i < INSDG_MAX_BOUNDARIES; ++i) codes[i] = INSDG_BC_DIRICHLET;
}

/* Fill block d's halo from the other blocks' fields as the pack tasks will. */
static void fill_halo(const insdg_layout *L, int d, const double *field, double *halo)
{
  const int Np = L->block[d]->Np;
  for (int p = L->pairs_into[d]; p < L->pairs_into[d + 1]; ++p) {
    const insdg_pair_halo *h = &L->pair[p];
    const double *field_src = field + (size_t)L->block_start[h->src] * Np;
    for (int k = 0; k < h->n; ++k) halo[h->dst_offset + k] = field_src[h->src_node[k]];
  }
}

static void check_gradient(const insdg_mesh *m, const insdg_layout *L, const insdg_ops *op, const char *label)
{
  const int K = m->K, Np = m->ref->Np;
  const size_t n = (size_t)K * Np;
  signed char codes[INSDG_MAX_BOUNDARIES];
  all_dirichlet(codes);
  double *f = insdg_malloc(sizeof(double) * n), *gx = insdg_malloc(sizeof(double) * n), *gy = insdg_malloc(sizeof(double) * n);
  for (size_t i = 0; i < n; ++i) f[i] = sin(m->x[i] + 2 * m->y[i]) + m->x[i] * m->y[i];
  insdg_block *whole = insdg_block_create(m, 0, K);
  signed char *bc = insdg_malloc(3 * (size_t)K);
  insdg_block_bc_codes(whole, codes, bc);
  insdg_op_gradient(op, whole, bc, NULL, f, NULL, gx, gy);

  double *fn = insdg_malloc(sizeof(double) * n), *hx = insdg_malloc(sizeof(double) * n), *hy = insdg_malloc(sizeof(double) * n);
  for (int e = 0; e < K; ++e) memcpy(fn + (size_t)e * Np, f + (size_t)L->old_elem[e] * Np, sizeof(double) * Np);
  for (int d = 0; d < L->B; ++d) {
    const insdg_block *b = L->block[d];
    const size_t off = (size_t)b->e0 * Np;
    double *halo = insdg_malloc(sizeof(double) * (size_t)(b->nhalo > 0 ? b->nhalo : 1));
    fill_halo(L, d, fn, halo);
    insdg_block_bc_codes(b, codes, bc);
    insdg_op_gradient(op, b, bc, NULL, fn + off, halo, hx + off, hy + off);
    free(halo);
  }
  double *bx = insdg_malloc(sizeof(double) * n), *by = insdg_malloc(sizeof(double) * n);
  for (int e = 0; e < K; ++e) {
    memcpy(bx + (size_t)L->old_elem[e] * Np, hx + (size_t)e * Np, sizeof(double) * Np);
    memcpy(by + (size_t)L->old_elem[e] * Np, hy + (size_t)e * Np, sizeof(double) * Np);
  }
  EXPECT(memcmp(gx, bx, sizeof(double) * n) == 0 && memcmp(gy, by, sizeof(double) * n) == 0,
         "%s: the gradient on %d blocks differs from one block", label, L->B);
  free(f), free(gx), free(gy), free(fn), free(hx), free(hy), free(bx), free(by), free(bc);
  insdg_block_destroy(whole);
}

/* ---- 5. determinism ----------------------------------------------------------------- */
static int same_layout(const insdg_layout *a, const insdg_layout *b, int K)
{
  if (a->B != b->B || a->npairs != b->npairs) return 0;
  if (memcmp(a->block_start, b->block_start, sizeof(int) * ((size_t)a->B + 1)) ||
      memcmp(a->old_elem, b->old_elem, sizeof(int) * (size_t)K) ||
      memcmp(a->pairs_into, b->pairs_into, sizeof(int) * ((size_t)a->B + 1)))
    return 0;
  for (int p = 0; p < a->npairs; ++p) {
    const insdg_pair_halo *x = &a->pair[p], *y = &b->pair[p];
    if (x->src != y->src || x->dst != y->dst || x->n != y->n || x->dst_offset != y->dst_offset ||
        memcmp(x->src_node, y->src_node, sizeof(int) * (size_t)x->n))
      return 0;
  }
  return 1;
}

/* ---- quality ------------------------------------------------------------------------- */

/* Number of connected pieces of block b (1 = contiguous). */
static int block_pieces(const insdg_layout *L, int b)
{
  const insdg_mesh *c = L->mesh;
  const int e0 = L->block_start[b], n = L->block_start[b + 1] - e0;
  int *piece = insdg_malloc(sizeof(int) * (size_t)n), *stack = insdg_malloc(sizeof(int) * (size_t)n);
  for (int i = 0; i < n; ++i) piece[i] = -1;
  int npieces = 0;
  for (int s = 0; s < n; ++s) {
    if (piece[s] >= 0) continue;
    int top = 0;
    stack[top++] = s, piece[s] = npieces;
    while (top > 0) {
      const int i = stack[--top];
      for (int f = 0; f < 3; ++f) {
        const int j = c->EToE[3 * (e0 + i) + f] - e0;
        if (j >= 0 && j < n && piece[j] < 0) piece[j] = npieces, stack[top++] = j;
      }
    }
    ++npieces;
  }
  free(piece), free(stack);
  return npieces;
}

static void print_quality(const insdg_layout *L, const char *label)
{
  const insdg_mesh *c = L->mesh;
  int cut_blocks = 0, cut_ranks = 0, kmin = c->K, kmax = 0, hmax = 0, hsum = 0, noncontig = 0;
  int *block_of = insdg_malloc(sizeof(int) * (size_t)c->K);
  for (int b = 0; b < L->B; ++b)
    for (int e = L->block_start[b]; e < L->block_start[b + 1]; ++e) block_of[e] = b;
  for (int e = 0; e < c->K; ++e)
    for (int f = 0; f < 3; ++f) {
      const int nb = c->EToE[3 * e + f];
      if (nb > e && block_of[nb] != block_of[e]) ++cut_blocks;
      if (nb > e && L->block_rank[block_of[nb]] != L->block_rank[block_of[e]]) ++cut_ranks;
    }
  for (int b = 0; b < L->B; ++b) {
    const int kb = L->block_start[b + 1] - L->block_start[b];
    kmin = kb < kmin ? kb : kmin, kmax = kb > kmax ? kb : kmax;
    hsum += L->block[b]->nhalo, hmax = L->block[b]->nhalo > hmax ? L->block[b]->nhalo : hmax;
    noncontig += block_pieces(L, b) > 1;
  }
  printf("quality  %-26s K=%6d B=%2d  elems/block %5d..%5d  cut faces %5d (between ranks %5d)  "
         "pairs %3d  halo sum %6d max %5d  noncontiguous blocks %d\n",
         label, c->K, L->B, kmin, kmax, cut_blocks, cut_ranks, L->npairs, hsum, hmax, noncontig);
  free(block_of);
}

/* ---- one mesh, one degree, all configurations ------------------------------------------ */
static void check_mesh(insdg_mesh *m, const char *name, int N)
{
  insdg_ref *ref = insdg_ref_create(N);
  insdg_ops *op = insdg_ops_create(ref);
  insdg_mesh_set_ref(m, ref);
  for (size_t c = 0; c < sizeof configs / sizeof configs[0]; ++c) {
    char label[96], err[INSDG_ERRMSG_LEN] = "";
    snprintf(label, sizeof label, "%s N=%d (%d,%d)", name, N, configs[c][0], configs[c][1]);
    insdg_layout *L = NULL, *again = NULL;
    int status = insdg_layout_create(m, ref, configs[c][0], configs[c][1], &L, err, sizeof err);
    EXPECT(status == 0 && L, "%s: insdg_layout_create failed: %s", label, err);
    if (status) continue;
    check_blocks(L, m->K, label);
    check_renumbered_mesh(m, L, label);
    check_pair_halos(L, label);
    check_gradient(m, L, op, label);
    status = insdg_layout_create(m, ref, configs[c][0], configs[c][1], &again, err, sizeof err);
    EXPECT(status == 0 && same_layout(L, again, m->K), "%s: a second call gives another layout", label);
    if (N == 1) print_quality(L, label);
    insdg_layout_destroy(again);
    insdg_layout_destroy(L);
  }
  printf("layout   %-10s N=%d  %zu configurations: blocks, renumbered mesh, pair halos, gradient bitwise, determinism\n",
         name, N, sizeof configs / sizeof configs[0]);
  insdg_ops_destroy(op);
  insdg_ref_destroy(ref);
}

/* ---- 6. errors ------------------------------------------------------------------------- */
static void expect_error(const insdg_mesh *m, const insdg_ref *ref, int nranks, int bpr, const char *must_contain)
{
  char err[INSDG_ERRMSG_LEN] = "";
  insdg_layout *L = NULL;
  const int status = insdg_layout_create(m, ref, nranks, bpr, &L, err, sizeof err);
  EXPECT(status != 0 && L == NULL && strstr(err, must_contain),
         "(%d,%d) on %d elements: status %d, message '%s' (expected one with '%s')", nranks, bpr, m->K, status, err,
         must_contain);
  printf("error    (%d,%d) on %d elements: %s\n", nranks, bpr, m->K, err);
}

static void check_errors(void)
{
  insdg_ref *ref = insdg_ref_create(1);
  insdg_mesh *tiny = insdg_mesh_rectangle(2, 2, 0, 1, 0, 1, 0.0, 1);   /* 8 elements */
  expect_error(tiny, ref, 3, 9, "use fewer blocks");
  expect_error(tiny, ref, 9, 9, "use fewer blocks");
  expect_error(tiny, ref, 0, 1, "at least one rank");
  expect_error(tiny, ref, 2, 1, "at least one rank");
  /* as many blocks as elements: METIS may or may not manage; an empty block must be
     reported as such, and a success must be a valid layout */
  char err[INSDG_ERRMSG_LEN] = "";
  insdg_layout *L = NULL;
  if (insdg_layout_create(tiny, ref, 2, 8, &L, err, sizeof err)) {
    EXPECT(strstr(err, "empty") && strstr(err, "fewer"), "(2 ranks, 8 blocks) on 8 elements: unexpected message '%s'", err);
    printf("error    (2 ranks, 8 blocks) on 8 elements: %s\n", err);
  } else {
    check_blocks(L, tiny->K, "tiny (2,8)");
    check_pair_halos(L, "tiny (2,8)");
    printf("layout   (2 ranks, 8 blocks) on 8 elements: one element per block\n");
    insdg_layout_destroy(L);
  }
  insdg_mesh_destroy(tiny);
  insdg_ref_destroy(ref);
}

/* ---- 7. locality order ---------------------------------------------------------------- */

/* the fraction of face neighbour pairs at most d apart in the order new -> old given */
static double near_fraction(const insdg_mesh *m, const int *order, int d)
{
  int *pos = insdg_malloc(sizeof(int) * (size_t)m->K), pairs = 0, near = 0;
  for (int i = 0; i < m->K; ++i) pos[order[i]] = i;
  for (int e = 0; e < m->K; ++e)
    for (int f = 0; f < 3; ++f) {
      const int nb = m->EToE[3 * e + f];
      if (nb == e) continue;
      pairs++, near += abs(pos[nb] - pos[e]) <= d;
    }
  free(pos);
  return (double)near / pairs;
}

static void check_locality_order(void)
{
  insdg_mesh *m = insdg_mesh_rectangle(64, 64, 0, 1, 0, 1, 0.2, 5);
  const int K = m->K;
  int *order = insdg_malloc(sizeof(int) * (size_t)K), *again = insdg_malloc(sizeof(int) * (size_t)K);
  int *seen = insdg_calloc((size_t)K, sizeof(int)), *identity = insdg_malloc(sizeof(int) * (size_t)K);
  insdg_mesh_locality_order(m, order);
  insdg_mesh_locality_order(m, again);
  int bad = 0;
  for (int i = 0; i < K; ++i) {
    identity[i] = i;
    if (order[i] < 0 || order[i] >= K || seen[order[i]]++) bad++;
  }
  EXPECT(bad == 0, "locality order: %d entries out of range or repeated", bad);
  EXPECT(memcmp(order, again, sizeof(int) * (size_t)K) == 0, "locality order: two calls differ");
  const double loc = near_fraction(m, order, 32), row = near_fraction(m, identity, 32);
  printf("locality order, rect64x64: %.1f%% of neighbour pairs within 32 elements (row order %.1f%%)\n", 100 * loc,
         100 * row);
  EXPECT(loc >= 0.85, "locality order: only %.1f%% of neighbour pairs within 32 elements", 100 * loc);
  free(order), free(again), free(seen), free(identity);
  insdg_mesh_destroy(m);
}

int main(int argc, char **argv)
{
  if (argc < 2) {
    fprintf(stderr, "usage: %s HOLE41_MSH\n", argv[0]);
    return 2;
  }
  insdg_mesh *hole, *rect = insdg_mesh_rectangle(12, 10, 0, 2, 0, 1, 0.2, 7);
  char err[INSDG_ERRMSG_LEN];
  if (insdg_mesh_read(argv[1], &hole, err, sizeof err)) {
    fprintf(stderr, "%s\n", err);
    return 1;
  }
  for (int N = 1; N <= 3; N += 2) {
    check_mesh(hole, "hole41", N);
    check_mesh(rect, "rect12x10", N);
  }
  check_errors();
  check_locality_order();

  /* quality on a larger mesh, as a number to watch */
  insdg_mesh *big = insdg_mesh_rectangle(100, 100, 0, 1, 0, 1, 0.2, 3);
  insdg_ref *ref = insdg_ref_create(1);
  insdg_layout *L = NULL;
  EXPECT(insdg_layout_create(big, ref, 3, 21, &L, err, sizeof err) == 0, "rect100x100 (3,21): %s", err);
  if (L) print_quality(L, "rect100x100 N=1 (3,21)");
  insdg_layout_destroy(L);
  insdg_ref_destroy(ref);
  insdg_mesh_destroy(big);

  insdg_mesh_destroy(hole);
  insdg_mesh_destroy(rect);
  if (failures) printf("%d failures\n", failures);
  else printf("all partition tests passed\n");
  return failures != 0;
}
