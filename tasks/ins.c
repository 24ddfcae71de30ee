/* ins.c -- one BDF/EXT splitting step as tasks (ins.h). insdg_ins_step reads as the
 * paper's four stages; history fields rotate by pointer, never by copy. */
#include "ins.h"

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "amg.h"
#include "assemble.h"
#include "case.h"
#include "error.h"
#include "ops_tasks.h"
#include "projection.h"
#include "starpu_gpu.h"

enum { MAX_S = 3 };

const char *const insdg_stage_names[INSDG_NSTAGES] = {"advection", "velocity", "pressure", "update"};

/* ends a stage: adds the host's time since *t0 to seconds[k]; with wait, after its tasks */
static void stage_end(insdg_ins *ins, insdg_ins_stats *st, int k, double *t0, int wait);

struct insdg_ins {
  insdg_tasks *T;
  insdg_ins_opts o;
  double t;
  int steps;
  /* history, index 0 = newest: U^{n-i}, N(U^{n-i}), P^{n-i} */
  insdg_dfield *u[MAX_S], *v[MAX_S], *nu_[MAX_S], *nv_[MAX_S], *p[MAX_S + 1];
  double t_hist[MAX_S + 1];
  insdg_runtime_counters mark;   /* the runtime's counters at the end of the last stage */
  insdg_pcg_work *vel_work[2], *p_work;   /* the solves' persistent PCG workspaces (made at first use) */
  insdg_projection *vel_proj[2], *p_proj;   /* solution projection of the solves (projection.h) */
  /* scratch (rhs_v, ux_v, uy_v: the second velocity solve's, which runs beside the first) */
  insdg_dfield *uhat, *vhat, *pstar, *gx, *gy, *rhs, *div, *dp, *ux, *uy, *tmp, *rhs_v, *ux_v, *uy_v;
  /* boundary data, host, renumbered mesh */
  double *gu, *gv, *gp, *gphi, *gpstar, *hu, *hv, *helm_u, *helm_v, *scratch[3];
  /* The kernels read these arrays ([K][3][Nfp]) on boundary faces only, and nothing writes
     their other entries (zero from calloc): the host's per-step work on them loops over the
     boundary face nodes bq[0..nbq) of this rank's elements only (0.2-0.3% of the entries on
     the bench's mesh). */
  size_t *bq, nbq;
  double *stage_g[20];   /* subcycling: boundary data of the 5 LSERK stages of a substep */
  double *up[4];         /* subcycling: displacements and values for velocity_at */
  /* the boundary data of the last two times asked for outside subcycling (boundary_at):
     a step needs those of t^{n+1} twice and those of t^n again */
  struct {
    double t;
    int valid;
    double *a[5];   /* gu, gv, gp, hu, hv */
  } bcache[2];
  int bcache_next;
  double g_time;   /* gu, gv, gp, hu, hv hold the data of g_time (boundary_fields) when g_holds */
  int g_holds;
  insdg_pmg *pmg;
  insdg_pmg *vel_pmg;               /* velocity pMG-AMG, made for the scheme's final lambda */
  insdg_sipdg_ctx helm[2], poisson;
  double *jacobi_p;                 /* pressure Jacobi: inverse diagonal [K][Np] */
  double *jacobi_u, jacobi_lambda;  /* velocity (block) Jacobi, for the lambda it was made for */
  insdg_dinv vel_dinv;
  double vel_ratio;                 /* insdg_sipdg_stiffness_mass_ratio at the scheme's lambda */
  struct full_amg *famg;
};

/* ------------------------------------------------------------------ preconditioners -- */

/* full AMG (comparison option, ins.h): the assembled degree-N matrix of the whole
   renumbered mesh and its AMG on every rank, applied to the gathered residual */
typedef struct full_amg {
  const insdg_layout *L;
  insdg_csr *A;
  insdg_amg *amg;
  double *orig, *r, *z;   /* [K][Np]: original order, renumbered residual, correction */
} full_amg;

static full_amg *full_amg_create(insdg_tasks *T, const signed char *bc)
{
  const insdg_mesh *m = T->L->mesh;
  const size_t n = (size_t)m->K * m->ref->Np;
  full_amg *f = insdg_calloc(1, sizeof *f);
  f->L = T->L;
  f->A = insdg_assemble_sipdg(m, T->op, bc, 0.0);
  f->amg = insdg_amg_setup(f->A, NULL);
  f->orig = insdg_malloc(sizeof(double) * n), f->r = insdg_malloc(sizeof(double) * n), f->z = insdg_malloc(sizeof(double) * n);
  return f;
}

static void full_amg_destroy(full_amg *f)
{
  if (!f) return;
  insdg_amg_destroy(f->amg), insdg_csr_destroy(f->A);
  free(f->orig), free(f->r), free(f->z), free(f);
}

static void full_amg_apply(void *ctx, insdg_dfield *in, insdg_dfield *out)
{
  full_amg *f = ctx;
  const int K = f->L->mesh->K, Np = f->L->mesh->ref->Np;
  insdg_dfield_gather(in, f->orig);   /* every rank, original element order */
  for (int e = 0; e < K; ++e) memcpy(f->r + (size_t)e * Np, f->orig + (size_t)f->L->old_elem[e] * Np, sizeof(double) * Np);
  insdg_amg_apply(f->amg, f->r, f->z);
  insdg_dfield_set(out, f->z);
}

/* BDF/EXT coefficients (Karniadakis et al. 1991), gamma, beta_i, alpha_i */
static void bdf_ext(int S, double *gamma, double beta[MAX_S], double alpha[MAX_S])
{
  static const double g[4] = {0, 1.0, 1.5, 11.0 / 6.0};
  static const double b[4][MAX_S] = {{0}, {1, 0, 0}, {2, -0.5, 0}, {3, -1.5, 1.0 / 3.0}};
  static const double a[4][MAX_S] = {{0}, {1, 0, 0}, {2, -1, 0}, {3, -3, 1}};
  *gamma = g[S];
  memcpy(beta, b[S], sizeof b[S]);
  memcpy(alpha, a[S], sizeof a[S]);
}

/* LSERK4 (Carpenter & Kennedy 1994, five stages) */
static const double rk4a[5] = {0.0, -567301805773.0 / 1357537059087.0, -2404267990393.0 / 2016746695238.0,
                               -3550918686646.0 / 2091501179385.0, -1275806237668.0 / 842570457699.0};
static const double rk4b[5] = {1432997174477.0 / 9575080441755.0, 5161836677717.0 / 13612068292357.0,
                               1720146321549.0 / 2090206949498.0, 3134564353537.0 / 4481467310338.0,
                               2277821191437.0 / 14882151754819.0};
static const double rk4c[5] = {0.0, 1432997174477.0 / 9575080441755.0, 2526269341429.0 / 6820363962896.0,
                               2006345519317.0 / 3224310063776.0, 2802321613138.0 / 2924317926251.0};

/* polynomial extrapolation of order k from equally spaced values: P* = sum c_i P^{n-i} */
static void extrapolation(int k, double c[MAX_S + 1])
{
  static const double e[4][MAX_S + 1] = {{0}, {1, 0, 0, 0}, {2, -1, 0, 0}, {3, -3, 1, 0}};
  memcpy(c, e[k], sizeof e[k]);
}

static insdg_dfield *field(insdg_tasks *T) { return insdg_dfield_create(T); }

insdg_ins *insdg_ins_create(insdg_tasks *T, const insdg_mesh *mesh, const insdg_ins_opts *opts)
{
  INSDG_CHECK(opts->S >= 1 && opts->S <= MAX_S && opts->dt > 0 && opts->nu > 0);
  insdg_ins *ins = insdg_calloc(1, sizeof *ins);
  ins->T = T, ins->o = *opts;
  if (ins->o.pressure_extrapolation <= 0) ins->o.pressure_extrapolation = 1;   /* the paper's first-order pressure increment */
  INSDG_CHECK(ins->o.pressure_extrapolation <= MAX_S);
  INSDG_CHECK(ins->o.history >= 0 && ins->o.history < MAX_S);
  for (int i = 0; i < MAX_S; ++i) ins->u[i] = field(T), ins->v[i] = field(T), ins->nu_[i] = field(T), ins->nv_[i] = field(T);
  for (int i = 0; i <= MAX_S; ++i) ins->p[i] = field(T);
  insdg_dfield **scratch[] = {&ins->uhat, &ins->vhat, &ins->pstar, &ins->gx, &ins->gy, &ins->rhs, &ins->div,
                              &ins->dp,   &ins->ux,   &ins->uy,    &ins->tmp, &ins->rhs_v, &ins->ux_v, &ins->uy_v};
  for (size_t k = 0; k < sizeof scratch / sizeof scratch[0]; ++k) *scratch[k] = field(T);
  const insdg_mesh *m = T->L->mesh;
  const size_t nf = (size_t)m->K * 3 * m->ref->Nfp;
  ins->gu = insdg_calloc(nf, sizeof(double)), ins->gv = insdg_calloc(nf, sizeof(double));
  ins->gp = insdg_calloc(nf, sizeof(double)), ins->gphi = insdg_calloc(nf, sizeof(double));
  ins->gpstar = insdg_calloc(nf, sizeof(double));
  ins->hu = insdg_calloc(nf, sizeof(double)), ins->hv = insdg_calloc(nf, sizeof(double));
  ins->helm_u = insdg_calloc(nf, sizeof(double)), ins->helm_v = insdg_calloc(nf, sizeof(double));
  for (int k = 0; k < 3; ++k) ins->scratch[k] = insdg_calloc(nf, sizeof(double));
  /* this rank's faces: its tasks read no other's data, and the callbacks fill no other's */
  const size_t q0 = (size_t)T->L->block_start[T->b_begin] * 3 * m->ref->Nfp;
  const size_t q1 = (size_t)T->L->block_start[T->b_end] * 3 * m->ref->Nfp;
  for (int pass = 0; pass < 2; ++pass) {   /* count, then list */
    if (pass) ins->bq = insdg_malloc(sizeof(size_t) * (ins->nbq > 0 ? ins->nbq : 1)), ins->nbq = 0;
    for (size_t q = q0; q < q1; ++q) {
      const size_t face = q / (size_t)m->ref->Nfp;
      if (opts->bc_vel[face] != INSDG_BC_INTERIOR || opts->bc_p[face] != INSDG_BC_INTERIOR) {
        if (pass) ins->bq[ins->nbq] = q;
        ++ins->nbq;
      }
    }
  }
  for (int c = 0; c < 2; ++c)
    for (int k = 0; k < 5; ++k) ins->bcache[c].a[k] = insdg_calloc(nf, sizeof(double));
  for (int k = 0; k < 20; ++k) ins->stage_g[k] = opts->Ns > 0 ? insdg_calloc(nf, sizeof(double)) : NULL;
  for (int k = 0; k < 4; ++k) ins->up[k] = opts->Ns > 0 && opts->velocity_at ? insdg_calloc(nf, sizeof(double)) : NULL;
  ins->vel_proj[0] = insdg_projection_create(T, opts->vel_projection);
  ins->vel_proj[1] = insdg_projection_create(T, opts->vel_projection);
  ins->p_proj = insdg_projection_create(T, opts->p_projection);
  switch (opts->p_precond) {
  case INSDG_PRECOND_DEFAULT: case INSDG_PRECOND_PMG_AMG: {
    const insdg_pmg_opts po = {.ndegrees = opts->npmg_degrees, .degrees = opts->pmg_degrees,
                               .cheb_degree = opts->pmg_cheb_degree,
                               .smoother = opts->pmg_point_jacobi ? INSDG_PMG_POINT_JACOBI : INSDG_PMG_BLOCK_JACOBI, .coarse = opts->pmg_coarse};
    ins->pmg = insdg_pmg_create(T, mesh, opts->bc_p, 0.0, &po);
    break;
  }
  case INSDG_PRECOND_JACOBI: ins->jacobi_p = insdg_sipdg_inverse_diagonal(T, opts->bc_p, 0.0); break;
  case INSDG_PRECOND_FULL_AMG: ins->famg = full_amg_create(T, opts->bc_p); break;
  case INSDG_PRECOND_NONE: break;
  default: INSDG_CHECK(!"a pressure preconditioner");
  }
  INSDG_CHECK(opts->vel_precond == INSDG_PRECOND_DEFAULT || opts->vel_precond == INSDG_PRECOND_NONE ||
              opts->vel_precond == INSDG_PRECOND_JACOBI || opts->vel_precond == INSDG_PRECOND_INVERSE_MASS ||
              opts->vel_precond == INSDG_PRECOND_BLOCK_JACOBI || opts->vel_precond == INSDG_PRECOND_PMG_AMG);
  ins->poisson = (insdg_sipdg_ctx){opts->bc_p, 0.0, ins->ux, ins->uy};
  /* the velocity preconditioner by default (docs/solvers.md, "Velocity preconditioner"):
     the inverse mass matrix is exact for lambda M and blind to the stiffness S; where S
     outweighs lambda M (the largest ratio of their diagonals at the scheme's lambda) the
     element-block Jacobi of lambda M + S, and where it outweighs it so far that block
     Jacobi's iterations grow past ~20, the pMG-AMG V-cycle of lambda M + S */
  double gamma, beta[MAX_S], alpha[MAX_S];
  bdf_ext(opts->S, &gamma, beta, alpha);
  const double vel_lambda = gamma / (opts->nu * opts->dt);
  ins->vel_ratio = insdg_sipdg_stiffness_mass_ratio(T, opts->bc_vel, vel_lambda);
  if (ins->o.vel_precond == INSDG_PRECOND_DEFAULT)
    ins->o.vel_precond = insdg_ins_velocity_default(ins->vel_ratio);
  if (ins->o.vel_precond == INSDG_PRECOND_PMG_AMG) {
    /* one hierarchy for the final lambda: the start-up steps' smaller gamma0 makes a
       slightly different operator, which a preconditioner need not match exactly */
    const insdg_pmg_opts po = {.cheb_degree = INSDG_VEL_PMG_CHEBYSHEV};
    ins->vel_pmg = insdg_pmg_create(T, mesh, opts->bc_vel, vel_lambda, &po);
  }
  return ins;
}

void insdg_ins_destroy(insdg_ins *ins)
{
  if (!ins) return;
#ifdef INSDG_STARPU_GPU
  insdg_starpu_gpu_invalidate();   /* device copies of the arrays freed below */
#endif
  for (int i = 0; i < MAX_S; ++i)
    insdg_dfield_destroy(ins->u[i]), insdg_dfield_destroy(ins->v[i]), insdg_dfield_destroy(ins->nu_[i]),
        insdg_dfield_destroy(ins->nv_[i]);
  for (int i = 0; i <= MAX_S; ++i) insdg_dfield_destroy(ins->p[i]);
  insdg_pcg_work_destroy(ins->vel_work[0]), insdg_pcg_work_destroy(ins->vel_work[1]);
  insdg_pcg_work_destroy(ins->p_work);
  insdg_projection_destroy(ins->vel_proj[0]), insdg_projection_destroy(ins->vel_proj[1]);
  insdg_projection_destroy(ins->p_proj);
  insdg_dfield *scratch[] = {ins->uhat, ins->vhat, ins->pstar, ins->gx, ins->gy, ins->rhs, ins->div,
                             ins->dp,   ins->ux,   ins->uy,    ins->tmp, ins->rhs_v, ins->ux_v, ins->uy_v};
  for (size_t k = 0; k < sizeof scratch / sizeof scratch[0]; ++k) insdg_dfield_destroy(scratch[k]);
  insdg_pmg_destroy(ins->pmg), insdg_pmg_destroy(ins->vel_pmg);
  full_amg_destroy(ins->famg);
  free(ins->jacobi_p), free(ins->jacobi_u);
  free(ins->gu), free(ins->gv), free(ins->gp), free(ins->gphi), free(ins->gpstar);
  free(ins->hu), free(ins->hv), free(ins->helm_u), free(ins->helm_v);
  for (int k = 0; k < 3; ++k) free(ins->scratch[k]);
  free(ins->bq);
  for (int c = 0; c < 2; ++c)
    for (int k = 0; k < 5; ++k) free(ins->bcache[c].a[k]);
  for (int k = 0; k < 20; ++k) free(ins->stage_g[k]);
  for (int k = 0; k < 4; ++k) free(ins->up[k]);
  free(ins);
}

enum { UBAR_POINTS = 2 };   /* Ubar: linear in time through the newest two velocities */

/* the levels of history behind the newest: the steps taken and those given before t0 */
static int levels(const insdg_ins *ins) { return ins->steps + ins->o.history; }

/* Lagrange weights at time tau of the nodes t_hist[0..n-1] */
static void lagrange(int n, const double *tn, double tau, double *w)
{
  for (int i = 0; i < n; ++i) {
    w[i] = 1.0;
    for (int j = 0; j < n; ++j)
      if (j != i) w[i] *= (tau - tn[j]) / (tn[i] - tn[j]);
  }
}

/* Stage 1 with subcycling: W advected from t^{n-S+1} to t^{n+1}, beta_i U^{n-i} added at
   t^{n-i}; the result in (uhat, vhat). Dirichlet data of W: (sum of the betas added) g. */
static void subcycle(insdg_ins *ins, int S, const double *beta)
{
  const insdg_ins_opts *o = &ins->o;
  const int Ns = o->Ns;
  const size_t *bq = ins->bq, nbq = ins->nbq;
  insdg_dfield *wu = ins->uhat, *wv = ins->vhat, *ru = ins->gx, *rv = ins->gy;
  insdg_dfield *ubar = ins->rhs, *vbar = ins->div, *nu = ins->nu_[0], *nv = ins->nv_[0];
  double *gub = ins->scratch[0], *gvb = ins->scratch[1], *gwu = ins->helm_u, *gwv = ins->helm_v, *unused = ins->scratch[2];
  /* Ubar: the line through U^n and U^{n-1} (a constant at the first step). The paper takes
     the polynomial of degree S through U^{n-i}, i = 0..S; for S = 2 its extrapolation over
     [t^n, t^{n+1}] (3U^n - 3U^{n-1} + U^{n-2} at the end) grows an element-scale mode on the
     square cylinder at dt = 0.05 that the line does not, and the line keeps the order
     (docs/numerics.md, "Subcycling: the advecting velocity") */
  const int npts = levels(ins) + 1 < UBAR_POINTS ? levels(ins) + 1 : UBAR_POINTS;
  for (int j = S - 1; j >= 0; --j) {   /* interval [t^{n-j}, t^{n-j+1}] */
    if (j == S - 1) insdg_task_axpby(beta[j], ins->u[j], 0.0, wu), insdg_task_axpby(beta[j], ins->v[j], 0.0, wv);
    else insdg_task_axpby(beta[j], ins->u[j], 1.0, wu), insdg_task_axpby(beta[j], ins->v[j], 1.0, wv);
    /* Dirichlet data of W: U^{n-i} advected from t^{n-i} carries the boundary values of
       its own time, g(t^{n-i}) (the field at the foot of a characteristic that enters
       through the boundary), so W's are sum_{i >= j} beta_i g(t^{n-i}) */
    insdg_tasks_wait(ins->T);
    ins->g_holds = 0;   /* hu, hv rewritten below */
    o->boundary(o->boundary_ctx, ins->t_hist[j], gub, gvb, unused, ins->hu, ins->hv);
    for (size_t i = 0; i < nbq; ++i) {
      const size_t q = bq[i];
      gwu[q] = (j == S - 1 ? 0.0 : gwu[q]) + beta[j] * gub[q], gwv[q] = (j == S - 1 ? 0.0 : gwv[q]) + beta[j] * gvb[q];
    }
    const double t0 = ins->t_hist[j], t1 = j > 0 ? ins->t_hist[j - 1] : ins->t + o->dt, dts = (t1 - t0) / Ns;
    insdg_task_axpby(0.0, wu, 0.0, ru), insdg_task_axpby(0.0, wv, 0.0, rv);
    for (int s = 0; s < Ns; ++s) {
      insdg_tasks_wait(ins->T);   /* the stage data arrays below are rewritten per substep */
      for (int st = 0; st < 5; ++st) {
        const double tau = t0 + (s + rk4c[st]) * dts;
        double w[MAX_S] = {0};
        lagrange(npts, ins->t_hist, tau, w);
        insdg_task_axpby(w[0], ins->u[0], 0.0, ubar), insdg_task_axpby(w[0], ins->v[0], 0.0, vbar);
        for (int i = 1; i < npts; ++i) insdg_task_axpby(w[i], ins->u[i], 1.0, ubar), insdg_task_axpby(w[i], ins->v[i], 1.0, vbar);
        o->boundary(o->boundary_ctx, tau, gub + 0, gvb + 0, unused, ins->hu, ins->hv);
        double *gb_u = ins->stage_g[10 + 2 * st], *gb_v = ins->stage_g[10 + 2 * st + 1];
        for (size_t i = 0; i < nbq; ++i) gb_u[bq[i]] = gub[bq[i]], gb_v[bq[i]] = gvb[bq[i]];
        double *gs_u = ins->stage_g[2 * st], *gs_v = ins->stage_g[2 * st + 1];
        if (o->velocity_at) {   /* sum_{i >= j} beta_i g(x - (tau - t^{n-i}) Ubar, t^{n-i}) */
          for (size_t k = 0; k < nbq; ++k) gs_u[bq[k]] = gs_v[bq[k]] = 0.0;
          for (int i = j; i < S; ++i) {
            const double si = tau - ins->t_hist[i];
            for (size_t k = 0; k < nbq; ++k) ins->up[0][bq[k]] = -si * gub[bq[k]], ins->up[1][bq[k]] = -si * gvb[bq[k]];
            o->velocity_at(o->boundary_ctx, ins->t_hist[i], ins->up[0], ins->up[1], ins->up[2], ins->up[3]);
            for (size_t k = 0; k < nbq; ++k) {
              const size_t q = bq[k];
              gs_u[q] += beta[i] * ins->up[2][q], gs_v[q] += beta[i] * ins->up[3][q];
            }
          }
        } else {
          for (size_t k = 0; k < nbq; ++k) gs_u[bq[k]] = gwu[bq[k]], gs_v[bq[k]] = gwv[bq[k]];
        }
        insdg_task_subcycle(o->bc_vel, gb_u, gb_v, gs_u, gs_v, ubar, vbar, wu, wv, nu, nv);
        insdg_task_axpby(-dts, nu, rk4a[st], ru), insdg_task_axpby(-dts, nv, rk4a[st], rv);
        insdg_task_axpby(rk4b[st], ru, 1.0, wu), insdg_task_axpby(rk4b[st], rv, 1.0, wv);
      }
    }
  }
}

/* The boundary data at time t (opts.boundary: gu, gv, gp, hu, hv), from a cache of the
   last two times asked for: the callback evaluates the case's expressions at every
   boundary face node, and a step would otherwise evaluate those of t^{n+1} twice and
   those of t^n again. The callback is a function of t alone, so a cached value is the
   same bits. The arrays stay valid until the second next time not in the cache. */
static double *const *boundary_at(insdg_ins *ins, double t)
{
  int c = 0;
  while (c < 2 && !(ins->bcache[c].valid && ins->bcache[c].t == t)) ++c;
  if (c == 2) {
    c = ins->bcache_next, ins->bcache_next ^= 1;
    double **a = ins->bcache[c].a;
    ins->o.boundary(ins->o.boundary_ctx, t, a[0], a[1], a[2], a[3], a[4]);
    ins->bcache[c].t = t, ins->bcache[c].valid = 1;
  }
  return ins->bcache[c].a;
}

/* The arrays the tasks read (gu, gv, gp, hu, hv) set to the data at time t; no copy when
   they hold it already (the newest velocity's advection at the end of a step asks for
   the t^{n+1} of the step's start). */
static void boundary_fields(insdg_ins *ins, double t)
{
  if (ins->g_holds && ins->g_time == t) return;
  double *const *a = boundary_at(ins, t);
  double *out[5] = {ins->gu, ins->gv, ins->gp, ins->hu, ins->hv};
  for (int k = 0; k < 5; ++k)
    for (size_t i = 0; i < ins->nbq; ++i) out[k][ins->bq[i]] = a[k][ins->bq[i]];
  ins->g_time = t, ins->g_holds = 1;
}

/* N(U) of the newest velocity, with the boundary data of its time */
static void advection_of_newest(insdg_ins *ins)
{
  if (ins->o.Ns > 0) return;   /* subcycling needs no N history */
  /* In a step the arrays already hold the data of t^{n+1} (stage 1), and tasks of the step
     may still read them: rewritten (another time), they wait for those readers first. */
  if (!(ins->g_holds && ins->g_time == ins->t)) insdg_tasks_wait(ins->T);
  boundary_fields(ins, ins->t);
  insdg_task_advection(ins->o.bc_vel, ins->gu, ins->gv, ins->u[0], ins->v[0], ins->nu_[0], ins->nv_[0]);
}

void insdg_ins_set_initial(insdg_ins *ins, const double *u, const double *v, const double *p, double t0)
{
  insdg_dfield_set(ins->u[0], u), insdg_dfield_set(ins->v[0], v), insdg_dfield_set(ins->p[0], p);
  ins->t = t0, ins->steps = 0;
  for (int i = 0; i <= MAX_S; ++i) ins->t_hist[i] = t0;
  advection_of_newest(ins);
}

void insdg_ins_set_history(insdg_ins *ins, int i, const double *u, const double *v, const double *p)
{
  INSDG_CHECK(i >= 1 && i <= ins->o.history && ins->steps == 0);
  insdg_tasks_wait(ins->T);   /* advection tasks of another level may still read gu, gv */
  insdg_dfield_set(ins->u[i], u), insdg_dfield_set(ins->v[i], v), insdg_dfield_set(ins->p[i], p);
  ins->t_hist[i] = ins->t - i * ins->o.dt;
  if (ins->o.Ns > 0) return;
  boundary_fields(ins, ins->t_hist[i]);
  insdg_task_advection(ins->o.bc_vel, ins->gu, ins->gv, ins->u[i], ins->v[i], ins->nu_[i], ins->nv_[i]);
  insdg_tasks_wait(ins->T);
}

/* Initial guesses of the solves (docs/solvers.md, "Initial guesses"): from the history the
   checkpoint holds, so a restarted run makes the same guesses as an uninterrupted one.
   Velocity component d: the extrapolation 2 U^n - U^{n-1} of the last two steps (U^n at
   the first step). */
static void initial_velocity_guess(insdg_ins *ins, int d, insdg_dfield *x)
{
  insdg_dfield *const *u = d ? ins->v : ins->u;
  if (levels(ins) < 1) {
    insdg_task_copy(u[0], x);
    return;
  }
  insdg_task_lincomb(2, (const double[]){2.0, -1.0}, (insdg_dfield *[]){u[0], u[1]}, x);
}

/* Pressure increment: the last step's, dP^n = P^n - P*^n, with P*^n the extrapolation
   that step made (its order: the levels it had); zero at the first step. */
static void initial_increment_guess(insdg_ins *ins, insdg_dfield *dp)
{
  const int k = levels(ins) < ins->o.pressure_extrapolation ? levels(ins) : ins->o.pressure_extrapolation;
  if (k < 1) {
    insdg_task_axpby(0.0, ins->p[0], 0.0, dp);
    return;
  }
  double c[MAX_S + 1], a[MAX_S + 2] = {1.0};
  insdg_dfield *x[MAX_S + 2] = {ins->p[0]};
  extrapolation(k, c);
  for (int i = 0; i < k; ++i) a[i + 1] = -c[i], x[i + 1] = ins->p[i + 1];
  insdg_task_lincomb(k + 1, a, x, dp);
}

static void rotate(insdg_dfield **hist, int n)
{
  insdg_dfield *oldest = hist[n - 1];
  memmove(hist + 1, hist, sizeof(insdg_dfield *) * (size_t)(n - 1));
  hist[0] = oldest;
}

/* The end of stage k of a step: its host time (from the last stage's end) and its tasks and
   waits; with wait, after all its tasks. Inside a step the stages wait for data, not for
   each other (tasks/README.md, "Host waits"): the next stage's tasks are queued while this
   one's last tasks run, and a stage's time is the host's, its convergence tests included.
   The step waits at its end (its last stage), before the host reads its fields or rewrites
   the boundary-data arrays for the next step. */
static void stage_end(insdg_ins *ins, insdg_ins_stats *st, int k, double *t0, int wait)
{
  if (wait) insdg_tasks_wait(ins->T);
  const double t1 = MPI_Wtime();
  st->seconds[k] += t1 - *t0;
  *t0 = t1;
  insdg_runtime_counters c;
  insdg_runtime_counters_get(&c);
  st->tasks[k] += c.tasks - ins->mark.tasks, st->waits[k] += c.waits - ins->mark.waits;
  ins->mark = c;
}

/* solve A x = rhs for both velocity components at once (insdg_pcg_many; x holds U^n as
   the initial guess) */
static int helmholtz(insdg_ins *ins, insdg_dfield *rhs[2], insdg_dfield *x[2], int iters[2])
{
  insdg_linop A[2] = {{insdg_sipdg_apply, &ins->helm[0]}, {insdg_sipdg_apply, &ins->helm[1]}};
  insdg_linop P = {insdg_inverse_mass_apply, NULL};
  const double lambda = ins->helm[0].lambda;
  const int block = ins->o.vel_precond == INSDG_PRECOND_BLOCK_JACOBI;
  if (ins->o.vel_precond == INSDG_PRECOND_JACOBI || block) {
    if (!ins->jacobi_u || ins->jacobi_lambda != lambda) {   /* lambda changes during start-up */
#ifdef INSDG_STARPU_GPU
      insdg_starpu_gpu_invalidate();   /* the new diagonal may get the old one's address */
#endif
      free(ins->jacobi_u);
      ins->jacobi_u = block ? insdg_sipdg_inverse_blocks(ins->T, ins->o.bc_vel, lambda)
                            : insdg_sipdg_inverse_diagonal(ins->T, ins->o.bc_vel, lambda);
      ins->jacobi_lambda = lambda;
      ins->vel_dinv = (insdg_dinv){ins->jacobi_u, block};
    }
    P = (insdg_linop){insdg_dinv_apply, &ins->vel_dinv};
  }
  const int flexible = ins->vel_pmg != NULL;   /* the AMG K-cycle: flexible PCG */
  if (flexible) P = (insdg_linop){insdg_pmg_apply, ins->vel_pmg};
  insdg_pcg_opts o[2];
  const insdg_linop *prec[2];
  for (int d = 0; d < 2; ++d) {
    if (!ins->vel_work[d]) ins->vel_work[d] = insdg_pcg_work_create(ins->T, flexible, 0);
    o[d] = (insdg_pcg_opts){.work = ins->vel_work[d], .rtol = ins->o.vel_tol, .maxit = ins->o.vel_maxit,
                            .minit = ins->o.vel_minit, .flexible = flexible};
    prec[d] = ins->o.vel_precond == INSDG_PRECOND_NONE ? NULL : &P;
  }
  insdg_pcg_result r[2];
  insdg_pcg_many(ins->T, 2, A, prec, rhs, x, o, r);
  for (int d = 0; d < 2; ++d) insdg_projection_add(ins->vel_proj[d], &A[d], x[d]);
  iters[0] = r[0].iterations, iters[1] = r[1].iterations;
  return r[0].converged && r[1].converged;
}

/* The host's boundary data of a step: the pressure data extrapolated like P* (gpstar =
   sum c_i p_D(t^{n-i})), the data at t^{n+1} (gu, gv, gp, hu, hv), and per face what each
   operator reads there: dP's Dirichlet data gphi (P* gets sigma p_D, dP the rest), the
   Helmholtz solves' helm_u, helm_v (value or normal derivative). */
static void step_boundary_data(insdg_ins *ins, int k, const double *c, double t1)
{
  const insdg_ins_opts *o = &ins->o;
  const int Nfp = ins->T->L->mesh->ref->Nfp;
  const size_t *bq = ins->bq, nbq = ins->nbq;
  double *gpstar = ins->gpstar;
  for (size_t i = 0; i < nbq; ++i) gpstar[bq[i]] = 0;
  for (int i = 0; i < k; ++i) {
    const double *gp_i = boundary_at(ins, ins->t_hist[i])[2];
    for (size_t j = 0; j < nbq; ++j) gpstar[bq[j]] += c[i] * gp_i[bq[j]];
  }
  boundary_fields(ins, t1);
  for (size_t i = 0; i < nbq; ++i) {
    const size_t q = bq[i];
    const size_t face = q / (size_t)Nfp;
    const int p_dirichlet = o->bc_p[face] == INSDG_BC_DIRICHLET, v_dirichlet = o->bc_vel[face] == INSDG_BC_DIRICHLET;
    ins->gphi[q] = p_dirichlet ? ins->gp[q] - gpstar[q] : 0.0;
    ins->helm_u[q] = v_dirichlet ? ins->gu[q] : ins->hu[q];
    ins->helm_v[q] = v_dirichlet ? ins->gv[q] : ins->hv[q];
  }
}

int insdg_ins_step(insdg_ins *ins, insdg_ins_stats *st)
{
  const insdg_ins_opts *o = &ins->o;
  const int S = levels(ins) + 1 < o->S ? levels(ins) + 1 : o->S;   /* lower-order start-up */
  const int k = levels(ins) + 1 < o->pressure_extrapolation ? levels(ins) + 1 : o->pressure_extrapolation;
  double gamma, beta[MAX_S], alpha[MAX_S], c[MAX_S + 1];
  bdf_ext(S, &gamma, beta, alpha);
  extrapolation(k, c);
  const double dt = o->dt, t1 = ins->t + dt, lambda = gamma / (o->nu * dt);
  /* Tasks read the boundary-data arrays from host memory when they run: let the last
     step's tasks finish before this step rewrites them. */
  insdg_tasks_wait(ins->T);
  for (int k = 0; k < INSDG_NSTAGES; ++k) st->seconds[k] = 0, st->tasks[k] = 0, st->waits[k] = 0;
  double clock = MPI_Wtime();
  insdg_runtime_counters_get(&ins->mark);

  /* 1. Uhat = sum beta_i U^{n-i} - dt sum alpha_i N(U^{n-i})                (INS_TD_3_1)
        or, subcycled, sum beta_i Utilde^{n-i}                                  (§2.3) */
  if (o->Ns > 0) {
    subcycle(ins, S, beta);
  } else {
    /* one task per block and component: the axpbys beta_0 U^n, + beta_i U^{n-i}, - dt alpha_i N^{n-i} */
    double a[2 * MAX_S];
    insdg_dfield *xu[2 * MAX_S], *xv[2 * MAX_S];
    for (int i = 0; i < S; ++i) a[i] = beta[i], xu[i] = ins->u[i], xv[i] = ins->v[i];
    for (int i = 0; i < S; ++i) a[S + i] = -dt * alpha[i], xu[S + i] = ins->nu_[i], xv[S + i] = ins->nv_[i];
    insdg_task_lincomb(2 * S, a, xu, ins->uhat), insdg_task_lincomb(2 * S, a, xv, ins->vhat);
  }

  /* the host computes the step's boundary data while the workers run stage 1 (EXT: vector
     updates of the history, which read no host array); subcycling uses the same arrays */
  if (o->Ns == 0) step_boundary_data(ins, k, c, t1);
  /* subcycled, the step's boundary data are written below, into arrays the substeps'
     tasks read (helm_u, helm_v): those wait */
  stage_end(ins, st, INSDG_STAGE_ADVECTION, &clock, o->Ns > 0);
  if (o->Ns > 0) step_boundary_data(ins, k, c, t1);

  /* P* = sigma P^n (its boundary data: gpstar) */
  insdg_task_lincomb(k, c, ins->p, ins->pstar);
  const double *gpstar = ins->gpstar;

  /* 2. velocity Helmholtz: A Uhh = J M (Uhat/(nu dt) - G P* / nu) - A_g(0)      (INS_TD_3_2) */
  insdg_task_gradient(o->bc_p, gpstar, ins->pstar, ins->gx, ins->gy);
  ins->helm[0] = (insdg_sipdg_ctx){o->bc_vel, lambda, ins->ux, ins->uy};
  ins->helm[1] = (insdg_sipdg_ctx){o->bc_vel, lambda, ins->ux_v, ins->uy_v};
  insdg_dfield *comp[2][4] = {{ins->uhat, ins->gx, ins->u[MAX_S - 1], ins->u[0]}, {ins->vhat, ins->gy, ins->v[MAX_S - 1], ins->v[0]}};
  insdg_dfield *rhs[2] = {ins->rhs, ins->rhs_v}, *xs[2] = {comp[0][2], comp[1][2]};
  const double *gdata[2] = {ins->helm_u, ins->helm_v};
  for (int d = 0; d < 2; ++d) {
    insdg_dfield *hat = comp[d][0], *grad = comp[d][1], *x = comp[d][2];
    insdg_task_axpby(1.0 / (o->nu * dt), hat, -1.0 / o->nu, grad);   /* grad <- rhs (nodal) */
    insdg_task_mass(1.0, grad, rhs[d]);
    insdg_task_axpby(0.0, hat, 0.0, ins->tmp);                       /* zero */
    insdg_task_sipdg_data(o->bc_vel, gdata[d], lambda, ins->tmp, ins->helm[d].ux, ins->helm[d].uy, ins->div);
    insdg_task_axpby(-1.0, ins->div, 1.0, rhs[d]);
    if (!insdg_projection_guess(ins->vel_proj[d], lambda, rhs[d], x)) initial_velocity_guess(ins, d, x);
  }
  int ok = helmholtz(ins, rhs, xs, st->vel_iterations);
  insdg_dfield *uhh = ins->u[MAX_S - 1], *vhh = ins->v[MAX_S - 1];   /* the oldest slots hold Uhh */
  stage_end(ins, st, INSDG_STAGE_VELOCITY, &clock, 0);

  /* 3. pressure increment: A_0 dP = J M (-(gamma/dt) D Uhh) - A_gphi(0)      (INS_TD_3_3) */
  insdg_task_divergence(o->bc_vel, ins->gu, ins->gv, uhh, vhh, ins->div);
  insdg_task_mass(-gamma / dt, ins->div, ins->rhs);
  insdg_task_axpby(0.0, ins->div, 0.0, ins->tmp);
  insdg_task_sipdg_data(o->bc_p, ins->gphi, 0.0, ins->tmp, ins->ux, ins->uy, ins->div);
  insdg_task_axpby(-1.0, ins->div, 1.0, ins->rhs);
  insdg_linop A0 = {insdg_sipdg_apply, &ins->poisson};
  if (!insdg_projection_guess(ins->p_proj, 0.0, ins->rhs, ins->dp)) initial_increment_guess(ins, ins->dp);
  const insdg_linop P = ins->pmg ? (insdg_linop){insdg_pmg_apply, ins->pmg}
                      : ins->famg ? (insdg_linop){full_amg_apply, ins->famg} : (insdg_linop){insdg_jacobi_apply, ins->jacobi_p};
  const int nonlinear = ins->pmg || ins->famg;   /* K-cycles: flexible PCG */
  if (!ins->p_work) ins->p_work = insdg_pcg_work_create(ins->T, nonlinear, o->pure_neumann);
  const insdg_pcg_opts po = {.work = ins->p_work, .rtol = o->p_tol, .maxit = o->p_maxit, .minit = o->p_minit, .flexible = nonlinear,
                             .null_space = o->pure_neumann};
  const insdg_pcg_result pr = insdg_pcg(ins->T, A0, ins->pmg || ins->famg || ins->jacobi_p ? &P : NULL, ins->rhs, ins->dp, &po);
  insdg_projection_add(ins->p_proj, &A0, ins->dp);
  st->p_iterations = pr.iterations, st->p_iteration_tasks = pr.iteration_tasks;
  ok &= pr.converged;
  stage_end(ins, st, INSDG_STAGE_PRESSURE, &clock, 0);

  /* 4. U^{n+1} = Uhh - (dt/gamma) G dP;  P^{n+1} = P* + dP                     (INS_TD_3_4) */
  insdg_task_gradient(o->bc_p, ins->gphi, ins->dp, ins->gx, ins->gy);
  insdg_task_axpby(-dt / gamma, ins->gx, 1.0, uhh), insdg_task_axpby(-dt / gamma, ins->gy, 1.0, vhh);
  rotate(ins->u, MAX_S), rotate(ins->v, MAX_S), rotate(ins->nu_, MAX_S), rotate(ins->nv_, MAX_S);
  rotate(ins->p, MAX_S + 1);
  insdg_task_lincomb(2, (const double[]){1.0, 1.0}, (insdg_dfield *[]){ins->pstar, ins->dp}, ins->p[0]);
  if (o->pure_neumann) insdg_pcg_fix_mean(ins->T, ins->p[0]);
  memmove(ins->t_hist + 1, ins->t_hist, sizeof(double) * MAX_S);
  ins->t = t1, ins->t_hist[0] = t1, ins->steps++;
  stage_end(ins, st, INSDG_STAGE_UPDATE, &clock, 0);
  advection_of_newest(ins);
  stage_end(ins, st, INSDG_STAGE_ADVECTION, &clock, 1);
  st->converged = ok;
  return !ok;
}

int insdg_ins_state(insdg_ins *ins, insdg_dfield **fields, const char **names)
{
  static const char *un[MAX_S] = {"u0", "u1", "u2"}, *vn[MAX_S] = {"v0", "v1", "v2"};
  static const char *nun[MAX_S] = {"Nu0", "Nu1", "Nu2"}, *nvn[MAX_S] = {"Nv0", "Nv1", "Nv2"};
  static const char *pn[MAX_S + 1] = {"p0", "p1", "p2", "p3"};
  int n = 0;
  for (int i = 0; i < MAX_S; ++i) fields[n] = ins->u[i], names[n++] = un[i], fields[n] = ins->v[i], names[n++] = vn[i];
  if (ins->o.Ns == 0)   /* the EXT history of N(U) */
    for (int i = 0; i < MAX_S; ++i) fields[n] = ins->nu_[i], names[n++] = nun[i], fields[n] = ins->nv_[i], names[n++] = nvn[i];
  for (int i = 0; i <= MAX_S; ++i) fields[n] = ins->p[i], names[n++] = pn[i];
  static const char *projn[3][INSDG_PROJECTION_MAX] = {
      {"p_proj0", "p_proj1", "p_proj2", "p_proj3", "p_proj4", "p_proj5", "p_proj6", "p_proj7"},
      {"u_proj0", "u_proj1", "u_proj2", "u_proj3", "u_proj4", "u_proj5", "u_proj6", "u_proj7"},
      {"v_proj0", "v_proj1", "v_proj2", "v_proj3", "v_proj4", "v_proj5", "v_proj6", "v_proj7"}};
  const insdg_projection *proj[3] = {ins->p_proj, ins->vel_proj[0], ins->vel_proj[1]};
  for (int j = 0; j < 3; ++j)
    for (int i = 0; i < proj[j]->k; ++i) fields[n] = proj[j]->x[i], names[n++] = projn[j][i];
  INSDG_CHECK(n <= INSDG_INS_MAX_STATE);
  return n;
}

void insdg_ins_state_times(const insdg_ins *ins, double *t, int *steps, double *t_hist)
{
  *t = ins->t, *steps = ins->steps;
  memcpy(t_hist, ins->t_hist, sizeof(double) * (MAX_S + 1));
}

void insdg_ins_restore_state(insdg_ins *ins, double t, int steps, const double *t_hist)
{
  ins->t = t, ins->steps = steps;
  memcpy(ins->t_hist, t_hist, sizeof(double) * (MAX_S + 1));
}

void insdg_ins_projection_state(const insdg_ins *ins, int counts[3], double *vel_key)
{
  counts[0] = ins->p_proj->k, counts[1] = ins->vel_proj[0]->k, counts[2] = ins->vel_proj[1]->k;
  *vel_key = ins->vel_proj[0]->key;
}

void insdg_ins_restore_projection(insdg_ins *ins, const int counts[3], double vel_key)
{
  insdg_projection *proj[3] = {ins->p_proj, ins->vel_proj[0], ins->vel_proj[1]};
  for (int j = 0; j < 3; ++j) {
    proj[j]->k = counts[j] < proj[j]->L ? counts[j] : proj[j]->L;
    proj[j]->key = j ? vel_key : 0.0;
    proj[j]->guessed = 0;
  }
}

double insdg_ins_time(const insdg_ins *ins) { return ins->t; }
int insdg_ins_steps(const insdg_ins *ins) { return ins->steps; }

int insdg_ins_velocity_default(double ratio)
{
  return ratio > INSDG_VEL_PMG_RATIO     ? INSDG_PRECOND_PMG_AMG
         : ratio > INSDG_VEL_BLOCK_RATIO ? INSDG_PRECOND_BLOCK_JACOBI
                                         : INSDG_PRECOND_INVERSE_MASS;
}

int insdg_ins_velocity_preconditioner(const insdg_ins *ins, double *ratio)
{
  if (ratio) *ratio = ins->vel_ratio;
  return ins->o.vel_precond;
}
int insdg_ins_pressure_coarse(const insdg_ins *ins, int *rows, long *size)
{
  *rows = 0, *size = 0;
  return ins->pmg ? insdg_pmg_coarse_solve(ins->pmg, rows, size) : -1;
}

double *const *insdg_ins_boundary_now(insdg_ins *ins) { return boundary_at(ins, ins->t); }
insdg_dfield *insdg_ins_u(insdg_ins *ins) { return ins->u[0]; }
insdg_dfield *insdg_ins_v(insdg_ins *ins) { return ins->v[0]; }
insdg_dfield *insdg_ins_p(insdg_ins *ins) { return ins->p[0]; }
