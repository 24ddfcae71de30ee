/* pmg.h -- the pMG-AMG preconditioner of paper §3, on the task graph.
 *
 * Matrix-free p-multigrid over a degree hierarchy N = N_0 > N_1 > ... > N_L = 1 (the
 * coarsening sequence is an option; default: halve the degree but drop at most 2 a level,
 * 8 -> 6 -> 4 -> 2 -> 1, 5 -> 3 -> 2 -> 1, see docs/solvers.md). On every level the SIPDG
 * operator of that degree (rediscretised, matrix-free, as tasks), a Chebyshev smoother of
 * degree cheb_degree (default 4) preconditioned by D, the inverses of the operator's
 * element diagonal blocks (block Jacobi; or its point diagonal), on [lambda_max/10,
 * 1.1 lambda_max] (lambda_max of D^-1 A estimated
 * by power iteration on the graph at setup), transfers by nodal interpolation (coarse to
 * fine) and its transpose (fine to coarse), element by element. At degree 1 the SIPDG
 * matrix is assembled (rows distributed with the blocks) and aggregated (src/amg.h); the
 * aggregated matrix Ac, held by every rank, is solved by a task that gathers the
 * aggregated residual of all blocks: exactly, with Ac's sparse Cholesky factor in
 * nested-dissection order (src/spchol.h; or its banded one, src/band.h, when asked) where
 * Ac is positive definite and the factor small enough (opts.coarse), else by
 * one K-cycle step of the aggregation AMG below it (two flexible-CG steps; V below,
 * direct coarsest solve); per-block tasks prolong the correction.
 *
 * One application (insdg_pmg_apply) is one V-cycle over the degrees from a zero initial
 * guess. The AMG K-cycle makes it a nonlinear preconditioner: use flexible PCG.
 *
 * Every level has its own layout with the same partition and numbering as the finest
 * (METIS is deterministic), so block b holds the same elements on every level.
 */
#ifndef INSDG_PMG_H
#define INSDG_PMG_H

#include "pcg.h"

typedef struct insdg_pmg insdg_pmg;

typedef struct {
  int ndegrees;          /* 0: default halving sequence */
  const int *degrees;    /* [ndegrees], decreasing, first = the fine degree, last = 1 */
  int cheb_degree;       /* 0: 4 */
  double cheb_lower;     /* 0: 1/10 (1/4 for cheb_degree <= 2): the smoothed interval [cheb_lower, 1.1]
                            lambda_max on the p-levels */
  int smoother;          /* INSDG_PMG_BLOCK_JACOBI (0, the default) or INSDG_PMG_POINT_JACOBI, every level */
  int coarse;            /* the solve below the degree-1 level: INSDG_PMG_COARSE_AUTO (0, the default:
                            the sparse Cholesky of the aggregated matrix in nested-dissection order
                            when it is positive definite and its factor takes at most
                            INSDG_PMG_COARSE_MAX_BYTES, else the AMG), INSDG_PMG_COARSE_AMG,
                            INSDG_PMG_COARSE_BAND (the banded Cholesky after RCM whatever its width,
                            up to INSDG_PMG_COARSE_MAX_BYTES) or INSDG_PMG_COARSE_CHOLESKY (the sparse
                            one); the last two an internal error when Ac is singular or larger */
  int separate_tasks;    /* 1: every operator application, update and transfer its own task, none
                            fused into the operator's (insdg_task_sipdg_then): the
                            same bits (tests compare the two) */
} insdg_pmg_opts;

enum { INSDG_PMG_BLOCK_JACOBI = 0, INSDG_PMG_POINT_JACOBI = 1 };
enum { INSDG_PMG_COARSE_AUTO = 0, INSDG_PMG_COARSE_AMG = 1, INSDG_PMG_COARSE_BAND = 2, INSDG_PMG_COARSE_CHOLESKY = 3 };
/* The largest coarse factor, which every rank holds: the sparse Cholesky's entries per row
   grow like log n on a 2D mesh graph (~ 15 at 2000 aggregated unknowns), so it is reached
   at a few hundred thousand; larger meshes get the AMG (docs/solvers.md "The coarse
   solve: sparse Cholesky"). */
#define INSDG_PMG_COARSE_MAX_BYTES ((size_t)64 << 20)

/* fine: the task context of the finest level (its layout, N). mesh: the ORIGINAL mesh
   (layouts for the coarse degrees are made from it). bc, lambda: the operator. */
insdg_pmg *insdg_pmg_create(insdg_tasks *fine, const insdg_mesh *mesh, const signed char *bc, double lambda,
                            const insdg_pmg_opts *opts);
void insdg_pmg_destroy(insdg_pmg *pmg);

/* linop callback: out = one V-cycle applied to in (ctx = the insdg_pmg) */
void insdg_pmg_apply(void *ctx, insdg_dfield *in, insdg_dfield *out);

/* bytes held by the preconditioner on this rank (level fields, diagonals, transfer
   matrices, the assembled degree-1 matrix and AMG hierarchy on rank 0); and per element */
size_t insdg_pmg_memory(const insdg_pmg *pmg);
void insdg_pmg_print(const insdg_pmg *pmg, FILE *f);
/* the coarse levels below the degree-1 level, which every rank holds and solves
   redundantly: bytes of the first aggregated matrix and its AMG hierarchy, with the
   gathered residual and correction; and the time this rank's coarse task spent since
   creation, [0] waiting in the allgather of the aggregated residual (its neighbours'
   lateness included), [1] in the AMG K-cycle below, over *calls V-cycles */
size_t insdg_pmg_coarse_memory(const insdg_pmg *pmg);
void insdg_pmg_coarse_time(const insdg_pmg *pmg, double seconds[2], long *calls);
/* the coarse solve chosen: INSDG_PMG_COARSE_CHOLESKY (*size: its factor's entries),
   INSDG_PMG_COARSE_BAND (*size: the half bandwidth) or INSDG_PMG_COARSE_AMG (*size 0);
   *n: the aggregated unknowns (Ac's rows) */
int insdg_pmg_coarse_solve(const insdg_pmg *pmg, int *n, long *size);

/* Jacobi diagonal inverse of the SIPDG operator of T (its layout's renumbered mesh, its
   operators), probed without assembly (src/assemble.h) on this rank's blocks only:
   a [K][Np] host array (the tasks index it by element) of which only this rank's
   blocks are written; the other pages are never touched, so they take no memory. The
   caller frees it. */
double *insdg_sipdg_inverse_diagonal(const insdg_tasks *T, const signed char *bc, double lambda);
/* the same for the inverses of the operator's element diagonal blocks (block Jacobi):
   [K][Np][Np], row-major per element, probed (src/assemble.h) and inverted by Cholesky */
double *insdg_sipdg_inverse_blocks(const insdg_tasks *T, const signed char *bc, double lambda);
/* max over the nodes of diag(S)_i / (lambda J_e M_ii), S the SIPDG operator at lambda = 0:
   how far the stiffness outweighs the mass in lambda M + S (the velocity preconditioner's
   default, tasks/ins.c); over all ranks (one MPI_Allreduce on T->comm) */
double insdg_sipdg_stiffness_mass_ratio(insdg_tasks *T, const signed char *bc, double lambda);

#endif
