/* spchol.h -- a sparse Cholesky factorisation for small sparse symmetric positive definite
 * matrices, in a fill-reducing order the caller gives.
 *
 * Used for pMG-AMG's first aggregated level (tasks/pmg.c), a few thousand unknowns with the
 * graph of a 2D mesh. In a nested-dissection order (partition.h insdg_partition_nd_order)
 * its factor holds ~ 10-16 entries per row where the band after RCM holds ~ 2 sqrt(n)
 * (130 at n = 1956): 8x fewer entries to stream per solve, and small enough to stay in a
 * core's L2 (docs/solvers.md "The coarse solve: sparse Cholesky").
 *
 * Factorisation: up-looking, row by row: the pattern of row k of L is the set of nodes
 * reached from row k of A's lower triangle up the elimination tree, visited in
 * topological order; L is stored by columns, each column's diagonal first, then its rows
 * in ascending order. Every step is sequential in a fixed order: the same matrix and order
 * give the same factor bits, and every solve of the same right-hand side the same bits.
 *
 * Ownership: the factor owns its arrays; insdg_spchol_destroy frees them and the struct.
 */
#ifndef INSDG_SPCHOL_H
#define INSDG_SPCHOL_H

#include <stddef.h>

#include "csr.h"

typedef struct insdg_spchol insdg_spchol;

/* Factor P A P^T = L L^T, P given by perm (perm[k]: the row of A that is row k of P A P^T;
   NULL: the identity). A is square and structurally and numerically symmetric (both
   triangles stored). Returns NULL, holding nothing, when A is not numerically positive
   definite (a squared pivot below 1e-10 of A's largest diagonal entry: e.g. a singular
   pure-Neumann matrix) or the factor would take more than max_bytes. */
insdg_spchol *insdg_spchol_factor(const insdg_csr *A, const int *perm, size_t max_bytes);
/* x = A^-1 b (x and b may be the same array) */
void insdg_spchol_solve(const insdg_spchol *F, const double *b, double *x);

int insdg_spchol_rows(const insdg_spchol *F);
long insdg_spchol_nnz(const insdg_spchol *F);   /* entries of L, its diagonal included */
size_t insdg_spchol_memory(const insdg_spchol *F);   /* 0 for NULL */
void insdg_spchol_destroy(insdg_spchol *F);

#endif
