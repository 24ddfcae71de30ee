/* run.c -- `insdg run CASE.ini` (run.h): case file -> time steps -> files.
 *
 * Order of events, and why:
 *  1. Set-up, where every user error lives: the case file, the mesh, the boundary names
 *     against the mesh, the layout (too many blocks), the output directory and
 *     diagnostics.csv. Every rank does each check and the ranks agree on the outcome
 *     before going on, so a failure is printed once (rank 0, the lowest failing rank's
 *     message) and every rank shuts the runtime down and returns 2 before any work.
 *  2. Boundary codes per face from the boundary kinds, the boundary-data callback, the
 *     initial fields, the time step (tasks/ins.h).
 *  3. The step loop. After every step the run "observes" the state: it submits the
 *     divergence and the element-local gradients of the velocity, copies this rank's
 *     elements of every field to the host (insdg_dfield_local) and reduces the diagnostics
 *     over the ranks with one MPI_Allreduce for sums and one for maxima: no field is
 *     gathered whole. Field files are written from the same local arrays.
 *  4. The end: L2 errors against [exact], summary.json, shutdown.
 *
 * Invariants: every rank makes the same calls in the same order (task submission,
 * collective output, reductions), and every decision that ends the loop is taken on
 * values every rank holds identically (solver convergence from distributed scalars,
 * reduced diagnostics). Only rank 0 writes diagnostics.csv, summary.json and the log.
 *
 * Boundary data: the callback of tasks/ins.h fills face-node arrays [K][3Nfp] of the
 * renumbered mesh. Each mesh boundary keeps the list of its face nodes with their
 * coordinates and normals, so an expression is evaluated with insdg_expr_eval_many over
 * one boundary at a time; values of expressions that do not use t are kept. At outflow
 * faces the velocity's normal derivative is the exact solution's when the case has an
 * [exact] section (central differences of the exact expressions, step 1e-6 times the
 * domain's size: the Taylor vortex test of the paper needs it), else zero (the natural
 * condition).
 */
#include "run.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "case.h"
#include "checkpoint.h"
#include "dfield.h"
#include "error.h"
#include "ins.h"
#include "mesh.h"
#include "ops_tasks.h"
#include "partition.h"
#include "runtime.h"
#include "ugrid.h"


/* ===================================================================== set-up ======== */

typedef struct {
  insdg_case *c;
  insdg_mesh *mesh;     /* original numbering; geometry set */
  insdg_ref *ref;
  insdg_ops *op;
  insdg_layout *L;
  char outdir[INSDG_CASE_PATH_LEN];
  FILE *csv;            /* rank 0 */
  char csv_path[INSDG_CASE_PATH_LEN + 32];
  int csv_continue;     /* rank 0, --restart: diagnostics.csv exists; keep its rows up to the restart step */
  const char *blocks_origin;   /* "option" (--blocks) or "default" */
  int nsteps;
} setup;

/* The ranks agree on a failure: returns 1 on every rank when some rank failed, with the
   lowest failing rank's message in err on rank 0. */
static int agree(int failed, char *err, size_t errlen)
{
  int rank, size, any = 0, first;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank), MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (!any) return 0;
  const int mine = failed ? rank : size;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Bcast(err, (int)errlen, MPI_CHAR, first, MPI_COMM_WORLD);
  return 1;
}

/* mkdir -p: every missing component of path */
static int make_directories(const char *path, char *err, size_t errlen)
{
  char buf[INSDG_CASE_PATH_LEN];
  snprintf(buf, sizeof buf, "%s", path);
  for (char *p = buf + 1;; ++p) {
    const int end = *p == 0;
    if (*p == '/' || end) {
      *p = 0;
      if (mkdir(buf, 0777) && errno != EEXIST) {
        snprintf(err, errlen, "%.300s: cannot create the output directory: %s", buf, strerror(errno));
        return 1;
      }
      if (end) break;
      *p = '/';
    }
  }
  struct stat st;
  if (stat(path, &st) || !S_ISDIR(st.st_mode)) {
    snprintf(err, errlen, "%.300s: the output directory exists but is not a directory", path);
    return 1;
  }
  return 0;
}

static int check_steps(const insdg_case *c, int *nsteps, char *err, size_t errlen)
{
  const double n = round(c->final_time / c->dt);
  if (n < 1 || n > 1e9) {
    snprintf(err, errlen, "%.300s: [time] final_time: %g is %s (dt = %g)", c->path, c->final_time,
             n < 1 ? "less than half a time step" : "more than 1e9 time steps", c->dt);
    return 1;
  }
  *nsteps = (int)n;
  return 0;
}

static int check_boundaries(const setup *s, char *err, size_t errlen)
{
  const char *names[INSDG_MAX_BOUNDARIES];
  for (int b = 0; b < s->mesh->nbnd; ++b) names[b] = s->mesh->bnd_name[b];
  return insdg_case_check_boundaries(s->c, names, s->mesh->nbnd, err, errlen);
}

/* rank 0: the output directory and diagnostics.csv (opened now, so that a directory that
   cannot be written is a set-up error, not a failure after hours of work) */
static int open_output(setup *s, const insdg_run_opts *o, int rank, char *err, size_t errlen)
{
  snprintf(s->outdir, sizeof s->outdir, "%s", o->output ? o->output : s->c->output);
  if (rank != 0) return 0;
  if (make_directories(s->outdir, err, errlen)) return 1;
  char *path = s->csv_path;
  snprintf(path, sizeof s->csv_path, "%s/diagnostics.csv", s->outdir);
  /* a restart into the directory of the run it continues keeps that run's rows: opened
     for appending now (nothing is lost if the checkpoint turns out to be bad), rewritten
     by csv_continue once the restart step is known */
  s->csv_continue = o->restart && access(path, F_OK) == 0;
  s->csv = fopen(path, s->csv_continue ? "a" : "w");
  if (!s->csv) snprintf(err, errlen, "%.300s: cannot write: %s", path, strerror(errno));
  return s->csv == NULL;
}

/* rank 0, after a restart at step `step`: diagnostics.csv keeps its header and its rows
   of steps <= step, and the run appends to it */
static void csv_continue(setup *s, int step)
{
  fclose(s->csv);
  s->csv = NULL;
  FILE *in = fopen(s->csv_path, "r");
  size_t cap = 1 << 16, len = 0;
  char *keep = insdg_malloc(cap), line[4096];
  int first = 1;
  while (in && fgets(line, sizeof line, in)) {
    if (!first && atoi(line) > step) break;   /* rows are in step order */
    const size_t n = strlen(line);
    if (len + n + 1 > cap) {
      char *bigger = insdg_malloc(cap = 2 * (len + n + 1));
      memcpy(bigger, keep, len), free(keep), keep = bigger;
    }
    memcpy(keep + len, line, n), len += n, first = 0;
  }
  if (in) fclose(in);
  s->csv = fopen(s->csv_path, "w");
  if (!s->csv) {
    char msg[INSDG_CASE_PATH_LEN + 128];
    snprintf(msg, sizeof msg, "%.300s: cannot write: %s", s->csv_path, strerror(errno));
    insdg_die_user(msg);
  }
  fwrite(keep, 1, len, s->csv);
  fflush(s->csv);
  free(keep);
}

static void setup_destroy(setup *s)
{
  if (s->csv) fclose(s->csv);
  insdg_layout_destroy(s->L);
  insdg_ops_destroy(s->op);
  insdg_ref_destroy(s->ref);
  insdg_mesh_destroy(s->mesh);
  insdg_case_destroy(s->c);
  memset(s, 0, sizeof *s);
}

/* Every user error, checked on every rank in turn; 1 with rank 0's message on failure. */
static int setup_create(setup *s, const insdg_run_opts *o, char *err, size_t errlen)
{
  memset(s, 0, sizeof *s);
  if (agree(insdg_case_read(o->case_path, &s->c, err, errlen), err, errlen)) return 1;
  if (agree(check_steps(s->c, &s->nsteps, err, errlen), err, errlen)) return 1;
  if (agree(insdg_mesh_read(s->c->mesh, &s->mesh, err, errlen), err, errlen)) return 1;
  for (int k = 0; k < s->c->refine; ++k) {   /* uniform refinement: each triangle into four */
    insdg_mesh *fine = insdg_mesh_refine(s->mesh);
    insdg_mesh_destroy(s->mesh);
    s->mesh = fine;
  }
  if (agree(check_boundaries(s, err, errlen), err, errlen)) return 1;
  s->ref = insdg_ref_create(s->c->order);
  s->op = insdg_ops_create(s->ref);
  insdg_mesh_set_ref(s->mesh, s->ref);
  return 0;
}

/* CPU workers worth having per rank: one per WORK_PER_WORKER nodes (the Taylor vortex
   at K = 1990, N = 4 is 15 000 a worker on 2 workers, 0.6-0.8 of one worker's step
   time; the quick start's K = 42, N = 6 on 2 workers took 2.2x one worker's time:
   docs/performance.md) */
enum { WORK_PER_WORKER = 10000 };
static int useful_workers(const setup *s, int size)
{
  const long nodes = (long)s->mesh->K * s->ref->Np / size;
  return nodes / WORK_PER_WORKER > 1 ? (int)(nodes / WORK_PER_WORKER) : 1;
}

/* the blocks and the output directory (after StarPU has started: the default block count
   is the worker count) */
static int setup_layout(setup *s, const insdg_run_opts *o, int rank, int size, char *err, size_t errlen)
{
  /* default: one block per worker of a rank (its GPUs when it has CUDA workers: the field
     tasks run there), the same count on every rank (the largest); results are bitwise
     the same for any worker count at a given block count (tasks/README.md) */
  int workers = insdg_runtime_cuda_workers() > 0 ? insdg_runtime_cuda_workers() : insdg_runtime_workers(), most = 1;
  MPI_Allreduce(&workers, &most, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  const int nblocks = o->blocks > 0 ? o->blocks : size * (most > 1 ? most : 1);
  s->blocks_origin = o->blocks > 0 ? "option" : "default";
  if (agree(insdg_layout_create(s->mesh, s->ref, size, nblocks, &s->L, err, errlen), err, errlen)) return 1;
  return agree(open_output(s, o, rank, err, errlen), err, errlen);
}

/* Settings of the case that are taken with a change: said once, not silently. */
static void warn_unsupported(const insdg_case *c)
{
  if (fabs(c->final_time - round(c->final_time / c->dt) * c->dt) > 1e-9 * c->final_time)
    fprintf(stderr, "insdg: warning: final_time %g is not a multiple of dt %g; the run ends at %g\n", c->final_time,
            c->dt, round(c->final_time / c->dt) * c->dt);
}

/* ============================================================= boundary data ======== */

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

typedef struct {
  const insdg_case *c;
  int nsets;
  bnd_set *set;          /* [nsets], one per mesh boundary */
  double fd_h;           /* step of the central differences */
} bnd_data;

static double domain_size(const insdg_mesh *m)
{
  double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
  for (int i = 0; i < m->Nv; ++i)
    x0 = fmin(x0, m->vx[i]), x1 = fmax(x1, m->vx[i]), y0 = fmin(y0, m->vy[i]), y1 = fmax(y1, m->vy[i]);
  return fmax(x1 - x0, y1 - y0);
}

static double *new_array(size_t n) { return insdg_calloc(n, sizeof(double)); }

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

/* m: the renumbered mesh; the case's boundaries were checked against its names */
static bnd_data *bnd_data_create(const insdg_case *c, const insdg_mesh *m)
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

static void bnd_data_destroy(bnd_data *d)
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
static void boundary_callback(void *ctx, double t, double *gu, double *gv, double *gp, double *hu, double *hv)
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
static void velocity_at_callback(void *ctx, double t, const double *dx, const double *dy, double *gu, double *gv)
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
static void boundary_codes(const bnd_data *d, const insdg_mesh *m, signed char *bc_vel, signed char *bc_p)
{
  for (int i = 0; i < 3 * m->K; ++i) {
    const int b = m->face_bnd[i];
    const int out = b >= 0 && d->set[b].b->kind == INSDG_BOUNDARY_OUTFLOW;
    bc_vel[i] = b < 0 ? INSDG_BC_INTERIOR : out ? INSDG_BC_NEUMANN : INSDG_BC_DIRICHLET;
    bc_p[i] = b < 0 ? INSDG_BC_INTERIOR : out ? INSDG_BC_DIRICHLET : INSDG_BC_NEUMANN;
  }
}

/* ============================================================== observation ======== */

enum { F_U, F_V, F_P, F_UX, F_UY, F_VX, F_VY, F_DIV, F_VORT, NLOCAL };
enum { NSCRATCH = 5 };   /* ux, uy, vx, vy, div as distributed fields */

typedef struct {
  double kinetic_energy, max_div, cfl;
  double max_speed;          /* max |u| at the nodes */
  double speed_scale;        /* the largest initial or boundary-data speed so far (divergence guard) */
  double force[INSDG_CASE_MAX_FORCES][2];   /* on each force boundary: x (drag), y (lift) */
} diagnostics;

/* What the run looks at after a step: this rank's elements of every field. */
typedef struct {
  insdg_tasks *T;
  const insdg_case *c;
  const insdg_mesh *m;       /* renumbered */
  const signed char *bc_vel;
  bnd_data *bd;
  insdg_dfield *scratch[NSCRATCH];
  double *gu, *gv, *gp, *hu, *hv;   /* boundary data at the observed time, [K][3Nfp] */
  double *local[NLOCAL];     /* [e_end - e_begin][Np], this rank's elements */
  int e_begin, e_end;
  int force_bnd[INSDG_CASE_MAX_FORCES];   /* mesh boundary index of each force boundary */
  double *face_weight;       /* [Nfp] integral of each face node's Lagrange polynomial, t in [-1,1] */
  double speed_scale;        /* max |u| of the initial fields and of the velocity data seen so far */
} observer;

/* A run has diverged when its largest nodal speed exceeds this times the largest speed of
   its initial fields and boundary data so far (an unforced incompressible flow does not
   get there; an unstable dt overflows through it within a few steps). */
#define DIVERGED_FACTOR 10.0

/* elements of this rank's blocks */
static int rank_elements(const insdg_tasks *T)
{
  int n = 0;
  for (int b = 0; b < T->L->B; ++b) n += T->L->block_rank[b] == T->rank ? T->L->block[b]->K : 0;
  return n;
}

static observer *observer_create(insdg_tasks *T, const insdg_case *c, const signed char *bc_vel, bnd_data *bd)
{
  observer *ob = insdg_calloc(1, sizeof *ob);
  ob->T = T, ob->c = c, ob->m = T->L->mesh, ob->bc_vel = bc_vel, ob->bd = bd;
  const insdg_ref *r = ob->m->ref;
  for (int k = 0; k < NSCRATCH; ++k) ob->scratch[k] = insdg_dfield_create(T);
  const size_t nf = (size_t)ob->m->K * 3 * r->Nfp, n = (size_t)rank_elements(T) * r->Np;
  ob->gu = new_array(nf), ob->gv = new_array(nf), ob->gp = new_array(nf);
  ob->hu = new_array(nf), ob->hv = new_array(nf);
  for (int k = 0; k < NLOCAL; ++k) ob->local[k] = new_array(n);
  for (int i = 0; i < c->nforces; ++i) ob->force_bnd[i] = insdg_mesh_boundary(ob->m, c->forces[i]);
  /* the face integrand is a polynomial of degree <= N in t: exact through the face cubature */
  ob->face_weight = new_array((size_t)r->Nfp);
  for (int q = 0; q < r->Nfcub; ++q)
    for (int j = 0; j < r->Nfp; ++j) ob->face_weight[j] += r->wfc[q] * r->face_interp[q * r->Nfp + j];
  return ob;
}

static void observer_destroy(observer *ob)
{
  if (!ob) return;
  for (int k = 0; k < NSCRATCH; ++k) insdg_dfield_destroy(ob->scratch[k]);
  free(ob->gu), free(ob->gv), free(ob->gp), free(ob->hu), free(ob->hv), free(ob->face_weight);
  for (int k = 0; k < NLOCAL; ++k) free(ob->local[k]);
  free(ob);
}

/* Submit D u (with the velocity data at t) and the local gradients, then copy this rank's
   elements of u, v, p and the results to the host (which waits for them). */
static void observe_fields(observer *ob, insdg_ins *ins, double t)
{
  insdg_dfield *u = insdg_ins_u(ins), *v = insdg_ins_v(ins), **sc = ob->scratch;
  boundary_callback(ob->bd, t, ob->gu, ob->gv, ob->gp, ob->hu, ob->hv);
  insdg_task_divergence(ob->bc_vel, ob->gu, ob->gv, u, v, sc[4]);
  insdg_task_local_gradient(u, sc[0], sc[1]);
  insdg_task_local_gradient(v, sc[2], sc[3]);
  insdg_dfield *src[] = {u, v, insdg_ins_p(ins), sc[0], sc[1], sc[2], sc[3], sc[4]};
  for (int k = 0; k < F_VORT; ++k) insdg_dfield_local(src[k], ob->local[k], &ob->e_begin, &ob->e_end);
  const size_t n = (size_t)(ob->e_end - ob->e_begin) * ob->m->ref->Np;
  for (size_t i = 0; i < n; ++i) ob->local[F_VORT][i] = ob->local[F_VX][i] - ob->local[F_UY][i];
}

/* x^T M y for one element's nodal values */
static double mass_product(const insdg_ref *r, const double *x, const double *y)
{
  double s = 0;
  for (int i = 0; i < r->Np; ++i) {
    double mi = 0;
    for (int j = 0; j < r->Np; ++j) mi += r->M[i * r->Np + j] * y[j];
    s += x[i] * mi;
  }
  return s;
}

/* local element le: kinetic energy, max |D u|, max |u| / h (h = min face area/length), max |u| */
static void element_diagnostics(const observer *ob, int le, double *ke, double *maxdiv, double *speed_over_h,
                                double *max_speed)
{
  const insdg_ref *r = ob->m->ref;
  const int e = ob->e_begin + le;
  const double *u = ob->local[F_U] + (size_t)le * r->Np, *v = ob->local[F_V] + (size_t)le * r->Np;
  const double *div = ob->local[F_DIV] + (size_t)le * r->Np;
  *ke += 0.5 * ob->m->vgeo[e * INSDG_NVGEO + INSDG_J] * (mass_product(r, u, u) + mass_product(r, v, v));
  double speed = 0, inv_h = 0;
  for (int i = 0; i < r->Np; ++i) speed = fmax(speed, hypot(u[i], v[i])), *maxdiv = fmax(*maxdiv, fabs(div[i]));
  for (int f = 0; f < 3; ++f) inv_h = fmax(inv_h, ob->m->sgeo[((size_t)e * 3 + f) * INSDG_NSGEO + INSDG_FSCALE]);
  *speed_over_h = fmax(*speed_over_h, speed * inv_h);
  *max_speed = fmax(*max_speed, speed);
}

/* The force of the fluid on face f of local element le:
   integral of p n - nu (grad u + grad u^T) n, n the face's outward normal (out of the fluid). */
static void face_force(const observer *ob, int le, int f, double nu, double F[2])
{
  const insdg_ref *r = ob->m->ref;
  const double *sg = ob->m->sgeo + ((size_t)(ob->e_begin + le) * 3 + f) * INSDG_NSGEO;
  const double nx = sg[INSDG_NX], ny = sg[INSDG_NY], sJ = sg[INSDG_SJ];
  for (int j = 0; j < r->Nfp; ++j) {
    const size_t i = (size_t)le * r->Np + r->face_nodes[f * r->Nfp + j];
    const double p = ob->local[F_P][i], ux = ob->local[F_UX][i], uy = ob->local[F_UY][i];
    const double vx = ob->local[F_VX][i], vy = ob->local[F_VY][i];
    const double tx = p * nx - nu * (2 * ux * nx + (uy + vx) * ny);
    const double ty = p * ny - nu * ((uy + vx) * nx + 2 * vy * ny);
    F[0] += sJ * ob->face_weight[j] * tx, F[1] += sJ * ob->face_weight[j] * ty;
  }
}

/* Diagnostics of the observed state, reduced over the ranks (identical on all). */
static diagnostics observe_diagnostics(observer *ob, double dt)
{
  const int nforces = ob->c->nforces, N = ob->m->ref->N, Nfp = ob->m->ref->Nfp;
  double sums[1 + 2 * INSDG_CASE_MAX_FORCES] = {0}, maxima[4] = {0};
  for (size_t q = (size_t)ob->e_begin * 3 * Nfp; q < (size_t)ob->e_end * 3 * Nfp; ++q)
    maxima[3] = fmax(maxima[3], hypot(ob->gu[q], ob->gv[q]));   /* the velocity data at t */
  for (int le = 0; le < ob->e_end - ob->e_begin; ++le) {
    element_diagnostics(ob, le, &sums[0], &maxima[0], &maxima[1], &maxima[2]);
    for (int f = 0; f < 3 && nforces; ++f) {
      const int b = ob->m->face_bnd[(ob->e_begin + le) * 3 + f];
      for (int k = 0; k < nforces; ++k)
        if (b >= 0 && b == ob->force_bnd[k]) face_force(ob, le, f, ob->c->nu, sums + 1 + 2 * k);
    }
  }
  MPI_Allreduce(MPI_IN_PLACE, sums, 1 + 2 * nforces, MPI_DOUBLE, MPI_SUM, ob->T->comm);
  MPI_Allreduce(MPI_IN_PLACE, maxima, 4, MPI_DOUBLE, MPI_MAX, ob->T->comm);
  ob->speed_scale = fmax(ob->speed_scale, maxima[3]);
  diagnostics d = {.kinetic_energy = sums[0], .max_div = maxima[0], .cfl = dt * N * N * maxima[1],
                   .max_speed = maxima[2], .speed_scale = ob->speed_scale};
  for (int k = 0; k < nforces; ++k) d.force[k][0] = sums[1 + 2 * k], d.force[k][1] = sums[2 + 2 * k];
  return d;
}

/* ================================================================== errors ======== */

enum { ERR_U, ERR_V, ERR_P, NERR };

typedef struct {
  int have[NERR];
  double absolute[NERR], relative[NERR];
} l2_errors;

/* per local element: sum over cubature points of J w (h - ex)^2, J w ex^2, J w (h - ex),
   J w ex, J w, with h the computed field interpolated to the points */
static void error_sums(const observer *ob, const double *field, const insdg_expr *exact, double t, double s[5])
{
  const insdg_mesh *m = ob->m;
  const insdg_ref *r = m->ref;
  const int nloc = ob->e_end - ob->e_begin, Nc = r->Ncub;
  const size_t n = (size_t)nloc * Nc;
  double *x = new_array(n), *y = new_array(n), *h = new_array(n), *ex = new_array(n);
  for (int le = 0; le < nloc; ++le) {
    const size_t e = (size_t)(ob->e_begin + le);
    for (int c = 0; c < Nc; ++c) {
      const double *I = r->cub_interp + (size_t)c * r->Np;
      double xc = 0, yc = 0, hc = 0;
      for (int j = 0; j < r->Np; ++j)
        xc += I[j] * m->x[e * r->Np + j], yc += I[j] * m->y[e * r->Np + j], hc += I[j] * field[(size_t)le * r->Np + j];
      x[(size_t)le * Nc + c] = xc, y[(size_t)le * Nc + c] = yc, h[(size_t)le * Nc + c] = hc;
    }
  }
  insdg_expr_eval_many(exact, n, x, y, t, ex);
  for (size_t i = 0; i < n; ++i) {
    const size_t e = (size_t)ob->e_begin + i / Nc;
    const double w = r->wc[i % Nc] * m->vgeo[e * INSDG_NVGEO + INSDG_J], d = h[i] - ex[i];
    s[0] += w * d * d, s[1] += w * ex[i] * ex[i], s[2] += w * d, s[3] += w * ex[i], s[4] += w;
  }
  free(x), free(y), free(h), free(ex);
}

/* L2 errors of the observed u, v, p against [exact]; the pressure up to a constant when it
   is pure Neumann (then only defined up to one) */
static l2_errors compute_errors(const observer *ob, double t, int pure_neumann)
{
  l2_errors E = {{0}, {0}, {0}};
  const insdg_expr *exact[NERR] = {ob->c->exact_u, ob->c->exact_v, ob->c->exact_p};
  const int field[NERR] = {F_U, F_V, F_P};
  double s[NERR][5] = {{0}};
  for (int k = 0; k < NERR; ++k)
    if (exact[k]) error_sums(ob, ob->local[field[k]], exact[k], t, s[k]);
  MPI_Allreduce(MPI_IN_PLACE, s, NERR * 5, MPI_DOUBLE, MPI_SUM, ob->T->comm);
  for (int k = 0; k < NERR; ++k) {
    if (!exact[k]) continue;
    const int shift = k == ERR_P && pure_neumann;
    const double e2 = s[k][0] - (shift ? s[k][2] * s[k][2] / s[k][4] : 0);
    const double n2 = s[k][1] - (shift ? s[k][3] * s[k][3] / s[k][4] : 0);
    E.have[k] = 1;
    E.absolute[k] = isnan(e2) ? NAN : sqrt(fmax(e2, 0));   /* a blown-up run reports nan, not 0 */
    E.relative[k] = n2 > 0 ? E.absolute[k] / sqrt(n2) : NAN;
  }
  return E;
}

/* ================================================================== output ======== */

static const struct { const char *name, *units, *long_name; } field_info[] = {
    {"u", "m s-1", "x velocity"},
    {"v", "m s-1", "y velocity"},
    {"p", "m2 s-2", "kinematic pressure"},
    {"vorticity", "s-1", "vorticity dv/dx - du/dy (element-local derivatives)"},
};

/* fields_<step>.nc from the observed local arrays; collective */
static int write_fields(const observer *ob, const char *outdir, int step, double t, char *err, size_t errlen)
{
  char path[INSDG_CASE_PATH_LEN + 32], title[INSDG_CASE_NAME_LEN + 64];
  snprintf(path, sizeof path, "%s/fields_%06d.nc", outdir, step);
  snprintf(title, sizeof title, "insdg run %s, step %d", ob->c->name, step);
  insdg_ugrid *w = NULL;
  int status = insdg_ugrid_create(ob->T->comm, path, ob->m, ob->e_begin, ob->e_end, title, &w, err, errlen);
  for (int k = 0; k < 4 && !status; ++k)
    status = insdg_ugrid_add_field(w, field_info[k].name, field_info[k].units, field_info[k].long_name, err, errlen);
  const double *fields[4] = {ob->local[F_U], ob->local[F_V], ob->local[F_P], ob->local[F_VORT]};
  if (!status) status = insdg_ugrid_write(w, t, fields, err, errlen);
  if (w && insdg_ugrid_close(w, status ? NULL : err, status ? 0 : errlen)) status = 1;
  return status;
}

/* a CSV field: quoted when it holds a comma, a quote or a blank */
static void csv_name(FILE *f, const char *prefix, const char *name)
{
  if (!strpbrk(name, ",\" \t")) {
    fprintf(f, ",%s%s", prefix, name);
    return;
  }
  fprintf(f, ",\"%s", prefix);
  for (const char *p = name; *p; ++p) fprintf(f, *p == '"' ? "\"\"" : "%c", *p);
  fputc('"', f);
}

/* Uref and Dref from [constants], for force coefficients */
static int reference_scales(const insdg_case *c, double *U, double *D)
{
  int found = 0;
  for (int i = 0; i < c->nconstants; ++i) {
    if (!strcmp(c->constants[i].name, "Uref")) *U = c->constants[i].value, found |= 1;
    if (!strcmp(c->constants[i].name, "Dref")) *D = c->constants[i].value, found |= 2;
  }
  return found == 3 && *U != 0 && *D != 0;
}

static void csv_header(FILE *f, const insdg_case *c)
{
  double U = 0, D = 0;
  fprintf(f, "step,time,dt,iterations_u,iterations_v,iterations_p,converged,kinetic_energy,max_div_u,cfl");
  for (int k = 0; k < c->nforces; ++k) csv_name(f, "fx_", c->forces[k]), csv_name(f, "fy_", c->forces[k]);
  if (reference_scales(c, &U, &D))
    for (int k = 0; k < c->nforces; ++k) csv_name(f, "cd_", c->forces[k]), csv_name(f, "cl_", c->forces[k]);
  fprintf(f, "\n");
  fflush(f);
}

static void csv_row(FILE *f, const insdg_case *c, int step, double t, const insdg_ins_stats *st, const diagnostics *d)
{
  double U = 0, D = 0;
  fprintf(f, "%d,%.10g,%.10g,%d,%d,%d,%d,%.10e,%.6e,%.6e", step, t, c->dt, st->vel_iterations[0],
          st->vel_iterations[1], st->p_iterations, st->converged, d->kinetic_energy, d->max_div, d->cfl);
  for (int k = 0; k < c->nforces; ++k) fprintf(f, ",%.10e,%.10e", d->force[k][0], d->force[k][1]);
  if (reference_scales(c, &U, &D))
    for (int k = 0; k < c->nforces; ++k)
      fprintf(f, ",%.10e,%.10e", 2 * d->force[k][0] / (U * U * D), 2 * d->force[k][1] / (U * U * D));
  fprintf(f, "\n");
  fflush(f);   /* readable while the run goes on */
}

static void json_string(FILE *f, const char *s)
{
  fputc('"', f);
  for (const unsigned char *p = (const unsigned char *)s; *p; ++p) {
    if (*p == '"' || *p == '\\') fprintf(f, "\\%c", *p);
    else if (*p < 0x20) fprintf(f, "\\u%04x", *p);
    else fputc(*p, f);
  }
  fputc('"', f);
}

/* JSON has no NaN or infinity: null */
static void json_number(FILE *f, double x)
{
  if (isfinite(x)) fprintf(f, "%.17g", x);
  else fprintf(f, "null");
}

/* ============================================================ the run's state ======== */

enum { STAGE_SETUP, STAGE_STEP, STAGE_DIAGNOSTICS, STAGE_OUTPUT, NSTAGE };
static const char *const stage_name[NSTAGE] = {"setup", "step", "diagnostics", "output"};

typedef struct {
  const setup *s;
  int rank, size, workers, cuda_workers, pure_neumann;
  insdg_progress_mode progress_mode;
  int steps;                   /* taken */
  double t;
  int converged, finite, diverged, output_failed, files;
  long iterations[3];          /* totals over the steps: u, v, p */
  double stage[NSTAGE];
  double step_stage[INSDG_NSTAGES];   /* the step's time split (insdg_ins_stats.seconds) */
  double wall_start, loop_start, last_checkpoint;
  int checkpoints, interrupted;
  double checkpoint_seconds, restart_seconds;   /* writing the checkpoints; reading the restart one */
  int already_complete;            /* restarted from a checkpoint at or past the final step */
  double *rss_mib;                 /* rank 0: every rank's peak resident memory (MiB), at the end */
  double *setup_rss_mib;           /* rank 0: the same once the mesh and layout are built (the part every
                                      rank holds whatever the rank count: the whole mesh, its geometry) */
  double my_setup_rss;             /* this rank's, before the gather */
  l2_errors errors;
  insdg_runtime_profile profile;   /* the time loop's, on rank 0 (STARPU_PROFILING=1) */
  /* this rank's runtime counters (runtime.h) over the time loop, and per stage of a step */
  int steps0;                      /* the step the loop started from (after a restart) */
  insdg_runtime_counters loop_counters;
  long stage_tasks[INSDG_NSTAGES], stage_waits[INSDG_NSTAGES];
  long p_iteration_tasks;   /* of the pressure solves' iterations (the rest of the stage: per solve) */
} run_state;

/* SIGTERM and SIGUSR1 (what Slurm sends before a time limit): checkpoint and stop at the
   end of the current step. The flag is combined over the ranks every step. */
static volatile sig_atomic_t stop_signal = 0;
static void on_stop_signal(int sig) { stop_signal = sig; }

static void json_errors(FILE *f, const l2_errors *E, int has_exact)
{
  static const char *const name[NERR] = {"u", "v", "p"};
  if (!has_exact) {
    fprintf(f, "null");
    return;
  }
  fprintf(f, "{");
  for (int k = 0; k < NERR; ++k) {
    fprintf(f, "%s\"%s\": ", k ? ", " : "", name[k]);
    if (!E->have[k]) {
      fprintf(f, "null");
      continue;
    }
    fprintf(f, "{\"absolute\": "), json_number(f, E->absolute[k]);
    fprintf(f, ", \"relative\": "), json_number(f, E->relative[k]), fprintf(f, "}");
  }
  fprintf(f, "}");
}

/* the solution itself failed: not finite, or diverged (the run stops, no checkpoint) */
static int solution_broke(const run_state *r) { return !r->finite || r->diverged; }

/* the case's final step reached (or passed, by a checkpoint of a longer case) */
static int reached_end(const run_state *r) { return r->steps >= r->s->nsteps; }

static const char *status_text(const run_state *r)
{
  return r->output_failed                     ? "output failed"
         : !r->finite                         ? "not finite"
         : r->diverged                        ? "diverged"
         : !r->converged                      ? "not converged"
         : r->interrupted && !reached_end(r)  ? "stopped"
                                              : "completed";
}

/* the exit status of each outcome (run.h, docs/user_guide.md "Exit status") */
static int exit_status(const run_state *r)
{
  return r->output_failed                     ? INSDG_EXIT_OUTPUT
         : solution_broke(r)                  ? INSDG_EXIT_DIVERGED
         : !r->converged                      ? INSDG_EXIT_NOT_CONVERGED
         : r->interrupted && !reached_end(r)  ? INSDG_EXIT_STOPPED
                                              : 0;
}

/* "runtime": StarPU's worker profiling of the time loop on rank 0, or null without
   STARPU_PROFILING=1. task_share: the fraction of the workers' time inside task functions
   (kernels, halo copies; on a GPU, launches and stream waits): the rest is StarPU's own
   work and idle time. */
static void json_profile(FILE *f, const insdg_runtime_profile *p)
{
  fprintf(f, ",\n  \"runtime\": ");
  if (!p->enabled) {
    fprintf(f, "null");
    return;
  }
  static const char *const kind[2] = {"cpu", "cuda"};
  fprintf(f, "{");
  for (int k = 0; k < 2; ++k) {
    fprintf(f, "%s\"%s\": {\"workers\": %d, \"tasks\": %ld, \"task_seconds\": ", k ? ", " : "", kind[k],
            p->workers[k], p->tasks[k]);
    json_number(f, p->task_seconds[k]);
    fprintf(f, ", \"worker_seconds\": "), json_number(f, p->total_seconds[k]);
    fprintf(f, ", \"sleeping_seconds\": "), json_number(f, p->sleeping_seconds[k]);
    fprintf(f, ", \"task_share\": ");
    json_number(f, p->total_seconds[k] > 0 ? p->task_seconds[k] / p->total_seconds[k] : NAN);
    fprintf(f, "}");
  }
  fprintf(f, "}");
}

/* "runtime_counters": what rank 0's runtime did per step of this process's time loop
   (runtime.h): tasks inserted, host waits, MPI messages sent, their bytes, MPI_Test
   calls, collectives, the workers' time waiting in them for neighbours; tasks and waits per stage; the pressure solve's tasks per PCG
   iteration and per block (the lean-step issue's measure) */
static void json_counters(FILE *f, const run_state *r)
{
  const insdg_runtime_counters *c = &r->loop_counters;
  const int n = r->steps - r->steps0;
  const double per = n > 0 ? 1.0 / n : NAN;
  fprintf(f, ",\n  \"runtime_counters\": {\"steps\": %d, \"tasks_per_step\": ", n);
  json_number(f, per * c->tasks);
  fprintf(f, ", \"waits_per_step\": "), json_number(f, per * c->waits);
  fprintf(f, ", \"mpi_messages_per_step\": "), json_number(f, per * c->messages);
  fprintf(f, ", \"mpi_bytes_per_step\": "), json_number(f, per * c->bytes);
  fprintf(f, ", \"mpi_tests_per_step\": "), json_number(f, per * c->tests);
  fprintf(f, ", \"mpi_collectives_per_step\": "), json_number(f, per * c->collectives);
  fprintf(f, ", \"mpi_wait_ms_per_step\": "), json_number(f, 1e3 * per * c->mpi_wait_seconds);
  for (int w = 0; w < 2; ++w) {
    const long *v = w ? r->stage_waits : r->stage_tasks;
    fprintf(f, ", \"stage_%s_per_step\": {", w ? "waits" : "tasks");
    for (int k = 0; k < INSDG_NSTAGES; ++k)
      fprintf(f, "%s\"%s\": ", k ? ", " : "", insdg_stage_names[k]), json_number(f, per * v[k]);
    fprintf(f, "}");
  }
  const double p_iterations = (double)r->iterations[2];   /* PCG iterations of the steps run here */
  int mine = 0;   /* this rank's blocks: it submits their tasks and its rank-level ones */
  for (int b = 0; b < r->s->L->B; ++b) mine += r->s->L->block_rank[b] == r->rank;
  fprintf(f, ", \"pressure_tasks_per_iteration_per_block\": ");
  json_number(f, p_iterations > 0 ? r->p_iteration_tasks / p_iterations / mine : NAN);
  fprintf(f, ", \"pressure_tasks_per_solve_per_block\": ");
  json_number(f, per * (double)(r->stage_tasks[INSDG_STAGE_PRESSURE] - r->p_iteration_tasks) / mine);
  fprintf(f, "}");
}

static void json_body(FILE *f, const run_state *r, double wall)
{
  const setup *s = r->s;
  const insdg_case *c = s->c;
  const long K = s->mesh->K, Np = s->ref->Np;
  const int n = r->steps > 0 ? r->steps : 1;
  fprintf(f, "{\n  \"case\": "), json_string(f, c->name);
  fprintf(f, ",\n  \"case_file\": "), json_string(f, c->path);
  fprintf(f, ",\n  \"mesh\": "), json_string(f, c->mesh);
  fprintf(f, ",\n  \"N\": %d,\n  \"K\": %ld,\n  \"dofs\": %ld,\n  \"ranks\": %d,\n  \"blocks\": %d,\n  \"workers\": %d",
          c->order, K, 3 * K * Np, r->size, s->L->B, r->workers);
  fprintf(f, ",\n  \"cuda_workers\": %d", r->cuda_workers);
  fprintf(f, ",\n  \"blocks_origin\": "), json_string(f, s->blocks_origin);
  fprintf(f, ",\n  \"workers_origin\": "), json_string(f, insdg_runtime_workers_origin());
  fprintf(f, ",\n  \"nu\": "), json_number(f, c->nu);
  fprintf(f, ",\n  \"dt\": "), json_number(f, c->dt);
  fprintf(f, ",\n  \"time_order\": %d,\n  \"substeps\": %d,\n  \"steps\": %d,\n  \"steps_planned\": %d", c->time_order,
          c->substeps, r->steps, s->nsteps);
  fprintf(f, ",\n  \"final_time\": "), json_number(f, c->final_time);
  fprintf(f, ",\n  \"time\": "), json_number(f, r->t);
  fprintf(f, ",\n  \"wall_seconds\": "), json_number(f, wall);
  fprintf(f, ",\n  \"seconds_per_step\": "), json_number(f, r->stage[STAGE_STEP] / n);
  fprintf(f, ",\n  \"stage_seconds\": {");
  for (int k = 0; k < NSTAGE; ++k) fprintf(f, "%s\"%s\": ", k ? ", " : "", stage_name[k]), json_number(f, r->stage[k]);
  fprintf(f, "},\n  \"step_seconds\": {");
  for (int k = 0; k < INSDG_NSTAGES; ++k)
    fprintf(f, "%s\"%s\": ", k ? ", " : "", insdg_stage_names[k]), json_number(f, r->step_stage[k]);
  fprintf(f, "},\n  \"mean_iterations\": {\"u\": "), json_number(f, (double)r->iterations[0] / n);
  fprintf(f, ", \"v\": "), json_number(f, (double)r->iterations[1] / n);
  fprintf(f, ", \"p\": "), json_number(f, (double)r->iterations[2] / n);
  fprintf(f, "},\n  \"errors\": "), json_errors(f, &r->errors, c->has_exact);
  json_profile(f, &r->profile);
  json_counters(f, r);
  double most = 0;   /* peak resident memory of each rank (getrusage), for scaling studies */
  fprintf(f, ",\n  \"max_rss_mib\": ");
  for (int i = 0; i < r->size; ++i) most = fmax(most, r->rss_mib[i]);
  json_number(f, most);
  fprintf(f, ",\n  \"rss_mib_per_rank\": [");
  for (int i = 0; i < r->size; ++i) fprintf(f, "%s", i ? ", " : ""), json_number(f, r->rss_mib[i]);
  fprintf(f, "]");
  fprintf(f, ",\n  \"setup_rss_mib_per_rank\": [");
  for (int i = 0; i < r->size; ++i) fprintf(f, "%s", i ? ", " : ""), json_number(f, r->setup_rss_mib[i]);
  fprintf(f, "]");
  fprintf(f, ",\n  \"checkpoints\": {\"written\": %d, \"write_seconds\": ", r->checkpoints);
  json_number(f, r->checkpoint_seconds);
  fprintf(f, ", \"restart_read_seconds\": "), json_number(f, r->restart_seconds);
  fprintf(f, "}");
  fprintf(f, ",\n  \"field_files\": %d,\n  \"converged\": %s,\n  \"status\": ", r->files,
          r->converged ? "true" : "false");
  json_string(f, status_text(r));
  fprintf(f, "\n}\n");
}

/* rank 0: summary.json, written under a temporary name and renamed when complete */
static int write_summary(const run_state *r, char *err, size_t errlen)
{
  char path[INSDG_CASE_PATH_LEN + 32], tmp[INSDG_CASE_PATH_LEN + 40];
  snprintf(path, sizeof path, "%s/summary.json", r->s->outdir);
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  FILE *f = fopen(tmp, "w");
  if (!f) {
    snprintf(err, errlen, "%.300s: cannot write: %s", tmp, strerror(errno));
    return 1;
  }
  json_body(f, r, MPI_Wtime() - r->wall_start);
  const int bad = ferror(f) | (fclose(f) != 0);
  if (bad || rename(tmp, path)) {
    snprintf(err, errlen, "%.300s: cannot write: %s", path, strerror(errno));
    remove(tmp);
    return 1;
  }
  return 0;
}

/* ================================================================= progress ======== */

static void format_duration(double s, char *out, size_t len)
{
  if (!isfinite(s) || s < 0) snprintf(out, len, "?");
  else if (s < 60) snprintf(out, len, "%.0fs", s);
  else if (s < 3600) snprintf(out, len, "%dm%02ds", (int)(s / 60), (int)fmod(s, 60));
  else snprintf(out, len, "%dh%02dm", (int)(s / 3600), (int)fmod(s / 60, 60));
}

typedef struct {
  int tty;
  int open;            /* the line is drawn and not yet ended by a newline */
  double last_print;
} progress;

/* end the progress line before another message, so that it does not overwrite it */
static void end_progress_line(progress *pg)
{
  if (pg->open) printf("\n"), fflush(stdout);
  pg->open = 0;
}

static int progress_on_terminal(insdg_progress_mode mode)
{
  if (mode != INSDG_PROGRESS_AUTO) return mode == INSDG_PROGRESS_LINE;
  return isatty(1) && !getenv("OMPI_COMM_WORLD_SIZE");
}

/* rank 0: rewrite the progress line on a terminal (at most 10 times a second), else a log
   line every 2% of the steps and at the last */
static void show_progress(progress *pg, const run_state *r, const insdg_ins_stats *st, const diagnostics *d)
{
  const int n = r->s->nsteps, every = n / 50 > 0 ? n / 50 : 1;
  const double now = MPI_Wtime(), eta = (now - r->loop_start) / r->steps * (n - r->steps);
  char eta_s[32];
  format_duration(eta, eta_s, sizeof eta_s);
  const double frac = r->t / r->s->c->final_time;
  if (pg->tty) {
    if (now - pg->last_print < 0.1 && r->steps < n) return;
    pg->last_print = now;
    printf("\rstep %d/%d  t/T %.3f  ETA %s  it u/v/p %d/%d/%d   ", r->steps, n, frac, eta_s, st->vel_iterations[0],
           st->vel_iterations[1], st->p_iterations);
    pg->open = 1;
    if (r->steps == n) end_progress_line(pg);
  } else if (r->steps % every == 0 || r->steps == n) {
    printf("step %d/%d  t %.6g  t/T %.3f  ETA %s  it u/v/p %d/%d/%d  KE %.6e  max|div u| %.3e  CFL %.3f\n", r->steps,
           n, r->t, frac, eta_s, st->vel_iterations[0], st->vel_iterations[1], st->p_iterations, d->kinetic_energy,
           d->max_div, d->cfl);
  }
  fflush(stdout);
}

/* ===================================================================== run ======== */

static void print_start(const run_state *r)
{
  const setup *s = r->s;
  const insdg_case *c = s->c;
  printf("insdg run: case %s (%s)\n", c->name, c->path);
  printf("  mesh %s: K = %d triangles, order N = %d (%d nodes per element), %ld degrees of freedom\n", c->mesh,
         s->mesh->K, c->order, s->ref->Np, 3L * s->mesh->K * s->ref->Np);
  printf("  %d rank(s), %d blocks (%s), %d CPU (from %s) and %d CUDA worker(s) per rank\n", r->size, s->L->B,
         s->blocks_origin, r->workers, insdg_runtime_workers_origin(), r->cuda_workers);
  printf("  nu = %g, dt = %g, %d steps to t = %g, BDF/EXT order %d, %d substeps\n", c->nu, c->dt, s->nsteps,
         c->final_time, c->time_order, c->substeps);
  printf("  pressure: %s; output: %s\n", r->pure_neumann ? "pure Neumann (mean fixed to zero)" : "Dirichlet on outflow",
         s->outdir);
  fflush(stdout);
}

static void print_end(const run_state *r)
{
  const insdg_case *c = r->s->c;
  printf("insdg run: %d steps to t = %g in %.3g s (%.3g s per step), status: %s\n", r->steps, r->t,
         MPI_Wtime() - r->wall_start, r->stage[STAGE_STEP] / (r->steps > 0 ? r->steps : 1), status_text(r));
  static const char *const name[NERR] = {"u", "v", "p"};
  for (int k = 0; k < NERR && c->has_exact; ++k)
    if (r->errors.have[k])
      printf("  L2 error of %s: %.6e (relative %.6e)\n", name[k], r->errors.absolute[k], r->errors.relative[k]);
  printf("  wrote %d field file(s), diagnostics.csv and summary.json in %s\n", r->files, r->s->outdir);
  fflush(stdout);
}

/* which solve failed, from the iteration counts (a solve that stops early converged) */
static void report_not_converged(const run_state *r, const insdg_ins_stats *st)
{
  const insdg_case *c = r->s->c;
  char what[256] = "";
  const int its[3] = {st->vel_iterations[0], st->vel_iterations[1], st->p_iterations};
  const int limit[3] = {c->velocity.max_iterations, c->velocity.max_iterations, c->pressure.max_iterations};
  static const char *const solve[3] = {"the velocity (u) solve ", "the velocity (v) solve ", "the pressure solve "};
  for (int k = 0; k < 3; ++k)
    if (its[k] >= limit[k]) strcat(what, *what ? "and " : ""), strcat(what, solve[k]);
  fprintf(stderr, "insdg: step %d: %sdid not converge (iterations u/v/p %d/%d/%d, limits %d/%d, tolerances %g/%g); "
                  "stopping after writing the fields and summary\n",
          r->steps, *what ? what : "a solve ", st->vel_iterations[0], st->vel_iterations[1], st->p_iterations,
          c->velocity.max_iterations, c->pressure.max_iterations, c->velocity.tolerance, c->pressure.tolerance);
}

typedef struct {
  insdg_tasks T;
  insdg_ins *ins;
  bnd_data *bd;
  observer *ob;
  signed char *bc_vel, *bc_p;
} solver;

/* [time] start = exact: U^{-1}, U^{-2} (BDF2 and the subcycling's Ubar need one level,
   a second-order pressure extrapolation two) */
enum { HISTORY_LEVELS = 2 };

static void solver_create(solver *sv, const setup *s, int pure_neumann)
{
  const insdg_case *c = s->c;
  const insdg_mesh *m = s->L->mesh;
  insdg_tasks_init(&sv->T, s->L, s->op);
  sv->bd = bnd_data_create(c, m);
  sv->bc_vel = insdg_malloc(3 * (size_t)m->K), sv->bc_p = insdg_malloc(3 * (size_t)m->K);
  boundary_codes(sv->bd, m, sv->bc_vel, sv->bc_p);
  const insdg_ins_opts o = {.nu = c->nu, .dt = c->dt, .S = c->time_order, .Ns = c->substeps, .bc_vel = sv->bc_vel,
                            .bc_p = sv->bc_p, .pure_neumann = pure_neumann, .boundary = boundary_callback,
                            .boundary_ctx = sv->bd, .vel_tol = c->velocity.tolerance, .p_tol = c->pressure.tolerance,
                            .vel_maxit = c->velocity.max_iterations, .p_maxit = c->pressure.max_iterations,
                            .velocity_at = velocity_at_callback,
                            .vel_precond = (int)c->velocity.preconditioner, .p_precond = (int)c->pressure.preconditioner,
                            .vel_projection = c->velocity.projection, .p_projection = c->pressure.projection,
                            .vel_minit = c->velocity.min_iterations, .p_minit = c->pressure.min_iterations,
                            .npmg_degrees = c->pressure.npmg_degrees, .pmg_degrees = c->pressure.pmg_degrees,
                            .history = c->start_exact ? HISTORY_LEVELS : 0};
  sv->ins = insdg_ins_create(&sv->T, s->mesh, &o);
  sv->ob = observer_create(&sv->T, c, sv->bc_vel, sv->bd);
  const size_t n = (size_t)m->K * m->ref->Np;
  double *u = new_array(n), *v = new_array(n), *p = new_array(n);
  insdg_expr_eval_many(c->initial_u, n, m->x, m->y, 0.0, u);
  insdg_expr_eval_many(c->initial_v, n, m->x, m->y, 0.0, v);
  insdg_expr_eval_many(c->initial_p, n, m->x, m->y, 0.0, p);
  insdg_ins_set_initial(sv->ins, u, v, p, 0.0);
  for (size_t i = 0; i < n; ++i) sv->ob->speed_scale = fmax(sv->ob->speed_scale, hypot(u[i], v[i]));
  for (int i = 1; c->start_exact && i <= HISTORY_LEVELS; ++i) {   /* [time] start = exact */
    const double t = -i * c->dt;
    insdg_expr_eval_many(c->exact_u, n, m->x, m->y, t, u);
    insdg_expr_eval_many(c->exact_v, n, m->x, m->y, t, v);
    if (c->exact_p) insdg_expr_eval_many(c->exact_p, n, m->x, m->y, t, p);   /* else the initial p */
    insdg_ins_set_history(sv->ins, i, u, v, p);
  }
  free(u), free(v), free(p);
}

static void solver_destroy(solver *sv)
{
  insdg_tasks_wait(&sv->T);
  observer_destroy(sv->ob);
  insdg_ins_destroy(sv->ins);
  bnd_data_destroy(sv->bd);
  free(sv->bc_vel), free(sv->bc_p);
  insdg_tasks_fini(&sv->T);
}

/* collective: the observed fields as fields_<step>.nc; rank 0 reports a failure */
static void output_fields(run_state *r, solver *sv, progress *pg)
{
  char err[INSDG_ERRMSG_LEN];
  const double t0 = MPI_Wtime();
  if (write_fields(sv->ob, r->s->outdir, r->steps, r->t, err, sizeof err)) {
    r->output_failed = 1;
    if (r->rank == 0) end_progress_line(pg), fprintf(stderr, "insdg: error: %s\n", err);
  } else {
    r->files++;
  }
  r->stage[STAGE_OUTPUT] += MPI_Wtime() - t0;
}

/* collective: the scheme's state as checkpoint_<step>.nc in the output directory */
static void write_checkpoint(run_state *r, solver *sv, progress *pg)
{
  const insdg_case *c = r->s->c;
  char path[INSDG_CASE_PATH_LEN + 64], err[INSDG_ERRMSG_LEN];
  snprintf(path, sizeof path, "%s/checkpoint_%06d.nc", r->s->outdir, r->steps);
  const insdg_checkpoint_info info = {c->order, r->s->L->mesh->K, c->time_order, c->substeps, c->dt};
  const double t0 = MPI_Wtime();
  if (insdg_checkpoint_write(path, &sv->T, sv->ins, &info, err, sizeof err)) {
    r->output_failed = 1;
    if (r->rank == 0) end_progress_line(pg), fprintf(stderr, "insdg: error: %s\n", err);
  } else {
    r->checkpoints++;
    if (r->rank == 0) end_progress_line(pg), printf("insdg run: checkpoint %s (step %d, t = %g)\n", path, r->steps, r->t);
  }
  r->last_checkpoint = MPI_Wtime();
  r->stage[STAGE_OUTPUT] += r->last_checkpoint - t0;
  r->checkpoint_seconds += r->last_checkpoint - t0;
}

/* every rank the same answer: a stop signal anywhere, or the checkpoint interval due */
static void checkpoint_decision(run_state *r, int *due, int *stop)
{
  const insdg_case *c = r->s->c;
  int local[2] = {stop_signal != 0, 0};
  if (c->checkpoint_interval_steps > 0 && r->steps % c->checkpoint_interval_steps == 0) local[1] = 1;
  if (r->rank == 0 && c->checkpoint_interval_seconds > 0 &&
      MPI_Wtime() - r->last_checkpoint >= c->checkpoint_interval_seconds)
    local[1] = 1;
  int global[2];
  MPI_Allreduce(local, global, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  *stop = global[0], *due = global[0] || global[1];
}

/* one step, its observation and row; returns 1 when the run must stop */
static int advance(run_state *r, solver *sv, progress *pg, double *next_output)
{
  const insdg_case *c = r->s->c;
  insdg_ins_stats st = {.converged = 1};
  double t0 = MPI_Wtime();
  const int failed = insdg_ins_step(sv->ins, &st);
  insdg_tasks_wait(&sv->T);   /* the step's last tasks count as the step */
  r->stage[STAGE_STEP] += MPI_Wtime() - t0;
  r->steps = insdg_ins_steps(sv->ins), r->t = insdg_ins_time(sv->ins);
  r->iterations[0] += st.vel_iterations[0], r->iterations[1] += st.vel_iterations[1];
  r->iterations[2] += st.p_iterations, r->p_iteration_tasks += st.p_iteration_tasks;
  for (int k = 0; k < INSDG_NSTAGES; ++k)
    r->step_stage[k] += st.seconds[k], r->stage_tasks[k] += st.tasks[k], r->stage_waits[k] += st.waits[k];
  r->converged &= !failed;

  t0 = MPI_Wtime();
  observe_fields(sv->ob, sv->ins, r->t);
  const diagnostics d = observe_diagnostics(sv->ob, c->dt);
  r->finite = isfinite(d.kinetic_energy);
  r->diverged = r->finite && d.speed_scale > 0 && d.max_speed > DIVERGED_FACTOR * d.speed_scale;
  if (r->rank == 0) csv_row(r->s->csv, c, r->steps, r->t, &st, &d);
  r->stage[STAGE_DIAGNOSTICS] += MPI_Wtime() - t0;
  if (r->rank == 0) show_progress(pg, r, &st, &d);
  if (r->rank == 0 && (failed || solution_broke(r))) end_progress_line(pg);
  if (failed && r->rank == 0) report_not_converged(r, &st);
  if (!r->finite && r->rank == 0)
    fprintf(stderr, "insdg: step %d: the solution is no longer finite (kinetic energy %g); stopping\n", r->steps,
            d.kinetic_energy);
  if (r->diverged && r->rank == 0)
    fprintf(stderr,
            "insdg: step %d: max |u| = %g, more than %g times the largest initial or boundary speed (%g): the run "
            "diverged (is dt too large?); stopping\n",
            r->steps, d.max_speed, DIVERGED_FACTOR, d.speed_scale);

  int checkpoint_due, stop;
  checkpoint_decision(r, &checkpoint_due, &stop);
  if (stop && r->rank == 0) end_progress_line(pg), printf("insdg run: signal received: checkpoint and stop\n");
  r->interrupted = stop;
  const int last = reached_end(r) || failed || solution_broke(r) || stop;
  const int due = c->output_interval > 0 && r->t >= *next_output - 1e-6 * c->dt;
  while (c->output_interval > 0 && *next_output <= r->t + 1e-6 * c->dt) *next_output += c->output_interval;
  if (last || due) output_fields(r, sv, pg);
  if (checkpoint_due && !failed && !solution_broke(r)) write_checkpoint(r, sv, pg);
  return last || r->output_failed;
}

static void time_loop(run_state *r, solver *sv)
{
  const insdg_case *c = r->s->c;
  progress pg = {r->rank == 0 && progress_on_terminal(r->progress_mode), 0, 0};
  double next_output = c->output_interval;
  while (c->output_interval > 0 && next_output <= r->t + 1e-6 * c->dt) next_output += c->output_interval;
  r->last_checkpoint = MPI_Wtime();
  signal(SIGTERM, on_stop_signal), signal(SIGUSR1, on_stop_signal);
  if (c->output_interval > 0 && r->steps == 0) {   /* the initial state, with its own observation */
    observe_fields(sv->ob, sv->ins, 0.0);
    output_fields(r, sv, &pg);
  }
  r->loop_start = MPI_Wtime();
  insdg_runtime_profile_reset();
  r->steps0 = r->steps;
  insdg_runtime_counters_get(&r->loop_counters);
  while (!r->output_failed && !advance(r, sv, &pg, &next_output)) {
  }
}

/* this process's peak resident memory so far (getrusage), MiB */
static double peak_rss_mib(void)
{
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss / 1024.0;   /* Linux: KiB */
}

static int finish(run_state *r, solver *sv)
{
  const insdg_case *c = r->s->c;
  insdg_runtime_profile_get(&r->profile);
  insdg_runtime_counters end;
  insdg_runtime_counters_get(&end);
  const insdg_runtime_counters *c0 = &r->loop_counters;
  r->loop_counters = (insdg_runtime_counters){end.tasks - c0->tasks, end.waits - c0->waits,
                                              end.messages - c0->messages, end.bytes - c0->bytes,
                                              end.tests - c0->tests, end.collectives - c0->collectives,
                                              end.mpi_wait_seconds - c0->mpi_wait_seconds};
  double t0 = MPI_Wtime();
  if (c->has_exact) r->errors = compute_errors(sv->ob, r->t, r->pure_neumann);
  r->stage[STAGE_DIAGNOSTICS] += MPI_Wtime() - t0;
  int status = exit_status(r);
  const double rss = peak_rss_mib();
  if (r->rank == 0) {
    r->rss_mib = insdg_malloc(sizeof(double) * (size_t)r->size);
    r->setup_rss_mib = insdg_malloc(sizeof(double) * (size_t)r->size);
  }
  MPI_Gather(&rss, 1, MPI_DOUBLE, r->rss_mib, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  MPI_Gather(&r->my_setup_rss, 1, MPI_DOUBLE, r->setup_rss_mib, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  char err[INSDG_ERRMSG_LEN];
  if (r->rank == 0) {
    if (write_summary(r, err, sizeof err)) fprintf(stderr, "insdg: error: %s\n", err), status = INSDG_EXIT_OUTPUT;
    print_end(r);
    free(r->rss_mib), free(r->setup_rss_mib);
  }
  return status;   /* rank 0 alone may see a summary it could not write: mpirun reports any rank's */
}

int insdg_run(int *argc, char ***argv, const insdg_run_opts *o)
{
  char err[INSDG_ERRMSG_LEN];
  if (insdg_runtime_init_mpi(argc, argv, err, sizeof err)) insdg_die_user(err);
  run_state r = {.rank = insdg_runtime_rank(), .size = insdg_runtime_size(), .wall_start = MPI_Wtime(),
                 .progress_mode = o->progress, .converged = 1, .finite = 1};
  setup s;
  int failed = setup_create(&s, o, err, sizeof err);
  if (!failed) {   /* StarPU, with no more CPU workers than the mesh can keep busy */
    const insdg_runtime_opts ro = {.max_ncpu = useful_workers(&s, r.size)};
    if (insdg_runtime_init_starpu(&ro, err, sizeof err)) insdg_die_user(err);
    failed = setup_layout(&s, o, r.rank, r.size, err, sizeof err);
    r.my_setup_rss = peak_rss_mib();
  }
  if (failed) {
    if (r.rank == 0) fprintf(stderr, "insdg: error: %s\n", err);
    setup_destroy(&s);
    insdg_runtime_shutdown();
    return INSDG_EXIT_USER;
  }
  r.s = &s, r.workers = insdg_runtime_workers(), r.cuda_workers = insdg_runtime_cuda_workers(), r.pure_neumann = !insdg_case_has_outflow(s.c);
  if (r.rank == 0) warn_unsupported(s.c), print_start(&r);
  if (r.rank == 0 && !s.csv_continue) csv_header(s.csv, s.c);
  solver sv;
  solver_create(&sv, &s, r.pure_neumann);
  if (o->restart) {   /* continue from a checkpoint: bitwise the run it interrupted */
    const insdg_case *c = s.c;
    const insdg_checkpoint_info info = {c->order, s.L->mesh->K, c->time_order, c->substeps, c->dt};
    const double t0 = MPI_Wtime();
    const int bad = insdg_checkpoint_read(o->restart, &sv.T, sv.ins, &info, err, sizeof err);
    r.restart_seconds = MPI_Wtime() - t0;
    if (bad) {
      if (r.rank == 0) fprintf(stderr, "insdg: error: --restart: %s\n", err);
      solver_destroy(&sv);
      setup_destroy(&s);
      insdg_runtime_shutdown();
      return INSDG_EXIT_USER;
    }
    r.steps = insdg_ins_steps(sv.ins), r.t = insdg_ins_time(sv.ins);
    if (r.rank == 0) printf("insdg run: restarted from %s at step %d, t = %g\n", o->restart, r.steps, r.t);
    if (r.rank == 0 && s.csv_continue) csv_continue(&s, r.steps);
  }
  r.stage[STAGE_SETUP] = MPI_Wtime() - r.wall_start;
  r.already_complete = reached_end(&r);
  if (r.already_complete) {   /* a requeued finished job: nothing to do, nothing rewritten but the summary */
    if (r.rank == 0)
      printf("insdg run: already complete: the checkpoint is at step %d (t = %g), the case ends at step %d; "
             "no step taken\n", r.steps, r.t, s.nsteps);
    observe_fields(sv.ob, sv.ins, r.t);   /* for the errors in the summary */
    r.steps0 = r.steps;
  } else {
    time_loop(&r, &sv);
  }
  const int status = finish(&r, &sv);
  solver_destroy(&sv);
  setup_destroy(&s);
  insdg_runtime_shutdown();
  return status;
}
