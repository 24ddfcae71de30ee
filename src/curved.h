/* curved.h -- triangles with a curved boundary face (isoparametric elements).
 *
 * Where curves come from: a high-order Gmsh mesh (gmsh -order q) gives every triangle its
 * edge nodes. mesh.c keeps the edges that lie on a boundary and are not straight as
 * curves: face (e, f) with face_curve[3e + f] = c >= 0 is the degree-q polynomial curve
 * through curve_x/y[c][0..q], the points at the equispaced parameters t_k = -1 + 2k/q from
 * vertex f (t = -1) to vertex f+1 (t = 1). Interior edges are always straight (a file that
 * curves one gets it straightened, counted in nstraightened): so the face shared by two
 * elements is a straight segment seen alike from both sides, and a curved element's
 * neighbours are affine elements that need nothing new.
 *
 * The element map (blending, equivalent to Gordon-Hall's for one curved edge per vertex
 * pair): with the barycentric coordinates l0 = -(r+s)/2, l1 = (1+r)/2, l2 = (1+s)/2,
 *   x(r, s) = sum_v l_v x_v + sum_{curved faces f} l_a l_b phi_f(l_b - l_a)
 * (a = f, b = f+1), where phi_f(t) = 4 d_f(t) / (1 - t^2) and d_f(t) is the curve's
 * deviation from its chord. The blend term is the curve's deviation on face f and vanishes
 * on the other two faces, and x is a polynomial of degree q: exact isoparametric geometry
 * for every N >= q, and its degree-N interpolant below.
 *
 * Geometry of degree N (insdg_curved_create, called by insdg_mesh_set_ref): the nodes are
 * the map at the degree-N nodes; x_r = Dr x etc. (the interpolant's derivatives), so every
 * factor below is a polynomial-derived quantity of the discrete geometry. The affine
 * vgeo/sgeo of a curved element (mesh.h) keep its straight triangle's values, except the
 * face factor FSCALE = max over the face nodes of sJ/J, which sets the penalty tau.
 *
 * The operators (ops_curved.c) overwrite what the affine kernels computed for the curved
 * elements: the affine fast path is untouched. docs/numerics.md "Curved elements".
 */
#ifndef INSDG_CURVED_H
#define INSDG_CURVED_H

#include "mesh.h"

enum { CV_RX, CV_SX, CV_RY, CV_SY, CV_J, CV_NV };   /* curved vgeo at a node */
enum { CF_NX, CF_NY, CF_SJ, CF_NF };                /* curved sgeo at a face node */
enum { CC_RX, CC_SX, CC_RY, CC_SY, CC_J, CC_NC };   /* times w J at a cubature point */

typedef struct insdg_curved {
  int n;             /* curved elements (with at least one curved face) */
  int *elem;         /* [n] element indices, ascending */
  int *index;        /* [K] position in elem, or -1 */
  int Np, Nfp, Ncub, Nfcub;
  const insdg_ref *ref;   /* the degree's reference element (borrowed) */
  double *vgeo;      /* [n][Np][CV_NV]   rx, sx, ry, sy, J at the nodes */
  double *sgeo;      /* [n][3 Nfp][CF_NF] nx, ny, sJ at the face nodes */
  double *cgeo;      /* [n][Ncub][CC_NC] w J rx, w J sx, w J ry, w J sy, w J at the cubature points */
  double *fcgeo;     /* [n][3 Nfcub][CF_NF] nx, ny, w sJ at the face cubature points */
  double *M, *invM;  /* [n][Np][Np] the mass matrix int l_i l_j J (volume cubature) and its inverse */
  /* reference data of degree N */
  double *Mf;        /* [Nfp][Nfp] the face mass matrix int l_j l_k dt */
  double *cub_Dr, *cub_Ds;   /* [Ncub][Np] derivatives at the cubature points */
} insdg_curved;

/* The map of element e at n reference points: x, y, and (when xr is non-NULL) the four
   derivatives. The element may be affine (then it is the affine map). */
void insdg_mesh_map(const insdg_mesh *m, int e, int n, const double *r, const double *s, double *x,
                    double *y, double *xr, double *xs, double *yr, double *ys);

/* The point of curve c (or of the chord from (xa, ya) to (xb, yb) when c < 0) at t. */
void insdg_mesh_curve_point(const insdg_mesh *m, int c, double t, double *x, double *y);

/* to's curves are from's, element e of to being element old_elem[e] of from (NULL: the
   same numbering); the topology of both must otherwise agree. */
void insdg_mesh_copy_curves(insdg_mesh *to, const insdg_mesh *from, const int *old_elem);

/* Curved geometry of m for ref (NULL when m has no curved face). m->x, m->y must already
   hold the element maps at the nodes. */
insdg_curved *insdg_curved_create(const insdg_mesh *m, const insdg_ref *ref);
void insdg_curved_destroy(insdg_curved *c);

struct insdg_block;
struct insdg_curved_ctx;
/* The element operators' view (curved_kernels.h) of block b's curved elements, host
   pointers, k the mesh-wide curved index (b->cindex). */
void insdg_curved_ctx_of_block(const struct insdg_block *b, struct insdg_curved_ctx *ctx);

/* The reference point (r, s) of element e's map that lands on (x, y): Newton from the
   straight triangle's point. 1 when it converged and (r, s) lies in the closed reference
   triangle within tol (r, s >= -1 - tol, r + s <= tol), else 0. */
int insdg_mesh_inverse_map(const insdg_mesh *m, int e, double x, double y, double tol, double *r, double *s);

/* The smallest Jacobian of element e's map over a lattice of sample points (vertices,
   edges, interior; spacing 1/(2q)), its location in *x, *y. */
double insdg_mesh_min_jacobian(const insdg_mesh *m, int e, double *x, double *y);

#endif
