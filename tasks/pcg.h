/* pcg.h -- preconditioned conjugate gradients as a task graph (paper §3).
 *
 * Vectors are distributed fields, scalars distributed scalars (vec_tasks.h): a PCG
 * iteration is submitted as tasks and the host waits once per iteration, for the
 * residual norm of the convergence test. Reductions sum block partials in block order,
 * so iterates are bitwise the same for any worker count.
 *
 * The operator and the preconditioner are linear maps given as callbacks that submit
 * tasks (insdg_linop). With a variable preconditioner (a K-cycle) use flexible = 1
 * (Polak-Ribiere beta). With null_space = 1 (pure Neumann: the operator's null space is
 * the constant vector) the right-hand side and every preconditioned residual are
 * projected orthogonally to the constants, and the solution's mean is fixed by the
 * caller (insdg_pcg_fix_mean).
 */
#ifndef INSDG_PCG_H
#define INSDG_PCG_H

#include "vec_tasks.h"

typedef struct {
  void (*apply)(void *ctx, insdg_dfield *in, insdg_dfield *out);   /* submits tasks: out = Op in */
  void *ctx;
} insdg_linop;

/* The work vectors and scalars of PCG, registered with StarPU once and reused by
   every solve that passes it (opts.work): no registration, unregistration (which waits
   for the handle's tasks) or constant-field upload per solve. One per solver and kind of
   solve: it must have been made with the solve's flexible and null_space options. */
typedef struct insdg_pcg_work insdg_pcg_work;
insdg_pcg_work *insdg_pcg_work_create(insdg_tasks *T, int flexible, int null_space);
void insdg_pcg_work_destroy(insdg_pcg_work *w);

typedef struct {
  insdg_pcg_work *work;   /* NULL: a workspace made and freed by this solve */
  double rtol;        /* stop when ||r|| <= rtol ||b|| */
  int maxit;
  int minit;          /* at least this many iterations (0: none when the guess already meets rtol) */
  int flexible;
  int null_space;
  int verbose;        /* rank 0 prints the residual of every iteration */
} insdg_pcg_opts;

typedef struct {
  int converged;      /* 1, or 0 when maxit was reached (never silent: the caller decides) */
  int iterations;
  double relres;      /* ||r|| / ||b|| at exit */
  long iteration_tasks;   /* tasks its iterations inserted on this rank (the start, and what
                             the caller submits around the solve, not counted) */
} insdg_pcg_result;

/* Solve A x = b; x holds the initial guess. b is not modified (except by the null-space
   projection, applied to a copy). prec may be NULL (identity). */
insdg_pcg_result insdg_pcg(insdg_tasks *T, insdg_linop A, const insdg_linop *prec, insdg_dfield *b,
                           insdg_dfield *x, const insdg_pcg_opts *opts);

/* n independent solves A[i] x[i] = b[i] (prec[i], opts[i], each with its own workspace)
   in lockstep: every active solve's iteration is submitted before the host waits for
   the first one's convergence test, so the workers have the others' tasks while the host
   waits, and the solves' tasks and messages interleave. Each solve computes exactly
   what insdg_pcg would (the same bits, iterations and result). */
void insdg_pcg_many(insdg_tasks *T, int n, const insdg_linop *A, const insdg_linop *const *prec,
                    insdg_dfield *const *b, insdg_dfield *const *x, const insdg_pcg_opts *opts,
                    insdg_pcg_result *res);

/* The SIPDG operator as a linop: ctx holds what it needs (scratch fields included). */
typedef struct {
  const signed char *bc;   /* [K][3] renumbered mesh */
  double lambda;
  insdg_dfield *ux, *uy;   /* scratch */
} insdg_sipdg_ctx;
void insdg_sipdg_apply(void *ctx, insdg_dfield *in, insdg_dfield *out);

/* Preconditioners as linops: ctx unused for inverse mass; ctx = dinv ([K][Np]) for Jacobi */
void insdg_inverse_mass_apply(void *ctx, insdg_dfield *in, insdg_dfield *out);
void insdg_jacobi_apply(void *ctx, insdg_dfield *in, insdg_dfield *out);
/* ctx: an insdg_dinv (vec_tasks.h): point or element-block Jacobi */
void insdg_dinv_apply(void *ctx, insdg_dfield *in, insdg_dfield *out);

/* x -= (w . x) / (w . 1) with w = J M 1 per element: zero integral mean. */
void insdg_pcg_fix_mean(insdg_tasks *T, insdg_dfield *x);

#endif
