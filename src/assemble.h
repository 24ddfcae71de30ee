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

/* The distance-2 element colouring used above: colour[e] in 0..ncolours-1; returns
   ncolours. Exposed for tests. */
int insdg_assemble_colour_elements(const insdg_mesh *m, int *colour);

#endif
