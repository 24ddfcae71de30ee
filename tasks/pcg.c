/* pcg.c -- PCG over the task graph (pcg.h). The loop below is the textbook algorithm;
 * every line submits tasks, and only insdg_dscalar_get waits (convergence_test). */
#include "pcg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "error.h"
#include "ops_tasks.h"
#include "runtime.h"

void insdg_sipdg_apply(void *ctx, insdg_dfield *in, insdg_dfield *out)
{
  insdg_sipdg_ctx *c = ctx;
  insdg_task_sipdg(c->bc, c->lambda, in, c->ux, c->uy, out);
}

void insdg_inverse_mass_apply(void *ctx, insdg_dfield *in, insdg_dfield *out)
{
  (void)ctx;
  insdg_task_inverse_mass(in, out);
}

void insdg_jacobi_apply(void *ctx, insdg_dfield *in, insdg_dfield *out) { insdg_task_jacobi(ctx, in, out); }

void insdg_dinv_apply(void *ctx, insdg_dfield *in, insdg_dfield *out)
{
  insdg_task_dinv(*(const insdg_dinv *)ctx, in, out);
}

/* A preconditioner that works element by element, which insdg_task_pcg_tail fuses with the
   update and the dots: 1 the inverse mass, 2 a (block) Jacobi *D; 0 any other (pMG, AMG,
   none), and with GPU codelets (insdg_task_fuse_local_gradient is ops_tasks' CPU-codelet
   test: the fused vector tasks have CPU functions only). */
static int pointwise_prec(const insdg_tasks *T, const insdg_linop *P, insdg_dinv *D)
{
  if (!P || !insdg_task_fuse_local_gradient(T)) return 0;
  if (P->apply == insdg_inverse_mass_apply) return 1;
  if (P->apply == insdg_jacobi_apply) return *D = (insdg_dinv){P->ctx, 0}, 2;
  if (P->apply == insdg_dinv_apply) return *D = *(const insdg_dinv *)P->ctx, 2;
  return 0;
}

static insdg_coef ratio(double sign, insdg_dscalar *num, int nc, insdg_dscalar *den, int dc)
{
  return (insdg_coef){sign, {num, nc}, {den, dc}};
}

/* a constant field and v -= (1.v / n) 1 : orthogonal to the null space */
static void project_constants(insdg_tasks *T, insdg_dfield *ones, insdg_dscalar *s, insdg_dfield *v)
{
  const double n = (double)T->L->mesh->K * T->L->mesh->ref->Np;
  insdg_task_dots((insdg_dfield *[]){ones}, (insdg_dfield *[]){v}, s);
  insdg_task_axpy(ratio(-1.0 / n, s, 0, NULL, 0), ones, v);
}

static insdg_dfield *constant_field(insdg_tasks *T, double value)
{
  const size_t n = (size_t)T->L->mesh->K * T->L->mesh->ref->Np;
  double *host = insdg_malloc(sizeof(double) * n);
  for (size_t i = 0; i < n; ++i) host[i] = value;
  insdg_dfield *f = insdg_dfield_create(T);
  insdg_dfield_set(f, host);
  free(host);
  return f;
}

struct insdg_pcg_work {
  int flexible, null_space;
  insdg_dfield *r, *z, *p, *Ap, *b, *r_prev, *ones;
  insdg_dscalar *proj, *bb, *pAp, *rz[2];
};

insdg_pcg_work *insdg_pcg_work_create(insdg_tasks *T, int flexible, int null_space)
{
  insdg_pcg_work *w = insdg_calloc(1, sizeof *w);
  w->flexible = flexible, w->null_space = null_space;
  w->r = insdg_dfield_create(T), w->z = insdg_dfield_create(T), w->p = insdg_dfield_create(T);
  w->Ap = insdg_dfield_create(T);
  if (null_space) w->b = insdg_dfield_create(T);   /* the projected right-hand side (submit_start) */
  if (flexible) w->r_prev = insdg_dfield_create(T);
  if (null_space) w->ones = constant_field(T, 1.0), w->proj = insdg_dscalar_create(T, 1);
  w->bb = insdg_dscalar_create(T, 1), w->pAp = insdg_dscalar_create(T, 1);
  w->rz[0] = insdg_dscalar_create(T, 3), w->rz[1] = insdg_dscalar_create(T, 3);
  return w;
}

void insdg_pcg_work_destroy(insdg_pcg_work *w)
{
  if (!w) return;
  insdg_dfield_destroy(w->r), insdg_dfield_destroy(w->z), insdg_dfield_destroy(w->p), insdg_dfield_destroy(w->Ap),
      insdg_dfield_destroy(w->b);
  if (w->flexible) insdg_dfield_destroy(w->r_prev);
  if (w->null_space) insdg_dfield_destroy(w->ones), insdg_dscalar_destroy(w->proj);
  insdg_dscalar_destroy(w->bb), insdg_dscalar_destroy(w->pAp), insdg_dscalar_destroy(w->rz[0]),
      insdg_dscalar_destroy(w->rz[1]);
  free(w);
}

/* one solve of insdg_pcg_many: its vectors, scalars and where it stands */
typedef struct {
  insdg_linop A;
  const insdg_linop *prec;
  const insdg_pcg_opts *o;
  insdg_pcg_work *own, *w;
  insdg_dfield *x;
  insdg_dscalar *rz_old, *rz_new;
  double bnorm, target;
  int active, started;   /* started: p holds a search direction (after the first iteration) */
  int head_queued;       /* the head of the next iteration is queued (submit_head) */
  insdg_pcg_result res;
} solve;

/* b = b_in (a projected copy with a null space); bb; r = b - A x; z = P r; p = z; (r.z, r.r).
   With the SIPDG (insdg_sipdg_apply) r = b - A x is work fused into A x's tasks, and with a
   pointwise preconditioner too z, p and the dots (insdg_then_pcg_start, CPU codelets): the
   same operations, one task per block instead of five. */
static void submit_start(insdg_tasks *T, solve *s, insdg_dfield *b_in)
{
  insdg_pcg_work *w = s->w;
  insdg_dfield *b = b_in;   /* read only: no copy without a projection */
  if (w->ones) insdg_task_copy(b_in, w->b), project_constants(T, w->ones, w->proj, w->b), b = w->b;
  insdg_task_dots((insdg_dfield *[]){b}, (insdg_dfield *[]){b}, w->bb);
  insdg_dinv D;
  const int pointwise = !w->ones ? pointwise_prec(T, s->prec, &D) : 0;
  if (s->A.apply == insdg_sipdg_apply) {
    const insdg_sipdg_ctx *c = s->A.ctx;
    insdg_then t;
    if (pointwise) insdg_then_pcg_start(&t, b, w->Ap, w->r, pointwise == 2 ? &D : NULL, w->z, w->p, s->rz_old);
    else insdg_then_sub(&t, b, w->Ap, w->r);
    insdg_task_sipdg_then(c->bc, c->lambda, s->x, c->ux, c->uy, w->Ap, 0, &t);
    if (pointwise) return;
  } else {
    s->A.apply(s->A.ctx, s->x, w->Ap);
    insdg_task_sub(b, w->Ap, w->r);
  }
  if (s->prec) s->prec->apply(s->prec->ctx, w->r, w->z); else insdg_task_copy(w->r, w->z);
  if (w->ones) project_constants(T, w->ones, w->proj, w->z);
  insdg_task_copy(w->z, w->p);
  insdg_task_pcg_dots(w->r, w->z, NULL, s->rz_old);
}

/* The head of an iteration: (p = z + beta p), A p, p.Ap. It writes only p, Ap and p.Ap,
   which a converged solve no longer reads, so it may be queued before the convergence
   test of the previous iteration is known (speculation: the workers have it while the
   host waits; wasted once per solve). beta = r.z / r_old.z_old (flexible: (r - r_prev).z /
   r_old.z_old) from the scalars of the previous iteration, rz_new and rz_old before the
   host swaps them. */
static void submit_head(solve *s)
{
  const long t0 = insdg_runtime_tasks_inserted();
  insdg_pcg_work *w = s->w;
  const insdg_coef beta = ratio(1.0, s->rz_new, w->r_prev ? 2 : 0, s->rz_old, 0);
  if (s->A.apply == insdg_sipdg_apply) {
    /* the SIPDG: the operator's task of a block also adds its part of p.Ap, and (CPU
       codelets) the update of p also makes its local gradient: two tasks per block, not four */
    const insdg_sipdg_ctx *c = s->A.ctx;
    const int grad = s->started && insdg_task_fuse_local_gradient(w->p->T);
    if (grad) insdg_task_xpay_gradient(w->z, beta, w->p, &(insdg_grad_out){w->p, c->ux, c->uy});
    else if (s->started) insdg_task_xpay(w->z, beta, w->p);
    insdg_then dot;
    insdg_then_dot(&dot, w->p, w->Ap, w->pAp);
    insdg_task_sipdg_then(c->bc, c->lambda, w->p, c->ux, c->uy, w->Ap, grad, &dot);
  } else {
    if (s->started) insdg_task_xpay(w->z, beta, w->p);
    s->A.apply(s->A.ctx, w->p, w->Ap);
    insdg_task_dots((insdg_dfield *[]){w->p}, (insdg_dfield *[]){w->Ap}, w->pAp);
  }
  s->res.iteration_tasks += insdg_runtime_tasks_inserted() - t0;
  s->head_queued = 1;
}

/* The rest of an iteration, up to its convergence test: (r_prev = r), x += alpha p,
   r -= alpha A p (alpha = r.z / p.Ap); z = P r; r.z, r.r, (r - r_prev).z. rz_old is the
   r.z of the previous iteration (or of the start). */
static void submit_tail(insdg_tasks *T, solve *s)
{
  const long t0 = insdg_runtime_tasks_inserted();
  insdg_pcg_work *w = s->w;
  ++s->res.iterations;
  s->started = 1, s->head_queued = 0;
  const insdg_sref num = {s->rz_old, 0}, den = {w->pAp, 0};
  insdg_dinv D;
  const int pointwise = pointwise_prec(T, s->prec, &D);
  if (pointwise && !w->ones) {   /* one task per block for the three below */
    insdg_task_pcg_tail(num, den, w->p, w->Ap, s->x, w->r, w->r_prev, pointwise == 2 ? &D : NULL, w->z, s->rz_new);
  } else {
    insdg_task_pcg_update(num, den, w->p, w->Ap, s->x, w->r, w->r_prev);
    if (s->prec) s->prec->apply(s->prec->ctx, w->r, w->z); else insdg_task_copy(w->r, w->z);
    if (w->ones) project_constants(T, w->ones, w->proj, w->z);
    insdg_task_pcg_dots(w->r, w->z, w->r_prev, s->rz_new);   /* r.z, r.r, (r - r_prev).z */
  }
  s->res.iteration_tasks += insdg_runtime_tasks_inserted() - t0;
}

/* One iteration after its predecessor's convergence test said "go on". */
static void queue_iteration(insdg_tasks *T, solve *s, int speculate)
{
  if (!s->head_queued) submit_head(s);   /* its beta reads rz_new / rz_old before the swap */
  if (s->started) {                 /* the new r.z becomes the old one */
    insdg_dscalar *t = s->rz_old;
    s->rz_old = s->rz_new, s->rz_new = t;
  }
  submit_tail(T, s);
  if (speculate) submit_head(s);
}

/* The one wait of an iteration (or of the start): r.r of the newest residual. Sets
   active = 0 when the solve converged, diverged (NaN or Inf) or ran out of iterations. */
static void convergence_test(insdg_tasks *T, solve *s)
{
  insdg_dscalar *rz = s->started ? s->rz_new : s->rz_old;
  insdg_pcg_result *res = &s->res;
  if (!s->started) {
    s->bnorm = sqrt(insdg_dscalar_get(s->w->bb, 0));
    s->target = s->o->rtol * (s->bnorm > 0 ? s->bnorm : 1.0);
  }
  const double rnorm = sqrt(insdg_dscalar_get(rz, 1));
  res->relres = rnorm / (s->bnorm > 0 ? s->bnorm : 1.0);
  res->converged = rnorm <= s->target;
  if (s->started && s->o->verbose && T->rank == 0 && isfinite(rnorm))
    printf("pcg %4d  %.3e\n", res->iterations, res->relres);
  /* minit: more iterations even when converged, unless the residual is exactly zero (a zero
     right-hand side and guess: the next step length would be 0/0) */
  s->active = (!res->converged || (res->iterations < s->o->minit && rnorm > 0)) && isfinite(rnorm) &&
              res->iterations < s->o->maxit;
}

/* The solves take turns: each waits for its own convergence test and, if it goes on,
   queues its next iteration at once (all of them up to minit), so the workers have the
   other solves' iterations while the host waits for one. A single solve instead queues
   the head of its next iteration before it waits (speculation, submit_head), and every
   solve queues the head of its first iteration before the first test. Either way
   the tasks of one solve are the same, in the same order, as a lone textbook PCG's: the
   same bits. */
void insdg_pcg_many(insdg_tasks *T, int n, const insdg_linop *A, const insdg_linop *const *prec,
                    insdg_dfield *const *b, insdg_dfield *const *x, const insdg_pcg_opts *o, insdg_pcg_result *res)
{
  solve *s = insdg_calloc((size_t)n, sizeof *s);
  const int speculate = n == 1;
  for (int i = 0; i < n; ++i) {
    s[i] = (solve){.A = A[i], .prec = prec[i], .o = &o[i], .x = x[i]};
    s[i].own = o[i].work ? NULL : insdg_pcg_work_create(T, o[i].flexible, o[i].null_space);
    s[i].w = o[i].work ? o[i].work : s[i].own;
    INSDG_CHECK(s[i].w->flexible == !!o[i].flexible && s[i].w->null_space == !!o[i].null_space);
    for (int j = 0; j < i; ++j) INSDG_CHECK(s[j].w != s[i].w);   /* concurrent solves: a workspace each */
    s[i].rz_old = s[i].w->rz[0], s[i].rz_new = s[i].w->rz[1];
    submit_start(T, &s[i], b[i]);
    submit_head(&s[i]);   /* every solve: the workers have it while the host waits for the first test */
  }
  for (int i = 0; i < n; ++i) s[i].active = 1;   /* until its first test */
  for (int any = 1; any;) {
    any = 0;
    for (int i = 0; i < n; ++i) {
      if (!s[i].active) continue;
      convergence_test(T, &s[i]);
      if (!s[i].active) continue;
      any = 1;
      /* Iterations below minit happen whatever their residuals: queue them all now, with
         no wait in between (their convergence tests could only say "go on") */
      const int left = s[i].o->maxit - s[i].res.iterations;
      int batch = s[i].o->minit - s[i].res.iterations;
      batch = batch < 1 ? 1 : batch > left ? left : batch;
      for (int k = 0; k < batch; ++k) queue_iteration(T, &s[i], speculate);
    }
  }
  for (int i = 0; i < n; ++i) res[i] = s[i].res, insdg_pcg_work_destroy(s[i].own);
  free(s);
}

insdg_pcg_result insdg_pcg(insdg_tasks *T, insdg_linop A, const insdg_linop *prec, insdg_dfield *b, insdg_dfield *x,
                           const insdg_pcg_opts *o)
{
  insdg_pcg_result res;
  insdg_pcg_many(T, 1, &A, &prec, &b, &x, o, &res);
  return res;
}

void insdg_pcg_fix_mean(insdg_tasks *T, insdg_dfield *x)
{
  const insdg_mesh *m = T->L->mesh;
  const insdg_ref *ref = m->ref;
  const size_t n = (size_t)m->K * ref->Np;
  double *w = insdg_malloc(sizeof(double) * n);
  double *one = insdg_malloc(sizeof(double) * n);
  for (size_t i = 0; i < n; ++i) one[i] = 1.0;
  insdg_mesh_weak_form(m, one, w);   /* w = J M 1 (M_J 1 on curved elements) */
  free(one);
  insdg_dfield *wf = insdg_dfield_create(T), *ones = constant_field(T, 1.0);
  insdg_dfield_set(wf, w);
  insdg_dscalar *s = insdg_dscalar_create(T, 2);
  insdg_task_dots((insdg_dfield *[]){wf, wf}, (insdg_dfield *[]){x, ones}, s);
  insdg_task_axpy(ratio(-1.0, s, 0, s, 1), ones, x);
  insdg_tasks_wait(T);
  insdg_dscalar_destroy(s), insdg_dfield_destroy(wf), insdg_dfield_destroy(ones);
  free(w);
}
