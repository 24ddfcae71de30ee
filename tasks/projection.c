/* projection.c -- solution projection (projection.h) */
#include "projection.h"

#include <math.h>
#include <stdlib.h>

#include "error.h"

insdg_projection *insdg_projection_create(insdg_tasks *T, int L)
{
  INSDG_CHECK(L >= 0 && L <= INSDG_PROJECTION_MAX && L + 1 <= INSDG_DSCALAR_MAX);
  insdg_projection *P = insdg_calloc(1, sizeof *P);
  P->T = T, P->L = L;
  if (L == 0) return P;
  for (int i = 0; i < L; ++i) P->x[i] = insdg_dfield_create(T);
  P->d = insdg_dfield_create(T), P->w = insdg_dfield_create(T);
  P->alpha = insdg_dscalar_create(T, L), P->g = insdg_dscalar_create(T, L + 1), P->c = insdg_dscalar_create(T, L + 1);
  return P;
}

void insdg_projection_destroy(insdg_projection *P)
{
  if (!P) return;
  if (P->L > 0) {
    for (int i = 0; i < P->L; ++i) insdg_dfield_destroy(P->x[i]);
    insdg_dfield_destroy(P->d), insdg_dfield_destroy(P->w);
    insdg_dscalar_destroy(P->alpha), insdg_dscalar_destroy(P->g), insdg_dscalar_destroy(P->c);
  }
  free(P);
}

int insdg_projection_guess(insdg_projection *P, double key, insdg_dfield *b, insdg_dfield *x)
{
  P->guessed = 0;
  if (P->L == 0) return 0;
  if (key != P->key) P->k = 0, P->key = key;
  if (P->k == 0) return 0;
  insdg_dfield *bs[INSDG_PROJECTION_MAX];
  for (int i = 0; i < P->k; ++i) bs[i] = b;
  insdg_task_dots_n(P->x, bs, P->k, P->alpha);   /* alpha_i = x_i . b, i < k */
  insdg_task_combine(NULL, 1.0, P->alpha, P->k, P->x, x);
  P->guessed = 1;
  return 1;
}

/* The new basis vector's coefficients from g = (x_0.w, .., x_{k-1}.w, d.w), w = A d:
   x_k = s (d - sum g_i x_i), s = 1 / sqrt(d.w - sum g_i^2) (its A-norm, the x_i being
   A-orthonormal), so c = (-s g_0, .., -s g_{k-1}, s). A direction with no new content
   (d = 0, or what is left is round-off: below 1e-12 of d.w) gets s = 0, a zero vector
   that adds nothing to later guesses. Buffers: [g (R), c (W)]. */
static void coefficients_cpu(void *buffers[], void *cl_arg)
{
  int k;
  starpu_codelet_unpack_args(cl_arg, &k);
  const double *g = (const double *)STARPU_VECTOR_GET_PTR(buffers[0]);
  double *c = (double *)STARPU_VECTOR_GET_PTR(buffers[1]);
  double left = g[k];
  for (int i = 0; i < k; ++i) left -= g[i] * g[i];
  const double s = g[k] > 0 && left > 1e-12 * g[k] ? 1.0 / sqrt(left) : 0.0;
  for (int i = 0; i < k; ++i) c[i] = -s * g[i];
  c[k] = s;
}

static struct starpu_codelet coefficients_cl = {
    .cpu_funcs = {coefficients_cpu}, .nbuffers = 2, .modes = {STARPU_R, STARPU_W}, .name = "insdg_projection_coef"};

void insdg_projection_add(insdg_projection *P, const insdg_linop *A, insdg_dfield *x)
{
  if (P->L == 0) return;
  int k = P->k;
  if (!P->guessed || k == P->L) {   /* (re)start: the newest solution alone */
    insdg_task_copy(x, P->d);
    k = 0;
  } else {                          /* d = x - x0 */
    insdg_task_combine(x, -1.0, P->alpha, k, P->x, P->d);
  }
  A->apply(A->ctx, P->d, P->w);
  insdg_dfield *xs[INSDG_PROJECTION_MAX + 1], *ws[INSDG_PROJECTION_MAX + 1];
  for (int i = 0; i < k; ++i) xs[i] = P->x[i], ws[i] = P->w;
  xs[k] = P->d, ws[k] = P->w;
  insdg_task_dots_n(xs, ws, k + 1, P->g);
  INSDG_CHECK(INSDG_TASK_INSERT(&coefficients_cl, STARPU_R, P->g->value, STARPU_W, P->c->value, STARPU_VALUE, &k,
                                sizeof k, 0) == 0);
  insdg_task_combine(NULL, 1.0, P->c, k + 1, xs, P->x[k]);
  P->k = k + 1;
  P->guessed = 0;
}
