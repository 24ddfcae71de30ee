/* gmsh.h -- reader for Gmsh ASCII meshes, formats 2.2 and 4.1, triangles only.
 *
 * What is read: nodes (x, y; z must be 0 within 1e-12 of the mesh size, else an error;
 * every coordinate must be a finite number of magnitude at most 1e15, and the nodes must
 * not all lie at one point, else an error "node <tag>: ..."),
 * triangles of order q = 1..10 (Gmsh's complete Lagrange types 2, 9, 21, 23, 25, 42-46;
 * all of one order) with the geometric entity (surface) they belong to: vertices, and for
 * q > 1 the edge nodes (curved boundary faces, src/curved.h); lines of order 1..10 (types
 * 1, 8, 26-28, 62-66) that carry a physical group (these tag boundary faces; their end
 * nodes are kept), and the $PhysicalNames section. Points (type 15) are skipped. Any other
 * element type (quadrangles, incomplete triangles, volumes) is an error naming the line
 * and the type; so is a triangle whose order differs from the first one's.
 *
 * The reader does syntax and reference checks only (truncation, unknown types, node tags
 * that do not exist). Geometric and topological checks (inverted or degenerate triangles,
 * faces shared by three elements, boundary faces without a physical group) are in
 * mesh.c, which reports the offending element by its Gmsh tag and the line it was read
 * from, kept here for that purpose.
 *
 * Ownership: insdg_gmsh_read fills *out (src/mesh_source.h) with arrays it allocates;
 * insdg_gmsh_free releases them. On failure nothing is left allocated and *out is zeroed.
 */
#ifndef INSDG_GMSH_H
#define INSDG_GMSH_H

#include <stddef.h>

#include "mesh.h"
#include "mesh_source.h"


/* Read path. Returns 0 on success. On failure returns nonzero and writes into err
   (errlen bytes) one line of the form "<path>:<line>: <what is wrong>"; for a file
   that cannot be opened "<path>: <strerror>". */
int insdg_gmsh_read(const char *path, insdg_gmsh *out, char *err, size_t errlen);

/* insdg_gmsh_read followed by insdg_mesh_from_gmsh (src/mesh.h): the checked mesh of a
   Gmsh file. 0, or nonzero with the one-line message of either. */
int insdg_mesh_read(const char *path, insdg_mesh **out, char *err, size_t errlen);

#endif
