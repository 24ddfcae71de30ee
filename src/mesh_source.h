/* mesh_source.h -- the topology of a mesh in the order a mesh file gives it: nodes,
 * triangles and boundary segments with their physical groups, and where in the file each
 * came from (for messages). A file reader (io/gmsh.h) fills it; mesh.c checks it and builds
 * the mesh (insdg_mesh_from_gmsh). It lives in src/ so that the numerics do not depend on
 * any file format.
 */
#ifndef INSDG_MESH_SOURCE_H
#define INSDG_MESH_SOURCE_H

#include <stddef.h>

typedef struct {
  int tag;          /* Gmsh physical tag */
  int dim;          /* 1 for boundary curves, 2 for surfaces */
  char name[128];   /* name from $PhysicalNames, or the tag printed as a number if unnamed */
} insdg_gmsh_physical;

typedef struct {
  int nnodes;
  double *x, *y;        /* [nnodes] coordinates, numbered 0..nnodes-1 in file order */

  int ntri;
  int *tri;             /* [ntri][3] node indices (0-based, into x/y), as given in the file */
  int *tri_tag;         /* [ntri] Gmsh element tag */
  int *tri_entity;      /* [ntri] geometric (elementary) entity tag */
  int *tri_line;        /* [ntri] line number in the file where the element is defined */
  int tri_order;        /* order q of the triangles (1: straight 3-node triangles) */
  int *tri_edge;        /* [ntri][3(q-1)] when q > 1: edge nodes, the q - 1 of edge 0-1 (from
                           node 0 towards node 1), then of 1-2, then of 2-0 (Gmsh's order) */

  int nline;
  int *line;            /* [nline][2] node indices of boundary segments */
  int *line_phys;       /* [nline] physical tag of the segment */
  int *line_line;       /* [nline] line number in the file */

  int nphys;
  insdg_gmsh_physical *phys;   /* [nphys] every physical tag used by a line or triangle,
                                  and every entry of $PhysicalNames */
  char path[4096];             /* the file name, for messages */
} insdg_gmsh;

/* Frees the arrays of m and zeroes it (m may be zeroed already). */
void insdg_gmsh_free(insdg_gmsh *m);

/* Name of a physical tag of the given dimension, or NULL. */
const char *insdg_gmsh_physical_name(const insdg_gmsh *m, int dim, int tag);

#endif
