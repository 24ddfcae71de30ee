/* band.h -- a direct solver for small sparse symmetric positive definite matrices:
 * reverse Cuthill-McKee ordering, then a Cholesky factorisation in band storage.
 *
 * Used for pMG-AMG's first aggregated level (tasks/pmg.c): a few thousand unknowns whose
 * graph is that of a 2D mesh, where the band after RCM is ~ 2 sqrt(n) wide, so one solve
 * costs ~ 4 n^1.5 flops, a fraction of an AMG cycle on the same matrix (docs/solvers.md
 * "The coarse solve: banded Cholesky").
 *
 * Ordering: RCM from a pseudo-peripheral node of each connected component (the node of
 * least degree, lowest index on ties, then the farthest node of least degree while the
 * distance grows); neighbours enter in order of degree, then index. Deterministic.
 * Factorisation: LAPACK's dpbtrf ('L'). Solves: column sweeps in a fixed order, so every
 * solve of the same right-hand side gives the same bits.
 *
 * Ownership: the factor owns its arrays; insdg_band_destroy frees them and the struct.
 */
#ifndef INSDG_BAND_H
#define INSDG_BAND_H

#include <stddef.h>

#include "csr.h"

typedef struct insdg_band insdg_band;

/* Factor A (square, symmetric: its lower triangle is read) as Q A Q^T = L L^T, Q the RCM
   permutation. Returns NULL, holding nothing, when the half bandwidth after RCM exceeds
   max_width or the band would take more than max_bytes, or when A is not numerically
   positive definite (a pivot below 1e-10 of the largest diagonal entry, or a failed
   factorisation: e.g. a singular pure-Neumann matrix); the caller then keeps an
   iterative solver. */
insdg_band *insdg_band_factor(const insdg_csr *A, int max_width, size_t max_bytes);

/* x = A^-1 b (b and x may be the same array). */
void insdg_band_solve(const insdg_band *F, const double *b, double *x);

int insdg_band_rows(const insdg_band *F);
int insdg_band_width(const insdg_band *F);   /* kd: L(i, j) = 0 for i - j > kd */
size_t insdg_band_memory(const insdg_band *F);
void insdg_band_destroy(insdg_band *F);

/* The RCM order of A's graph (its off-diagonal pattern, made symmetric): perm[k] = the
   row placed k-th. Returns the half bandwidth of Q A Q^T. */
int insdg_band_rcm(const insdg_csr *A, int *perm);

#endif
