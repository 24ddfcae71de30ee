/* ref_tri.h -- the reference triangle of degree N (paper §2.1 and §5.3).
 *
 * Reference element: the bi-unit triangle {-1 <= r, s; r + s <= 0} with vertices
 *   v0 = (-1,-1), v1 = (1,-1), v2 = (-1,1).
 * Face f joins vertex f to vertex (f+1)%3: face 0 is s = -1, face 1 is r + s = 0,
 * face 2 is r = -1. Every face is traversed counter-clockwise, so face 2 runs from
 * v2 down to v0. Along face f the parameter t in [-1,1] runs from its first to its
 * second vertex; face nodes and face cubature points are listed in increasing t.
 * With this convention two neighbouring elements traverse their shared face in
 * opposite directions, and face node j of one is face node Nfp-1-j of the other.
 *
 * Nodes: Warp & Blend (Warburton 2006), 1 <= N <= INSDG_NMAX. Basis: the orthonormal
 * (Dubiner / Koornwinder) polynomials psi_m, m = 0..Np-1, ordered by total degree.
 *
 * All matrices are dense, row-major, doubles: A[i*ncols + j].
 * Volume integrals on the reference triangle have area 2; face integrals on the
 * reference face are over t in [-1,1] (length 2), i.e. the physical face length is
 * 2*sJ where sJ is the surface Jacobian of the mesh (mesh.h).
 *
 * Lifecycle: insdg_ref_create(N) allocates and fills everything; insdg_ref_destroy
 * frees it. The struct owns all its arrays.
 */
#ifndef INSDG_REF_TRI_H
#define INSDG_REF_TRI_H

#define INSDG_NMAX 15
#define INSDG_NFACES 3

typedef struct insdg_ref {
  int N;      /* polynomial degree */
  int Np;     /* (N+1)(N+2)/2 nodes */
  int Nfp;    /* N+1 nodes per face */

  double *r, *s;       /* [Np] Warp & Blend nodes */
  int *face_nodes;     /* [3][Nfp] volume index of face node j of face f (increasing t) */
  double *V;           /* [Np][Np] V[i][m] = psi_m(r_i, s_i) */
  double *Dr, *Ds;     /* [Np][Np] nodal derivative matrices d/dr, d/ds */
  double *M, *invM;    /* [Np][Np] mass matrix (V V^T)^{-1} and its inverse V V^T */
  double *LIFT;        /* [Np][3*Nfp] M^{-1} E, E[i][f*Nfp+j] = int_face_f l_i l_{face_nodes[f][j]} dt */

  /* Volume cubature, exact for polynomials of total degree <= cub_degree >= 3N.
     Weights sum to 2. */
  int Ncub, cub_degree;
  double *rc, *sc, *wc;  /* [Ncub] */
  double *cub_interp;    /* [Ncub][Np] I: nodal values -> values at cubature points */
  double *cub_Pr;        /* [Np][Ncub] P_r = M^{-1} (I Dr)^T W   (paper §5.3) */
  double *cub_Ps;        /* [Np][Ncub] P_s = M^{-1} (I Ds)^T W */

  /* Face cubature: Gauss-Legendre on t in [-1,1], exact to degree face_cub_degree >= 3N,
     the same rule on every face. Weights sum to 2. */
  int Nfcub, face_cub_degree;
  double *tfc, *wfc;       /* [Nfcub] */
  double *face_interp;     /* [Nfcub][Nfp] face-node values -> face cubature values (same on every face) */
  double *cub_LIFT;        /* [Np][3*Nfcub] L_c = M^{-1} (I^f)^T W^f, column f*Nfcub+q  (paper eq. KSS_3) */
} insdg_ref;

/* Whether node i of degree N lies on face f (0, 1, 2), from the nodes' order alone (rows of
   constant s from the bottom edge up, r increasing along a row: insdg_ref_nodes): face 0 is the
   first row, face 1 each row's last node, face 2 each row's first. Constant arguments fold to a
   constant, so a kernel can skip, at compile time, the face blocks that are zero in a node's
   row: E[i][f*Nfp+j] = 0 unless node i is on face f (ops.h SKrows). insdg_ref_create checks
   that face_nodes agrees with it. The row is a count of row starts (row k starts at node
   k (2N + 3 - k) / 2), a loop of N iterations whatever i is: with N a constant gcc unrolls it
   completely before the kernel's loops over i are unrolled, so it folds once they are. (A loop
   that walked the rows until it reached i stayed in the N = 3 SIPDG kernel as a loop with
   branches, 30 per element: its trip count depended on i, not yet a constant when gcc unrolls
   innermost loops.) */
static inline int insdg_ref_node_on_face(int N, int i, int f)
{
  int row = 0;
  for (int k = 1; k <= N; ++k) row += i >= k * (2 * N + 3 - k) / 2;
  const int j = i - row * (2 * N + 3 - row) / 2, len = N + 1 - row;   /* node i is row's j-th of len */
  return f == 0 ? row == 0 : f == 1 ? j == len - 1 : j == 0;
}

insdg_ref *insdg_ref_create(int N);
void insdg_ref_destroy(insdg_ref *ref);

/* Evaluate the orthonormal basis psi_m, m = 0..Np-1, at n points (r,s):
   out[i*Np + m] = psi_m(r_i, s_i); if dr, ds are non-NULL also its derivatives. */
void insdg_ref_basis(int N, int n, const double *r, const double *s, double *out,
                     double *dr, double *ds);

/* Interpolation between degrees (p-multigrid transfer): P[to->Np][from->Np] maps nodal
   values of degree from->N to nodal values of degree to->N. When to->N >= from->N it is
   exact interpolation; when to->N < from->N it is evaluation of the degree-from->N
   polynomial at the lower-degree nodes. */
void insdg_ref_interp_matrix(const insdg_ref *from, const insdg_ref *to, double *P);

/* Nodes of the degree-N Warp & Blend set without building the rest (used by tests). */
void insdg_ref_nodes(int N, double *r, double *s);

#endif
