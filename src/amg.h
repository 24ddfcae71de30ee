/* amg.h -- aggregation algebraic multigrid for the assembled SIPDG matrix (paper §3
 * "Linear Solvers"; the choices and their measurements are in docs/amg.md).
 *
 * Setup (insdg_amg_setup), per level until <= coarse_size unknowns or no real reduction:
 *  - strength of connection, with s_ij = -a_ij / sqrt(|a_ii a_jj|): j is strong for i when
 *    s_ij > 0 and s_ij >= theta max_k s_ik (default, theta 0.7). Positive couplings, which
 *    the SIPDG matrix has between the nodes of one element, are never strong, and the
 *    threshold follows each row, so it suits the DG level and the coarse levels alike.
 *    The classical |a_ij| >= theta sqrt(|a_ii a_jj|) (theta 0.08) is an option; on the
 *    DG matrix it gives 3x the iterations (docs/amg.md). The relation is then made
 *    symmetric (i ~ j if strong either way);
 *  - aggregates: roots form a distance-2 maximal independent set of the strength graph,
 *    chosen greedily in index order (deterministic); a root's strong neighbours join it,
 *    then the remaining nodes join the aggregate of their strongest already-aggregated
 *    neighbour;
 *  - unsmoothed aggregation: P is piecewise constant (one column per aggregate, entries
 *    1), R = P^T, and A_c = R A P (Galerkin);
 *  - smoother: Chebyshev polynomial of degree cheb_degree (default 2) in D^{-1} A on the
 *    interval [cheb_lower rho, 1.1 rho] (default cheb_lower 0.1), rho the largest
 *    eigenvalue of D^{-1} A estimated by 15 Lanczos steps on D^{-1/2} A D^{-1/2} from a
 *    fixed start vector;
 *  - coarsest level: dense Cholesky (LAPACK dpotrf); if the matrix is singular (pure
 *    Neumann: the constants are the null space of every level, since P 1 = 1), a
 *    pseudo-inverse from its eigen-decomposition (dsyev) instead.
 * Cycle (insdg_amg_apply): pre-smooth, restrict the residual, coarse correction, prolong,
 * post-smooth. On the kcycle_levels finest levels (default 2) the coarse correction is a
 * K-cycle (Notay & Vassilevski 2008): two steps of flexible CG on A_c preconditioned by
 * the next level's cycle (the second skipped when the first reduces the coarse residual
 * by 4x); below, a V-cycle.
 *
 * The K-cycle makes the preconditioner nonlinear (it depends on its input through the
 * CG step lengths), so use a flexible Krylov method (insdg_fpcg_csr below, or PCG with
 * the Polak-Ribiere beta). With kcycle_levels = -1 (pure V-cycle) it is a fixed
 * symmetric positive (semi)definite operator.
 *
 * Singular matrices: with the constants as null space (all-Neumann SIPDG, lambda = 0) the
 * right-hand side must be compatible (sum of entries 0); the cycle then returns a
 * correction determined up to a constant.
 *
 * Determinism: all loops in fixed order, no threads of our own; results are bitwise
 * reproducible. Not thread-safe: one hierarchy owns its work vectors, so one apply at a
 * time per hierarchy.
 *
 * Ownership: the fine matrix A is borrowed and must outlive the hierarchy; everything
 * else (coarse matrices, transfers, factors, work vectors) is owned.
 */
#ifndef INSDG_AMG_H
#define INSDG_AMG_H

#include <stddef.h>
#include <stdio.h>

#include "csr.h"

typedef struct insdg_amg insdg_amg;

enum { INSDG_AMG_STRENGTH_SIGNED = 0, INSDG_AMG_STRENGTH_CLASSICAL = 1 };

/* A zero field means its default. */
typedef struct {
  double theta;      /* strength threshold, default 0.7 (signed), 0.08 (classical) */
  int coarse_size;   /* coarsen until <= this many unknowns, default 500 */
  int cheb_degree;   /* Chebyshev smoother degree, default 2 */
  int kcycle_levels; /* K-cycle on this many finest levels, default 2; -1: V-cycle only */
  double cheb_lower; /* lower end of the Chebyshev interval / rho, in (0, 1.1), default 0.1 */
  int strength;      /* INSDG_AMG_STRENGTH_*, default signed row-relative */
} insdg_amg_opts;

insdg_amg *insdg_amg_setup(const insdg_csr *A, const insdg_amg_opts *opts);

/* One cycle from the zero initial guess: z ~ A^{-1} r (r, z: [n], distinct). */
void insdg_amg_apply(const insdg_amg *amg, const double *r, double *z);

/* insdg_amg_apply with the signature insdg_fpcg_csr takes (ctx is the hierarchy). */
void insdg_amg_precondition(void *amg, const double *r, double *z);

/* Bytes owned by the hierarchy: coarse matrices, P and R, diagonals, the coarse factor,
   work vectors. The fine matrix (borrowed) is not included: add insdg_csr_memory(A). */
size_t insdg_amg_memory(const insdg_amg *amg);

int insdg_amg_levels(const insdg_amg *amg);
int insdg_amg_level_size(const insdg_amg *amg, int level);

/* sum over levels of nnz(A_l) / nnz(A_0) */
double insdg_amg_operator_complexity(const insdg_amg *amg);

/* One line per level: unknowns, nonzeros, nonzeros per row, rho estimate; then the
   operator and grid complexities and the coarse solver. */
void insdg_amg_print(const insdg_amg *amg, FILE *f);

void insdg_amg_destroy(insdg_amg *amg);

/* The first aggregation step alone (strength, distance-2 MIS, joining): agg[i] in
   0..nagg-1 for every row; returns nagg. For aggregating the rows of one block of a
   distributed matrix (tasks/pmg.c). */
int insdg_amg_aggregates(const insdg_csr *A, const insdg_amg_opts *opts, int *agg);

/* Flexible preconditioned CG on A x = b (x holds the initial guess on entry):
   beta = z_k.(r_k - r_{k-1}) / z_{k-1}.r_{k-1} (Polak-Ribiere), so a nonlinear
   preconditioner such as the K-cycle is allowed. prec == NULL means none.
   Stops when ||r|| <= rtol ||b|| (2-norms) or after maxit iterations; *iters and *relres
   (either may be NULL) receive the iterations done and ||r||/||b||. Returns 0 when
   converged, 1 otherwise. b = 0 gives x = 0 and returns 0. */
int insdg_fpcg_csr(const insdg_csr *A, const double *b, double *x, void (*prec)(void *ctx, const double *r, double *z),
                   void *ctx, double rtol, int maxit, int *iters, double *relres);

#endif
