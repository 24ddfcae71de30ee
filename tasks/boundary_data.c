/* boundary_data.c -- the case's boundary data at the boundary face nodes (run_internal.h).
 *
 * The callback of tasks/ins.h fills face-node arrays [K][3Nfp] of the renumbered mesh at
 * the faces of this rank's elements (no other rank's faces are read here: each rank
 * evaluates its share of the boundary, not the whole mesh's). Each mesh boundary keeps the
 * list of those face nodes with their coordinates and normals, so an expression is
 * evaluated with insdg_expr_eval_many over one boundary at a time; values of expressions
 * that do not use t are kept. At outflow faces the velocity's normal derivative is the
 * exact solution's when the case has an [exact] section (central differences of the exact
 * expressions, step 1e-6 times the domain's size: the Taylor vortex test of the paper
 * needs it), else zero (the natural condition).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "run_internal.h"
#include "curved.h"

/* values of one expression at one boundary's face nodes, kept when it does not use t */
typedef struct {
  double *val;
  int valid;
} cached;

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

/* the first non-finite value of an expression seen (bad == NULL: none) */
typedef struct {
  const insdg_expr *bad;
  double x, y, t, value;
} nonfinite;

struct bnd_data {
  const insdg_case *c;
  int nsets;
  bnd_set *set;          /* [nsets], one per mesh boundary */
  double fd_h;           /* step of the central differences */
  nonfinite seen;        /* of the boundary data so far */
};

/* record the first non-finite value of e at the n points (x, y) */
static void watch(nonfinite *w, const insdg_expr *e, size_t n, const double *x, const double *y, double t,
                  const double *v)
{
  for (size_t i = 0; i < n && !w->bad; ++i)
    if (!isfinite(v[i])) *w = (nonfinite){e, x[i], y[i], t, v[i]};
}

/* "<case>:<line>: [section] key: 'text' is not finite at ..." */
static int nonfinite_message(const insdg_case *c, const nonfinite *w, char *err, size_t errlen)
{
  if (!w->bad) return 0;
  snprintf(err, errlen, "%s:%d: %s: '%.100s' is not finite at x = %.6g, y = %.6g, t = %.6g (it is %g)", c->path,
           insdg_expr_line(w->bad), insdg_expr_where(w->bad), insdg_expr_text(w->bad), w->x, w->y, w->t, w->value);
  return 1;
}

static const double *eval_cached(bnd_data *d, const insdg_expr *e, size_t n, const double *x, const double *y, double t,
                                 cached *c)
{
  if (!c->valid || (insdg_expr_uses(e) & INSDG_EXPR_USES_T)) {
    insdg_expr_eval_many(e, n, x, y, t, c->val);
    watch(&d->seen, e, n, x, y, t, c->val);
  }
  c->valid = 1;
  return c->val;
}

static double domain_size(const insdg_mesh *m)
{
  double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
  for (int i = 0; i < m->Nv; ++i)
    x0 = fmin(x0, m->vx[i]), x1 = fmax(x1, m->vx[i]), y0 = fmin(y0, m->vy[i]), y1 = fmax(y1, m->vy[i]);
  return fmax(x1 - x0, y1 - y0);
}

static void bnd_set_init(bnd_set *s, const insdg_mesh *m, int bnd, double h, int e_begin, int e_end)
{
  const insdg_ref *r = m->ref;
  s->n = 0;
  for (int i = 3 * e_begin; i < 3 * e_end; ++i) s->n += m->face_bnd[i] == bnd ? (size_t)r->Nfp : 0;
  s->q = insdg_calloc(s->n, sizeof(size_t));
  double **arrays[] = {&s->x, &s->y, &s->nx, &s->ny, &s->u.val, &s->v.val, &s->p.val, &s->ux, &s->uy, &s->uval};
  for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; ++k) *arrays[k] = new_array(s->n);
  for (int d = 0; d < NSHIFT; ++d) {
    s->sx[d] = new_array(s->n), s->sy[d] = new_array(s->n);
    s->fd[0][d].val = new_array(s->n), s->fd[1][d].val = new_array(s->n);
  }
  size_t i = 0;
  for (int ef = 3 * e_begin; ef < 3 * e_end; ++ef) {
    if (m->face_bnd[ef] != bnd) continue;
    const int e = ef / 3, f = ef % 3;
    const double *sg = m->sgeo + (size_t)ef * INSDG_NSGEO;
    for (int j = 0; j < r->Nfp; ++j, ++i) {
      const size_t node = (size_t)e * r->Np + r->face_nodes[f * r->Nfp + j];
      s->q[i] = (size_t)ef * r->Nfp + j;
      s->x[i] = m->x[node], s->y[i] = m->y[node], s->nx[i] = sg[INSDG_NX], s->ny[i] = sg[INSDG_NY];
      const int k = m->curved ? m->curved->index[e] : -1;
      if (k >= 0) {   /* a curved face: the normal of each node */
        const double *cs = m->curved->sgeo + ((size_t)k * 3 * r->Nfp + f * r->Nfp + j) * CF_NF;
        s->nx[i] = cs[CF_NX], s->ny[i] = cs[CF_NY];
      }
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

bnd_data *bnd_data_create(const insdg_case *c, const insdg_mesh *m, int e_begin, int e_end)
{
  bnd_data *d = insdg_calloc(1, sizeof *d);
  d->c = c, d->nsets = m->nbnd, d->fd_h = 1e-6 * domain_size(m);
  d->set = insdg_calloc((size_t)(m->nbnd > 0 ? m->nbnd : 1), sizeof(bnd_set));
  for (int b = 0; b < m->nbnd; ++b) {
    bnd_set_init(&d->set[b], m, b, d->fd_h, e_begin, e_end);
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
static void exact_normal_derivative(bnd_data *d, bnd_set *s, int comp, const insdg_expr *e, double t, double *out)
{
  const double *f[NSHIFT];
  for (int k = 0; k < NSHIFT; ++k) f[k] = eval_cached(d, e, s->n, s->sx[k], s->sy[k], t, &s->fd[comp][k]);
  for (size_t i = 0; i < s->n; ++i)
    out[i] = (s->nx[i] * (f[SHIFT_XP][i] - f[SHIFT_XM][i]) + s->ny[i] * (f[SHIFT_YP][i] - f[SHIFT_YM][i])) / (2 * d->fd_h);
}

static void outflow_data(bnd_data *d, bnd_set *s, double t, double *gp, double *hu, double *hv)
{
  scatter(s, eval_cached(d, s->b->p, s->n, s->x, s->y, t, &s->p), gp);
  if (!d->c->has_exact) {
    scatter(s, NULL, hu), scatter(s, NULL, hv);
    return;
  }
  double *tmp = s->uval;   /* scratch of velocity_at_callback, free here */
  exact_normal_derivative(d, s, 0, d->c->exact_u, t, tmp), scatter(s, tmp, hu);
  exact_normal_derivative(d, s, 1, d->c->exact_v, t, tmp), scatter(s, tmp, hv);
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
    scatter(s, eu ? eval_cached(d, eu, s->n, s->x, s->y, t, &s->u) : NULL, gu);
    scatter(s, ev ? eval_cached(d, ev, s->n, s->x, s->y, t, &s->v) : NULL, gv);
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
    watch(&d->seen, eu, s->n, s->ux, s->uy, t, s->uval);
    insdg_expr_eval_many(ev, s->n, s->ux, s->uy, t, s->uval), scatter(s, s->uval, gv);
    watch(&d->seen, ev, s->n, s->ux, s->uy, t, s->uval);
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

int bnd_data_failed(const bnd_data *d, char *err, size_t errlen) { return nonfinite_message(d->c, &d->seen, err, errlen); }

/* e at the n nodes (x, y) at time t, watched */
static void watch_nodes(nonfinite *w, const insdg_expr *e, size_t n, const double *x, const double *y, double t, double *tmp)
{
  if (!e || w->bad) return;
  insdg_expr_eval_many(e, n, x, y, t, tmp);
  watch(w, e, n, x, y, t, tmp);
}

static int by_value(const void *a, const void *b)
{
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* rank 0: a warning when the initial speed somewhere is over 1e6 times its median (a
   singular expression such as 1/x between nodes: finite, but no flow) */
static void warn_singular(const insdg_case *c, const insdg_mesh *m, const double *u0, const double *v0, size_t n)
{
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0 || n == 0) return;
  double *speed = new_array(n), top = -1;
  size_t at = 0;
  for (size_t i = 0; i < n; ++i) {
    speed[i] = hypot(u0[i], v0[i]);
    if (speed[i] > top) top = speed[i], at = i;
  }
  qsort(speed, n, sizeof *speed, by_value);
  const double median = speed[n / 2];
  if (top > 1e6 * median && top > 0)
    fprintf(stderr, "insdg: warning: %s: the initial speed reaches %g at x = %.6g, y = %.6g, %s its median (%g): "
            "is [initial] u or v singular there?\n", c->path, top, m->x[at], m->y[at],
            median > 0 ? "more than 1e6 times" : "while zero is", median);
  free(speed);
}

int check_input_data(const insdg_case *c, const insdg_mesh *m, bnd_data *d, const double *u0, const double *v0,
                     const double *p0, size_t n, char *err, size_t errlen)
{
  nonfinite w = {0};
  watch(&w, c->initial_u, n, m->x, m->y, 0.0, u0);
  watch(&w, c->initial_v, n, m->x, m->y, 0.0, v0);
  watch(&w, c->initial_p, n, m->x, m->y, 0.0, p0);
  if (nonfinite_message(c, &w, err, errlen)) return 1;
  warn_singular(c, m, u0, v0, n);
  /* the boundary data at t = 0 (and before it, when the start takes the history from [exact]) */
  const size_t nf = (size_t)m->K * 3 * m->ref->Nfp;
  double *face[5], *tmp = new_array(n);
  for (int k = 0; k < 5; ++k) face[k] = new_array(nf);
  const int levels = c->start_exact ? 2 : 0;
  for (int i = 0; i <= levels && !d->seen.bad; ++i)
    boundary_callback(d, -i * c->dt, face[0], face[1], face[2], face[3], face[4]);
  int bad = bnd_data_failed(d, err, errlen);
  /* the exact solution at the nodes, at the same times */
  for (int i = 0; i <= levels && !bad && c->has_exact; ++i) {
    watch_nodes(&w, c->exact_u, n, m->x, m->y, -i * c->dt, tmp);
    watch_nodes(&w, c->exact_v, n, m->x, m->y, -i * c->dt, tmp);
    watch_nodes(&w, c->exact_p, n, m->x, m->y, -i * c->dt, tmp);
    bad = nonfinite_message(c, &w, err, errlen);
  }
  for (int k = 0; k < 5; ++k) free(face[k]);
  free(tmp);
  return bad;
}
