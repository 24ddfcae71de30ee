/* partition.h -- METIS blocks, the block -> rank map, block-contiguous renumbering and
 * the halo maps between blocks (DESIGN.md, "Data model: blocks").
 *
 * B blocks over nranks ranks (B >= nranks; "ranks x blocks per rank" is the even case).
 * Rank r owns blocks floor(r B / nranks) .. floor((r+1) B / nranks) - 1, so 7 blocks on 3
 * ranks are 2, 2, 3. The mesh is first cut into nranks parts weighted by those shares,
 * then each part into its blocks (two METIS k-way passes on the dual graph, fixed seed,
 * so the result is the same on every rank and every run). One part is handled without
 * METIS, which cannot be asked for one part.
 *
 * Elements are renumbered so that block b holds elements block_start[b] ..
 * block_start[b+1]-1 (and so each rank's elements are contiguous too); within a block the
 * elements with no face on another block come first (insdg_block.Kin of them), then the
 * others, each group in locality order (insdg_mesh_locality_order: along a Hilbert curve, so
 * that a kernel finds an element's neighbours' rows close by in memory, in cache; about 15%
 * off the face kernels at N = 6..8, docs/performance.md, "2026-11-28, evening").
 * insdg_layout_create returns the renumbered mesh; old_elem[e] gives the original index of
 * new element e.
 *
 * Halos: for every ordered pair of adjacent blocks (s -> d) a pair halo of n values: the
 * exterior trace nodes d reads from s. Block d's halo array (block.h, halo_src) is the
 * concatenation of its incoming pair halos in increasing s, so pair p fills d's halo
 * slots dst_offset .. dst_offset + n - 1, and the pack on s writes
 *     buf[k] = field_s[src_node[k]],  k = 0..n-1  (src_node: block-local volume index in s).
 *
 * Ownership: the layout owns everything in it, including the renumbered mesh and the
 * blocks (insdg_block, built on the renumbered mesh after insdg_mesh_set_ref).
 */
#ifndef INSDG_PARTITION_H
#define INSDG_PARTITION_H

#include <stddef.h>

#include "block.h"
#include "mesh.h"

typedef struct {
  int src, dst;      /* blocks */
  int n;             /* values */
  int dst_offset;    /* first slot in dst's halo array */
  int *src_node;     /* [n] block-local volume node index in src */
} insdg_pair_halo;

typedef struct insdg_layout {
  int nranks, B;
  int *block_rank;     /* [B] */
  int *block_start;    /* [B+1] element ranges in the renumbered mesh */
  int *old_elem;       /* [K] original element of new element e */
  insdg_mesh *mesh;    /* the renumbered mesh, geometry set for ref */
  insdg_block **block; /* [B] */
  int npairs;
  insdg_pair_halo *pair;  /* [npairs], sorted by (dst, src) */
  int *pairs_into;        /* [B+1] pairs into block d: pair[pairs_into[d] .. pairs_into[d+1]-1] */
} insdg_layout;

/* Partition m (topology only is read; it is not modified) into nblocks blocks over nranks
   ranks, renumber, set geometry for ref (required), build blocks and pair halos.
   Returns 0, or nonzero with a message in err and *out = NULL: nranks below 1 or fewer
   blocks than ranks, more blocks than elements, a block that METIS leaves empty (too many blocks
   for the mesh), or a METIS failure. */
int insdg_layout_create(const insdg_mesh *m, const insdg_ref *ref, int nranks, int nblocks,
                        insdg_layout **out, char *err, size_t errlen);
void insdg_layout_destroy(insdg_layout *L);

/* The mesh's elements in locality order: sorted by the position of their centroid along a
   Hilbert curve through the mesh's bounding square (a 2^16 x 2^16 grid; ties by index), so
   that elements near in space are near in memory at every scale. order[K]: the elements,
   each once. Deterministic. */
void insdg_mesh_locality_order(const insdg_mesh *m, int *order);

/* A fill-reducing order of a sparse matrix's graph (n rows, CSR row_ptr/col; the diagonal
   and repeats allowed; the pattern need not be symmetric: the graph taken is that of
   A + A^T): METIS's nested dissection (METIS_NodeND, fixed seed). perm[k]: the row placed
   k-th. Deterministic. For insdg_spchol_factor (spchol.h). */
void insdg_partition_nd_order(int n, const int *row_ptr, const int *col, int *perm);

/* A copy of m with element e of the copy = element old_elem[e] of m (neighbours, faces
   and boundary tags carried along); geometry is not set. */
insdg_mesh *insdg_mesh_renumber(const insdg_mesh *m, const int *old_elem);

#endif
