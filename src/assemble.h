/* assemble.h -- the assembled SIPDG matrix, for the full AMG and for the degree-1 level
 * of pMG-AMG (paper §3 "Linear Solvers").
 *
 * insdg_assemble_sipdg returns the matrix A with A u = insdg_op_sipdg(insdg_op_local_
 * gradient(u)) for homogeneous boundary data (ops.h), i.e. the weak form J M (-L + lambda)
 * on the whole mesh as one block, rows and columns in the global nodal numbering e*Np + n.
 * It is built by probing: elements are coloured so that two elements of one colour are
 * never within distance 2 in the element adjacency graph (greedy in element order, so
 * deterministic); applying the operator to the vector that is 1 at local node j of every
 * element of one colour gives, in each element e of that colour and its <= 3 face
 * neighbours, exactly column e*Np + j of A. Cost: (colours <= 10) * Np operator
 * applications. Exact zeros are dropped; nothing else is.
 *
 * Inputs: the mesh with its geometry set (insdg_mesh_set_ref with op->ref's degree),
 * bc[3*K] per-face codes (block.h, INSDG_BC_*), as insdg_block_bc_codes returns them for
 * the block of all elements. The caller owns the returned matrix (insdg_csr_destroy).
 */
#ifndef INSDG_ASSEMBLE_H
#define INSDG_ASSEMBLE_H

#include "csr.h"
#include "mesh.h"
#include "ops.h"

insdg_csr *insdg_assemble_sipdg(const insdg_mesh *m, const insdg_ops *op, const signed char *bc, double lambda);

/* The diagonal of that matrix on the elements [e0, e1): d[(e - e0) Np + i] = A[eNp+i][eNp+i],
   without assembling A (the assembled matrix of a degree-N level is 4 Np^2 doubles per
   element: 1 GB at N = 6 and K = 26 000). Probing with a distance-1 colouring of [e0, e1)
   on the block of those elements with a zero halo: when no face neighbour of e is probed,
   e's rows of A u hold e's columns alone, so row e*Np + j of the probe at node j is the
   diagonal entry. Every term is the one insdg_assemble_sipdg computes, in the same order:
   bitwise its diagonal. Cost: colours (<= 4 on a triangle mesh) * Np operator
   applications on the range. bc as above, for the whole mesh. */
void insdg_assemble_sipdg_diagonal(const insdg_mesh *m, const insdg_ops *op, const signed char *bc, double lambda,
                                   int e0, int e1, double *d);

/* The diagonal blocks of that matrix on the elements [e0, e1), by the same probes:
   d[((e - e0) Np + i) Np + j] = A[eNp+i][eNp+j] (Np^2 doubles per element); bitwise
   the entries of insdg_assemble_sipdg. */
void insdg_assemble_sipdg_diagonal_blocks(const insdg_mesh *m, const insdg_ops *op, const signed char *bc,
                                          double lambda, int e0, int e1, double *d);

/* The distance-2 element colouring used above: colour[e] in 0..ncolours-1; returns
   ncolours. Exposed for tests. */
int insdg_assemble_colour_elements(const insdg_mesh *m, int *colour);

#endif
