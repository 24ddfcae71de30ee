/* pcg.c -- PCG over the task graph (pcg.h). The loop below is the textbook algorithm;
 * every line submits tasks, and only insdg_dscalar_get waits. */
#include "pcg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "error.h"
#include "ops_tasks.h"

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
  w->Ap = insdg_dfield_create(T), w->b = insdg_dfield_create(T);
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

insdg_pcg_result insdg_pcg(insdg_tasks *T, insdg_linop A, const insdg_linop *prec, insdg_dfield *b_in,
                           insdg_dfield *x, const insdg_pcg_opts *o)
{
  insdg_pcg_work *own = o->work ? NULL : insdg_pcg_work_create(T, o->flexible, o->null_space);
  insdg_pcg_work *w = o->work ? o->work : own;
  INSDG_CHECK(w->flexible == !!o->flexible && w->null_space == !!o->null_space);
  insdg_dfield *r = w->r, *z = w->z, *p = w->p, *Ap = w->Ap, *b = w->b, *r_prev = w->r_prev;
  insdg_dfield *ones = w->ones;
  insdg_dscalar *proj = w->proj, *bb = w->bb, *pAp = w->pAp, *rz_old = w->rz[0], *rz_new = w->rz[1];

  insdg_task_copy(b_in, b);
  if (ones) project_constants(T, ones, proj, b);
  insdg_task_dots((insdg_dfield *[]){b}, (insdg_dfield *[]){b}, bb);

  /* r = b - A x; z = P r; p = z; (r.z, r.r) */
  A.apply(A.ctx, x, Ap);
  insdg_task_sub(b, Ap, r);
  if (prec) prec->apply(prec->ctx, r, z); else insdg_task_copy(r, z);
  if (ones) project_constants(T, ones, proj, z);
  insdg_task_copy(z, p);
  insdg_task_pcg_dots(r, z, NULL, rz_old);
  const double bnorm = sqrt(insdg_dscalar_get(bb, 0));
  double rnorm = sqrt(insdg_dscalar_get(rz_old, 1));
  const double target = o->rtol * (bnorm > 0 ? bnorm : 1.0);

  insdg_pcg_result res = {rnorm <= target, 0, rnorm / (bnorm > 0 ? bnorm : 1.0)};
  while (!res.converged && isfinite(rnorm) && res.iterations < o->maxit) {
    ++res.iterations;
    A.apply(A.ctx, p, Ap);
    insdg_task_dots((insdg_dfield *[]){p}, (insdg_dfield *[]){Ap}, pAp);
    /* (r_prev = r), x += alpha p, r -= alpha A p: alpha = r.z / p.Ap */
    insdg_task_pcg_update((insdg_sref){rz_old, 0}, (insdg_sref){pAp, 0}, p, Ap, x, r, r_prev);
    if (prec) prec->apply(prec->ctx, r, z); else insdg_task_copy(r, z);
    if (ones) project_constants(T, ones, proj, z);
    insdg_task_pcg_dots(r, z, r_prev, rz_new);   /* r.z, r.r, (r - r_prev).z */
    rnorm = sqrt(insdg_dscalar_get(rz_new, 1));                /* the one wait */
    res.relres = rnorm / (bnorm > 0 ? bnorm : 1.0);
    res.converged = rnorm <= target;
    if (!isfinite(rnorm)) break;   /* diverged (NaN or Inf): not converged, stop now */
    if (o->verbose && T->rank == 0) printf("pcg %4d  %.3e\n", res.iterations, res.relres);
    if (res.converged) break;
    /* p = z + beta p: beta = r.z / r_old.z_old (flexible: (r - r_prev).z / r_old.z_old) */
    insdg_task_xpay(z, ratio(1.0, rz_new, r_prev ? 2 : 0, rz_old, 0), p);
    insdg_dscalar *t = rz_old;
    rz_old = rz_new, rz_new = t;
  }
  insdg_pcg_work_destroy(own);
  return res;
}

void insdg_pcg_fix_mean(insdg_tasks *T, insdg_dfield *x)
{
  const insdg_mesh *m = T->L->mesh;
  const insdg_ref *ref = m->ref;
  const size_t n = (size_t)m->K * ref->Np;
  double *w = insdg_malloc(sizeof(double) * n);
  for (int e = 0; e < m->K; ++e)
    for (int i = 0; i < ref->Np; ++i) {
      double row = 0;
      for (int j = 0; j < ref->Np; ++j) row += ref->M[i * ref->Np + j];
      w[(size_t)e * ref->Np + i] = m->vgeo[e * INSDG_NVGEO + INSDG_J] * row;
    }
  insdg_dfield *wf = insdg_dfield_create(T), *ones = constant_field(T, 1.0);
  insdg_dfield_set(wf, w);
  insdg_dscalar *s = insdg_dscalar_create(T, 2);
  insdg_task_dots((insdg_dfield *[]){wf, wf}, (insdg_dfield *[]){x, ones}, s);
  insdg_task_axpy(ratio(-1.0, s, 0, s, 1), ones, x);
  insdg_tasks_wait(T);
  insdg_dscalar_destroy(s), insdg_dfield_destroy(wf), insdg_dfield_destroy(ones);
  free(w);
}
