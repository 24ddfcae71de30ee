/* gmsh.h -- reader for Gmsh ASCII meshes, formats 2.2 and 4.1, triangles only.
 *
 * What is read: nodes (x, y; z must be 0 within 1e-12 of the mesh size, else an error;
 * every coordinate must be a finite number of magnitude at most 1e15, and the nodes must
 * not all lie at one point, else an error "node <tag>: ..."),
 * 3-node triangles (type 2) with the geometric entity (surface) they belong to,
 * 2-node lines (type 1) that carry a physical group (these tag boundary faces), and the
 * $PhysicalNames section. Points (type 15) are skipped. Any other element type is an
 * error naming the line and the type.
 *
 * The reader does syntax and reference checks only (truncation, unknown types, node tags
 * that do not exist). Geometric and topological checks (inverted or degenerate triangles,
 * faces shared by three elements, boundary faces without a physical group) are in
 * mesh.c, which reports the offending element by its Gmsh tag and the line it was read
 * from, kept here for that purpose.
 *
 * Ownership: insdg_gmsh_read fills *out with arrays it allocates; insdg_gmsh_free
 * releases them. On failure nothing is left allocated and *out is zeroed.
 */
#ifndef INSDG_GMSH_H
#define INSDG_GMSH_H

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

  int nline;
  int *line;            /* [nline][2] node indices of boundary segments */
  int *line_phys;       /* [nline] physical tag of the segment */
  int *line_line;       /* [nline] line number in the file */

  int nphys;
  insdg_gmsh_physical *phys;   /* [nphys] every physical tag used by a line or triangle,
                                  and every entry of $PhysicalNames */
  char path[4096];             /* the file name, for messages */
} insdg_gmsh;

/* Read path. Returns 0 on success. On failure returns nonzero and writes into err
   (errlen bytes) one line of the form "<path>:<line>: <what is wrong>"; for a file
   that cannot be opened "<path>: <strerror>". */
int insdg_gmsh_read(const char *path, insdg_gmsh *out, char *err, size_t errlen);

void insdg_gmsh_free(insdg_gmsh *m);

/* Name of a physical tag of the given dimension, or NULL. */
const char *insdg_gmsh_physical_name(const insdg_gmsh *m, int dim, int tag);

#endif
