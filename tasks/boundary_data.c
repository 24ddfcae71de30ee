/* boundary_data.c -- the case's boundary data at the boundary face nodes (run_internal.h).
 *
 * The callback of tasks/ins.h fills face-node arrays [K][3Nfp] of the
 * renumbered mesh. Each mesh boundary keeps the list of its face nodes with their
 * coordinates and normals, so an expression is evaluated with insdg_expr_eval_many over
 * one boundary at a time; values of expressions that do not use t are kept. At outflow
 * faces the velocity's normal derivative is the exact solution's when the case has an
 * [exact] section (central differences of the exact expressions, step 1e-6 times the
 * domain's size: the Taylor vortex test of the paper needs it), else zero (the natural
 * condition).
 */
#include <math.h>
#include <stdlib.h>

#include "run_internal.h"

/* values of one expression at one boundary's face nodes, kept when it does not use t */
typedef struct {
  double *val;
  int valid;
} cached;

static const double *eval_cached(const insdg_expr *e, size_t n, const double *x, const double *y, double t, cached *c)
{
  if (!c->valid || (insdg_expr_uses(e) & INSDG_EXPR_USES_T)) insdg_expr_eval_many(e, n, x, y, t, c->val);
  c->valid = 1;
  return c->val;
}

enum { SHIFT_XP, SHIFT_XM, SHIFT_YP, SHIFT_YM, NSHIFT };

/* one boundary of the mesh: its face nodes in the face arrays [K][3Nfp] */
typedef struct {
  const insdg_case_boundary *b;
  size_t n;
  size_t *q;             /* [n] index into the face arrays */
  double *x, *y;         /* [n] coordinates */
  double *nx, *ny;       /* [n] outward normal */
  double *sx[NSHIFT], *sy[NSHIFT];   /* shifted coordinates for central differences (outflow) */
  double *ux, *uy, *uval;            /* displaced coordinates and values (velocity_at_callback) */
  cached u, v, p, fd[2][NSHIFT];
} bnd_set;

struct bnd_data {
  const insdg_case *c;
  int nsets;
  bnd_set *set;          /* [nsets], one per mesh boundary */
  double fd_h;           /* step of the central differences */
};


static double domain_size(const insdg_mesh *m)
{
  double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
  for (int i = 0; i < m->Nv; ++i)
    x0 = fmin(x0, m->vx[i]), x1 = fmax(x1, m->vx[i]), y0 = fmin(y0, m->vy[i]), y1 = fmax(y1, m->vy[i]);
  return fmax(x1 - x0, y1 - y0);
}


static void bnd_set_init(bnd_set *s, const insdg_mesh *m, int bnd, double h)
{
  const insdg_ref *r = m->ref;
  s->n = 0;
  for (int i = 0; i < 3 * m->K; ++i) s->n += m->face_bnd[i] == bnd ? (size_t)r->Nfp : 0;
  s->q = insdg_calloc(s->n, sizeof(size_t));
  double **arrays[] = {&s->x, &s->y, &s->nx, &s->ny, &s->u.val, &s->v.val, &s->p.val, &s->ux, &s->uy, &s->uval};
  for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; ++k) *arrays[k] = new_array(s->n);
  for (int d = 0; d < NSHIFT; ++d) {
    s->sx[d] = new_array(s->n), s->sy[d] = new_array(s->n);
    s->fd[0][d].val = new_array(s->n), s->fd[1][d].val = new_array(s->n);
  }
  size_t i = 0;
  for (int ef = 0; ef < 3 * m->K; ++ef) {
    if (m->face_bnd[ef] != bnd) continue;
    const int e = ef / 3, f = ef % 3;
    const double *sg = m->sgeo + (size_t)ef * INSDG_NSGEO;
    for (int j = 0; j < r->Nfp; ++j, ++i) {
      const size_t node = (size_t)e * r->Np + r->face_nodes[f * r->Nfp + j];
      s->q[i] = (size_t)ef * r->Nfp + j;
      s->x[i] = m->x[node], s->y[i] = m->y[node], s->nx[i] = sg[INSDG_NX], s->ny[i] = sg[INSDG_NY];
      const double dx[NSHIFT] = {h, -h, 0, 0}, dy[NSHIFT] = {0, 0, h, -h};
      for (int d = 0; d < NSHIFT; ++d) s->sx[d][i] = s->x[i] + dx[d], s->sy[d][i] = s->y[i] + dy[d];
    }
  }
}

static void bnd_set_free(bnd_set *s)
{
  free(s->q), free(s->x), free(s->y), free(s->nx), free(s->ny), free(s->u.val), free(s->v.val), free(s->p.val);
  free(s->ux), free(s->uy), free(s->uval);
  for (int d = 0; d < NSHIFT; ++d) free(s->sx[d]), free(s->sy[d]), free(s->fd[0][d].val), free(s->fd[1][d].val);
}

bnd_data *bnd_data_create(const insdg_case *c, const insdg_mesh *m)
{
  bnd_data *d = insdg_calloc(1, sizeof *d);
  d->c = c, d->nsets = m->nbnd, d->fd_h = 1e-6 * domain_size(m);
  d->set = insdg_calloc((size_t)(m->nbnd > 0 ? m->nbnd : 1), sizeof(bnd_set));
  for (int b = 0; b < m->nbnd; ++b) {
    bnd_set_init(&d->set[b], m, b, d->fd_h);
    d->set[b].b = insdg_case_find_boundary(c, m->bnd_name[b]);
    INSDG_CHECK(d->set[b].b);
  }
  return d;
}

void bnd_data_destroy(bnd_data *d)
{
  if (!d) return;
  for (int b = 0; b < d->nsets; ++b) bnd_set_free(&d->set[b]);
  free(d->set), free(d);
}

static void scatter(const bnd_set *s, const double *val, double *face)
{
  for (size_t i = 0; i < s->n; ++i) face[s->q[i]] = val ? val[i] : 0.0;
}

/* n . grad(exact component) at the face nodes, by central differences, into out */
static void exact_normal_derivative(bnd_set *s, int comp, const insdg_expr *e, double t, double h, double *out)
{
  const double *f[NSHIFT];
  for (int d = 0; d < NSHIFT; ++d) f[d] = eval_cached(e, s->n, s->sx[d], s->sy[d], t, &s->fd[comp][d]);
  for (size_t i = 0; i < s->n; ++i)
    out[i] = (s->nx[i] * (f[SHIFT_XP][i] - f[SHIFT_XM][i]) + s->ny[i] * (f[SHIFT_YP][i] - f[SHIFT_YM][i])) / (2 * h);
}

static void outflow_data(bnd_data *d, bnd_set *s, double t, double *gp, double *hu, double *hv)
{
  scatter(s, eval_cached(s->b->p, s->n, s->x, s->y, t, &s->p), gp);
  if (!d->c->has_exact) {
    scatter(s, NULL, hu), scatter(s, NULL, hv);
    return;
  }
  double *tmp = s->uval;   /* scratch of velocity_at_callback, free here */
  exact_normal_derivative(s, 0, d->c->exact_u, t, d->fd_h, tmp), scatter(s, tmp, hu);
  exact_normal_derivative(s, 1, d->c->exact_v, t, d->fd_h, tmp), scatter(s, tmp, hv);
}

/* The velocity data of a boundary: the expressions of an inflow; on an outflow, the exact
   solution when the case has one (the advection takes it where the flow enters there:
   docs/numerics.md, "Backflow at an outflow"); none on walls or otherwise (zero). */
static void velocity_data(const bnd_data *d, const bnd_set *s, const insdg_expr **u, const insdg_expr **v)
{
  *u = *v = NULL;
  if (s->b->kind == INSDG_BOUNDARY_INFLOW) *u = s->b->u, *v = s->b->v;
  if (s->b->kind == INSDG_BOUNDARY_OUTFLOW && d->c->has_exact) *u = d->c->exact_u, *v = d->c->exact_v;
}

/* the insdg_ins_opts boundary callback: every boundary face node of the renumbered mesh */
void boundary_callback(void *ctx, double t, double *gu, double *gv, double *gp, double *hu, double *hv)
{
  bnd_data *d = ctx;
  for (int b = 0; b < d->nsets; ++b) {
    bnd_set *s = &d->set[b];
    const insdg_expr *eu, *ev;
    velocity_data(d, s, &eu, &ev);
    scatter(s, eu ? eval_cached(eu, s->n, s->x, s->y, t, &s->u) : NULL, gu);
    scatter(s, ev ? eval_cached(ev, s->n, s->x, s->y, t, &s->v) : NULL, gv);
    if (s->b->kind == INSDG_BOUNDARY_OUTFLOW) {
      outflow_data(d, s, t, gp, hu, hv);
    } else {
      scatter(s, NULL, gp), scatter(s, NULL, hu), scatter(s, NULL, hv);
    }
  }
}

/* the insdg_ins_opts velocity_at callback: the velocity data (velocity_data) at time t at
   the face nodes displaced by (dx, dy) (they are functions of x and y, so off the boundary
   they extend the data smoothly); zero where a boundary has none */
void velocity_at_callback(void *ctx, double t, const double *dx, const double *dy, double *gu, double *gv)
{
  bnd_data *d = ctx;
  for (int b = 0; b < d->nsets; ++b) {
    bnd_set *s = &d->set[b];
    const insdg_expr *eu, *ev;
    velocity_data(d, s, &eu, &ev);
    if (!eu) {
      scatter(s, NULL, gu), scatter(s, NULL, gv);
      continue;
    }
    for (size_t i = 0; i < s->n; ++i) s->ux[i] = s->x[i] + dx[s->q[i]], s->uy[i] = s->y[i] + dy[s->q[i]];
    insdg_expr_eval_many(eu, s->n, s->ux, s->uy, t, s->uval), scatter(s, s->uval, gu);
    insdg_expr_eval_many(ev, s->n, s->ux, s->uy, t, s->uval), scatter(s, s->uval, gv);
  }
}

/* velocity Dirichlet / pressure Neumann on inflow and walls, the reverse on outflow */
void boundary_codes(const bnd_data *d, const insdg_mesh *m, signed char *bc_vel, signed char *bc_p)
{
  for (int i = 0; i < 3 * m->K; ++i) {
    const int b = m->face_bnd[i];
    const int out = b >= 0 && d->set[b].b->kind == INSDG_BOUNDARY_OUTFLOW;
    bc_vel[i] = b < 0 ? INSDG_BC_INTERIOR : out ? INSDG_BC_NEUMANN : INSDG_BC_DIRICHLET;
    bc_p[i] = b < 0 ? INSDG_BC_INTERIOR : out ? INSDG_BC_DIRICHLET : INSDG_BC_NEUMANN;
  }
}

