/* mesh.h -- an unstructured triangle mesh and its degree-N geometry (paper §2.1, §5.2).
 *
 * Topology comes from a Gmsh file (io/gmsh.h) or from the built-in rectangle generator.
 * insdg_mesh_from_gmsh checks it: no two triangles on the same three nodes, every
 * triangle counter-clockwise after a per-surface reorientation (a triangle whose
 * orientation disagrees with the rest of its surface is "inverted"), none degenerate, no
 * face shared by three elements, no two neighbours folding over their common face, every
 * boundary face tagged by a physical line. (Coordinates are checked by the reader:
 * finite, |x| <= 1e15, not all at one point.)
 *
 * Geometry for a reference element (insdg_mesh_set_ref) is stored per element, for the
 * affine map of its three vertices (a curved element, curved.h, has its per-node geometry
 * in `curved`; its entries here are its straight triangle's, except FSCALE):
 *   vgeo[e][INSDG_NVGEO]        = rx, sx, ry, sy, J       (J = area / 2)
 *   sgeo[e][f][INSDG_NSGEO]     = nx, ny, sJ, sJ/J, tau   (sJ = face length / 2,
 *                                 tau = (N+1)(N+2)/2 max(1/h-, 1/h+), h = area/length,
 *                                 paper eq. Ch2.PenaltyParameter; on a boundary face h-)
 *   x, y [e][Np]                  physical node coordinates
 *   mapP[e][f][j]                 volume index e'*Np + n' of the exterior trace node
 *                                 matching node j of face f; on a boundary face the
 *                                 interior node itself.
 * Element e's face f joins its vertices f and (f+1)%3 (see ref_tri.h); neighbours
 * traverse a shared face in opposite directions, so face node j meets face node Nfp-1-j.
 *
 * Ownership: the mesh owns every array; the reference element is borrowed.
 */
#ifndef INSDG_MESH_H
#define INSDG_MESH_H

#include <stddef.h>

#include "mesh_source.h"
#include "ref_tri.h"

enum { INSDG_RX, INSDG_SX, INSDG_RY, INSDG_SY, INSDG_J, INSDG_NVGEO };
enum { INSDG_NX, INSDG_NY, INSDG_SJ, INSDG_FSCALE, INSDG_TAU, INSDG_NSGEO };

#define INSDG_MAX_BOUNDARIES 64
#define INSDG_CURVE_QMAX 10   /* highest order of a curved face (Gmsh's triangles go to 10) */

typedef struct insdg_mesh {
  int K;               /* triangles */
  int Nv;              /* vertices */
  double *vx, *vy;     /* [Nv] */
  int *EToV;           /* [K][3] counter-clockwise */
  int *EToE, *EToF;    /* [K][3] neighbour element and its face; a boundary face points to itself */
  int *face_bnd;       /* [K][3] -1 on an interior face, else index into bnd_name */
  int nbnd;
  char bnd_name[INSDG_MAX_BOUNDARIES][128];

  const insdg_ref *ref;  /* set by insdg_mesh_set_ref; borrowed */
  double *x, *y;         /* [K][Np] */
  double *vgeo;          /* [K][INSDG_NVGEO] */
  double *sgeo;          /* [K][3][INSDG_NSGEO] */
  int *mapP;             /* [K][3][Nfp] */

  /* Curved boundary faces (curved.h): face_curve[3e + f] = c >= 0 when face f of e is the
     degree-curve_q curve through curve_x/y[c][0..curve_q] (equispaced parameters, from
     vertex f to vertex f+1); NULL and 0 when every face is straight. */
  int curve_q, ncurves;
  int *face_curve;       /* [K][3] or NULL */
  double *curve_x, *curve_y;   /* [ncurves][curve_q + 1] */
  int nstraightened;     /* interior edges the file curved and insdg keeps straight */
  struct insdg_curved *curved;   /* the curved elements' geometry for ref; NULL if none */
} insdg_mesh;

/* Build and check a mesh from a Gmsh file's contents. Returns 0, or nonzero with a
   one-line message "<path>:<line>: element <tag>: <what>" in err ("<path>:<line>:
   elements <tag1> and <tag2> have the same three nodes ..." for a duplicated triangle,
   <line> being the later one's). */
int insdg_mesh_from_gmsh(const insdg_gmsh *g, insdg_mesh **out, char *err, size_t errlen);


/* A rectangle [x0,x1]x[y0,y1] cut into nx*ny cells of two triangles each, with interior
   vertices moved by up to `jitter` (fraction of a cell, < 0.3) pseudo-randomly (seed),
   and alternating diagonals so the mesh is not a product mesh. Boundaries are named
   "bottom", "right", "top", "left". For tests and benchmarks that need no file. */
insdg_mesh *insdg_mesh_rectangle(int nx, int ny, double x0, double x1, double y0, double y1,
                                 double jitter, unsigned seed);

/* Uniform refinement: each triangle cut into four at its edge midpoints; boundary names
   kept. A new mesh (geometry not set). */
insdg_mesh *insdg_mesh_refine(const insdg_mesh *m);

/* Compute x, y, vgeo, sgeo, mapP for the reference element ref (replacing any earlier). */
void insdg_mesh_set_ref(insdg_mesh *m, const insdg_ref *ref);

/* out = J M f element by element (the weak form of nodal values f [K][Np], e.g. a
   right-hand side); f and out must not overlap. Geometry must be set. */
void insdg_mesh_weak_form(const insdg_mesh *m, const double *f, double *out);

/* The mesh's area: sum of the element integrals of J (curved elements by their cubature).
   Geometry must be set. */
double insdg_mesh_area(const insdg_mesh *m);

/* Index of the boundary with this physical name, or -1. */
int insdg_mesh_boundary(const insdg_mesh *m, const char *name);

void insdg_mesh_destroy(insdg_mesh *m);

#endif
