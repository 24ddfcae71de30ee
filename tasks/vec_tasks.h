/* vec_tasks.h -- the vector algebra of Krylov methods as tasks over blocks, and scalars
 * that flow as StarPU data (DESIGN.md "A time step as a task graph").
 *
 * A distributed scalar (insdg_dscalar) of ncomp components has one partial per block of
 * this rank (written by that block's dot task) and one value on every rank: one reduce
 * task per rank sums its blocks' partials in block order and, on several ranks,
 * allgathers the ranks' sums (one collective) and adds them in rank order. So every rank
 * holds the same bits, sums do not depend on worker count, scheduling or message order,
 * and every rank takes the same decisions; one rank gives the bits of a plain sum in
 * block order. The host reads the value with insdg_dscalar_get, which waits for it: that
 * is the only place the host waits.
 *
 * Coefficients of vector updates are ratios of scalar components, c = sign * a / b, so
 * PCG's alpha = rz / pAp never leaves the task graph.
 */
#ifndef INSDG_VEC_TASKS_H
#define INSDG_VEC_TASKS_H

#include "dfield.h"

enum { INSDG_DSCALAR_MAX = 9 };   /* components of a scalar (the projection's L + 1 dots) */

typedef struct insdg_dscalar {
  insdg_tasks *T;
  int ncomp;
  starpu_data_handle_t *partial;   /* [B] vectors of ncomp (this rank's blocks) */
  starpu_data_handle_t value;      /* ncomp: the sum over all blocks of all ranks */
  double **partial_mem, *value_mem;
} insdg_dscalar;

insdg_dscalar *insdg_dscalar_create(insdg_tasks *T, int ncomp);
void insdg_dscalar_destroy(insdg_dscalar *s);
/* this rank's value of component c (waits for the tasks that compute it) */
double insdg_dscalar_get(insdg_dscalar *s, int c);

/* A reference to one component of a scalar, for coefficients. */
typedef struct {
  insdg_dscalar *s;
  int comp;
} insdg_sref;

/* c = sign * num / den, or sign when num.s is NULL (den.s NULL: den = 1) */
typedef struct {
  double sign;
  insdg_sref num, den;
} insdg_coef;

/* s[k] = x[k] . y[k] (Euclidean, over all nodes) for k < s->ncomp */
void insdg_task_dots(insdg_dfield *const *x, insdg_dfield *const *y, insdg_dscalar *s);
/* the same for the first m components only (the others keep their values) */
void insdg_task_dots_n(insdg_dfield *const *x, insdg_dfield *const *y, int m, insdg_dscalar *s);

/* y += c x */
void insdg_task_axpy(insdg_coef c, insdg_dfield *x, insdg_dfield *y);
/* y = x + c y */
void insdg_task_xpay(insdg_dfield *x, insdg_coef c, insdg_dfield *y);
/* y = alpha x + beta y (host constants; beta = 0 overwrites y) */
void insdg_task_axpby(double alpha, insdg_dfield *x, double beta, insdg_dfield *y);
/* y = sum_{k < m} alpha[k] x[k] (host constants, m <= INSDG_LINCOMB_MAX, no x[k] = y): one
   task per block, the bits of the axpbys y = alpha_0 x_0, then y = alpha_k x_k + 1 y */
enum { INSDG_LINCOMB_MAX = 8 };
void insdg_task_lincomb(int m, const double *alpha, insdg_dfield *const *x, insdg_dfield *y);
/* y = z + sign * sum_{k < m} c_k x[k] (z NULL: 0), c_k the components of c's value (m <= c->ncomp):
   one task per block (solution projection, projection.h) */
void insdg_task_combine(insdg_dfield *z, double sign, insdg_dscalar *c, int m, insdg_dfield *const *x, insdg_dfield *y);
/* y = x */
void insdg_task_copy(insdg_dfield *x, insdg_dfield *y);
/* y = x - Ax-like: y = a - b (elementwise) */
void insdg_task_sub(insdg_dfield *a, insdg_dfield *b, insdg_dfield *y);
/* z = (J M)^{-1} r elementwise per element: the inverse mass matrix, the paper's
   block-Jacobi preconditioner for the Helmholtz problem (scaled: PCG is invariant to a
   constant factor) */
void insdg_task_inverse_mass(insdg_dfield *r, insdg_dfield *z);
/* z = alpha J M r per element (the weak form of a nodal field) */
void insdg_task_mass(double alpha, insdg_dfield *r, insdg_dfield *z);
/* z = r .* dinv, dinv [K][Np] on the renumbered mesh (host memory every rank holds) */
void insdg_task_jacobi(const double *dinv, insdg_dfield *r, insdg_dfield *z);

/* A diagonal or element-block-diagonal inverse on the renumbered mesh (host memory, this
   rank's blocks filled): d[K][Np] when block = 0, d[K][Np][Np] (row-major per element)
   when block = 1. The smoother's preconditioner of pMG (pmg.h). */
typedef struct {
  const double *d;
  int block;
} insdg_dinv;
/* z = D r (point or element-block Jacobi) */
void insdg_task_dinv(insdg_dinv D, insdg_dfield *r, insdg_dfield *z);

/* Fused updates: one task per block for what would be three or four.
   PCG: with alpha = num / den, (r_prev = r when r_prev is not NULL), x += alpha p,
   r -= alpha Ap. */
void insdg_task_pcg_update(insdg_sref num, insdg_sref den, insdg_dfield *p, insdg_dfield *Ap, insdg_dfield *x,
                           insdg_dfield *r, insdg_dfield *r_prev);
/* PCG: s = (r.z, r.r, (r - r_prev).z), or (r.z, r.r, r.z) when r_prev is NULL */
void insdg_task_pcg_dots(insdg_dfield *r, insdg_dfield *z, insdg_dfield *r_prev, insdg_dscalar *s);
/* PCG's tail in one task per block (only where insdg_task_fuse_local_gradient, CPU codelets):
   insdg_task_pcg_update, then z = D r (D not NULL) or z = M^-1 r (D NULL: the inverse mass),
   then insdg_task_pcg_dots(r, z, r_prev, s); the same operations in the same order as the
   three tasks, so the same bits. */
void insdg_task_pcg_tail(insdg_sref num, insdg_sref den, insdg_dfield *p, insdg_dfield *Ap, insdg_dfield *x,
                         insdg_dfield *r, insdg_dfield *r_prev, const insdg_dinv *D, insdg_dfield *z, insdg_dscalar *s);
/* With g (not NULL; only where insdg_task_fuse_local_gradient): the same task then writes
   the local gradient of g->of, one of the vectors it updated, into g->ux, g->uy (for the
   SIPDG application that follows: insdg_task_sipdg_given_gradient). */
typedef struct { insdg_dfield *of, *ux, *uy; } insdg_grad_out;
/* Chebyshev, first step: r = b - Ad (Ad NULL: r = b), d = c D r, then x = d
   (zero_guess) or x += d; g->of: d or x */
void insdg_task_cheb_first(insdg_dinv D, double c, insdg_dfield *b, insdg_dfield *Ad, insdg_dfield *r,
                           insdg_dfield *d, insdg_dfield *x, int zero_guess, const insdg_grad_out *g);
/* Chebyshev, later steps: r -= Ad, d_out = c1 D r + c2 d, x += d_out. d_out may be d; as
   another vector it lets this update run while other blocks' operators still read d's
   traces (no write-after-read wait: tasks/README.md); g->of: d_out or x */
void insdg_task_cheb_step(insdg_dinv D, double c1, double c2, insdg_dfield *Ad, insdg_dfield *r,
                          insdg_dfield *d, insdg_dfield *d_out, insdg_dfield *x, const insdg_grad_out *g);
/* y = x + c y, then the local gradient of y into g->ux, g->uy (g->of == y; CPU codelets) */
void insdg_task_xpay_gradient(insdg_dfield *x, insdg_coef c, insdg_dfield *y, const insdg_grad_out *g);

/* Block work fused into a block operator's task: the operator task of block b runs it on
   b's nodes after its kernel (on a GPU: its launches after the kernel's, on the same
   stream), so the chain of a block has one task (and one hop between tasks) less. An
   insdg_then describes the work (insdg_then_cheb_step, insdg_then_dot here; pmg.c's
   restriction and aggregation); the operator's submission (insdg_task_sipdg_then) asks
   t->block for block b's part (its functions, arguments and data), appends the data to
   the operator task's, and calls t->done (if any) after the blocks: the reduction of a
   dot. The same operations in the same order as the separate tasks: the same bits. */
enum { INSDG_THEN_MAXD = 11 };
/* block b's part, as its task needs it (packed into the task's arguments: no data
   descriptors, which only the submission needs) */
typedef struct {
  void (*run)(void *buffers[], const void *args);       /* buffers: the work's data, in order */
  void (*run_gpu)(void *buffers[], const void *args);   /* the GPU codelets' (NULL: none) */
  int nd;                    /* the work's data */
  int at[INSDG_THEN_MAXD];   /* the operator task's buffer index of the work's i-th (insdg_then_append) */
  _Alignas(double) unsigned char args[192];
} insdg_block_then;
typedef struct insdg_then {
  /* block b's part into *out and its data into d[0 .. out->nd) */
  void (*block)(const struct insdg_then *t, int b, insdg_block_then *out, struct starpu_data_descr *d);
  void (*done)(const struct insdg_then *t);   /* or NULL */
  _Alignas(double) unsigned char bytes[320];   /* what block reads */
} insdg_then;
/* For an operator task of block b with data descr[0..n): block b's part of t into *bt, its
   data appended to descr, each handle once (a handle the operator already has: its mode
   must cover the work's); returns the new count (descr: room for n + INSDG_THEN_MAXD) */
int insdg_then_append(const insdg_then *t, int b, insdg_block_then *bt, struct starpu_data_descr *descr, int n);
/* in the operator's task, after its kernel: the work on the task's buffers (gpu: run_gpu) */
void insdg_then_run(const insdg_block_then *bt, void *buffers[], int gpu);
/* insdg_task_cheb_step as fused work */
void insdg_then_cheb_step(insdg_then *t, insdg_dinv D, double c1, double c2, insdg_dfield *Ad, insdg_dfield *r,
                          insdg_dfield *d, insdg_dfield *d_out, insdg_dfield *x, const insdg_grad_out *g);
/* s = x . y (one component), as insdg_task_dots would compute it */
void insdg_then_dot(insdg_then *t, insdg_dfield *x, insdg_dfield *y, insdg_dscalar *s);
/* y = a - b, as insdg_task_sub */
void insdg_then_sub(insdg_then *t, insdg_dfield *a, insdg_dfield *b, insdg_dfield *y);
/* PCG's start after A x (CPU codelets): r = b - Ax, z = D r (D not NULL) or M^-1 r, p = z, and
   s = (r.z, r.r, r.z): insdg_task_sub, the preconditioner, insdg_task_copy and
   insdg_task_pcg_dots(r, z, NULL, s) */
void insdg_then_pcg_start(insdg_then *t, insdg_dfield *b, insdg_dfield *Ax, insdg_dfield *r, const insdg_dinv *D,
                          insdg_dfield *z, insdg_dfield *p, insdg_dscalar *s);

#endif
