/* block.h -- a block: a contiguous range of elements, the unit every kernel works on.
 *
 * DESIGN.md's data model: the mesh is cut into blocks; a block's scalar fields are arrays
 * [K][Np] of doubles. A face map entry of a block, mapP[e][f][j], is either
 *   < K*Np   : a volume node of this block (exterior trace inside the block), or
 *   >= K*Np  : slot mapP - K*Np of the block's halo array, which holds the exterior trace
 *              values this block needs from other blocks (filled by a pack/exchange step).
 * On boundary faces mapP is the interior node itself and face_bnd >= 0.
 * halo_src[k] names the global volume node (e'*Np + n) that halo slot k receives, so
 * whoever fills the halo (a serial gather here, StarPU pack tasks later) knows what to copy.
 *
 * Ownership: the block owns mapP and halo_src; vgeo, sgeo, face_bnd and the curved
 * geometry point into the mesh, which must outlive the block.
 */
#ifndef INSDG_BLOCK_H
#define INSDG_BLOCK_H

#include "mesh.h"

typedef struct insdg_block {
  int e0, K;              /* global elements e0 .. e0+K-1 */
  int N, Np, Nfp;
  const double *vgeo;     /* [K][INSDG_NVGEO] */
  const double *sgeo;     /* [K][3][INSDG_NSGEO] */
  const int *face_bnd;    /* [K][3] -1 interior, else boundary index of the mesh */
  int *mapP;              /* [K][3][Nfp] block-local exterior index (see above) */
  /* The face neighbours of an element whose three neighbours are in the block, for kernels
     that read a neighbour's whole row: nbr_row[e][f] = its first node (block-local index) and
     nbr_face[e] = f'_0 | f'_1 << 2 | f'_2 << 4, face f of e being face f'_f of the neighbour,
     its nodes there in reverse order (as on any conforming mesh of counter-clockwise
     elements). nbr_face[e] = INSDG_NBR_NONE where a face is on the boundary, has its
     neighbour in the halo or does not match so, and nbr_row[e] is then not to be read. Built
     from mapP by insdg_block_create; read by the register SIPDG (src/ops_sipdg_reg.inc). */
  int *nbr_row;           /* [K][3] */
  unsigned char *nbr_face;  /* [K] */
  int nhalo;
  int *halo_src;
  int Kin;                /* elements [0, Kin) read no halo slot (the layout puts a block's
                             elements with a face on another block last: partition.c) */          /* [nhalo] global volume node index, ascending */
  /* curved elements (curved.h): ncurved of them in this block; cindex[e] (block-local e)
     is the element's position in curved's arrays, or -1. NULL and 0 without any. */
  const struct insdg_curved *curved;
  const int *cindex;      /* [K] */
  int ncurved;
} insdg_block;

/* The block of elements [e0, e1) of a mesh whose geometry is set (insdg_mesh_set_ref). */
insdg_block *insdg_block_create(const insdg_mesh *m, int e0, int e1);
void insdg_block_destroy(insdg_block *b);

/* Serial halo fill: halo[k] = global_field[halo_src[k]]. */
void insdg_block_gather_halo(const insdg_block *b, const double *global_field, double *halo);

enum { INSDG_NBR_NONE = 0xff };

/* Boundary-condition codes of one field, per face. */
enum { INSDG_BC_INTERIOR = 0, INSDG_BC_DIRICHLET = 1, INSDG_BC_NEUMANN = 2 };

/* bc[e][f] for the block's faces: code_of_boundary[face_bnd] on boundary faces,
   INSDG_BC_INTERIOR elsewhere. bc has 3*K entries. */
void insdg_block_bc_codes(const insdg_block *b, const signed char *code_of_boundary, signed char *bc);

#endif
