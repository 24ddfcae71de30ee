/* test_ins.c -- the Navier-Stokes step against the Taylor vortex (paper §4.1):
 *   u = -sin(2 pi y) E, v = sin(2 pi x) E, p = -cos(2 pi x) cos(2 pi y) E^2, E = exp(-4 pi^2 nu t)
 * on [-0.5, 0.5]^2, nu = 0.01, exact data on the inflow boundaries (bottom, top, left)
 * and outflow (exact pressure) on the right.
 *
 *   test_ins temporal N NX T S [NS [M]]
 *                                     L2 errors of u at T for dt = T/M, T/2M, T/4M, T/8M
 *                                     (M = 10; NS subcycles per step, default 0); asserts
 *                                     the observed order on the last pair >= S - 0.3
 *   test_ins run N NX T DT S [NS]     one run, prints the errors
 *   test_ins restart N NX DT S NS M CKPT DUMP
 *                                     2M steps straight vs M steps, checkpoint, restart, M
 *                                     steps: asserts bitwise equality; keeps CKPT, dumps u
 *   test_ins continue N NX DT S NS M CKPT DUMP
 *                                     restart from CKPT (any rank count), M steps, dump u
 *   test_ins vpick N NX               the velocity preconditioner's default (tasks/ins.c):
 *                                     the stiffness/mass ratio R scales exactly like dt
 *                                     (lambda = gamma0 / (nu dt)); dt set for R = 10, 100,
 *                                     1000 picks inverse_mass, block_jacobi, pmg_amg; at
 *                                     R = 1000 one step converges with pmg_amg in <= 20
 *                                     iterations per velocity solve, fewer than block
 *                                     Jacobi forced on the same step, to the same u (1e-9)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case.h" /* insdg_precond */
#include "error.h"
#include "checkpoint.h"
#include "ins.h"
#include "mesh.h"
#include "partition.h"
#include "runtime.h"

static const double PI = 3.14159265358979323846, NU = 0.01;

static double E(double t) { return exp(-4 * PI * PI * NU * t); }
static double u_ex(double x, double y, double t) { (void)x; return -sin(2 * PI * y) * E(t); }
static double v_ex(double x, double y, double t) { (void)y; return sin(2 * PI * x) * E(t); }
static double p_ex(double x, double y, double t) { return -cos(2 * PI * x) * cos(2 * PI * y) * E(t) * E(t); }

typedef struct {
  const insdg_mesh *m;   /* renumbered, geometry set */
} bdata_ctx;

/* exact values, and normal derivatives for the outflow */
static void boundary(void *ctx, double t, double *gu, double *gv, double *gp, double *hu, double *hv)
{
  const insdg_mesh *m = ((bdata_ctx *)ctx)->m;
  const insdg_ref *r = m->ref;
  for (int e = 0; e < m->K; ++e)
    for (int k = 0; k < 3 * r->Nfp; ++k) {
      const size_t node = (size_t)e * r->Np + r->face_nodes[k], q = (size_t)e * 3 * r->Nfp + k;
      const double *sg = m->sgeo + ((size_t)e * 3 + k / r->Nfp) * INSDG_NSGEO;
      const double x = m->x[node], y = m->y[node];
      gu[q] = u_ex(x, y, t), gv[q] = v_ex(x, y, t), gp[q] = p_ex(x, y, t);
      /* grad u = (0, -2 pi cos(2 pi y) E), grad v = (2 pi cos(2 pi x) E, 0) */
      hu[q] = sg[INSDG_NY] * (-2 * PI * cos(2 * PI * y) * E(t));
      hv[q] = sg[INSDG_NX] * (2 * PI * cos(2 * PI * x) * E(t));
    }
}

/* the exact velocity at the face nodes moved by (dx, dy) (subcycling's upstream data) */
static void velocity_at(void *ctx, double t, const double *dx, const double *dy, double *gu, double *gv)
{
  const insdg_mesh *m = ((bdata_ctx *)ctx)->m;
  const insdg_ref *r = m->ref;
  for (int e = 0; e < m->K; ++e)
    for (int k = 0; k < 3 * r->Nfp; ++k) {
      const size_t node = (size_t)e * r->Np + r->face_nodes[k], q = (size_t)e * 3 * r->Nfp + k;
      const double x = m->x[node] + dx[q], y = m->y[node] + dy[q];
      gu[q] = u_ex(x, y, t), gv[q] = v_ex(x, y, t);
    }
}

/* The Taylor vortex problem on a jittered nx x nx mesh, cut into 4 blocks per rank. */
typedef struct {
  insdg_mesh *mesh;   /* original */
  insdg_ref *ref;
  insdg_ops *op;
  insdg_layout *L;
  insdg_tasks T;
  signed char *bc_vel, *bc_p;
  bdata_ctx bctx;
  insdg_ins_opts o;
  double *u0, *v0, *p0;   /* initial fields, renumbered mesh */
} problem;

static void problem_create(problem *pb, int N, int nx, double dt, int S, int Ns)
{
  char err[INSDG_ERRMSG_LEN];
  pb->mesh = insdg_mesh_rectangle(nx, nx, -0.5, 0.5, -0.5, 0.5, 0.15, 23u);
  pb->ref = insdg_ref_create(N);
  pb->op = insdg_ops_create(pb->ref);
  if (insdg_layout_create(pb->mesh, pb->ref, insdg_runtime_size(), 4 * insdg_runtime_size(), &pb->L, err, sizeof err))
    insdg_die_user(err);
  insdg_tasks_init(&pb->T, pb->L, pb->op);
  const insdg_mesh *m = pb->L->mesh;
  const int right = insdg_mesh_boundary(m, "right");
  pb->bc_vel = insdg_malloc(3 * (size_t)m->K), pb->bc_p = insdg_malloc(3 * (size_t)m->K);
  for (int i = 0; i < 3 * m->K; ++i) {
    const int b = m->face_bnd[i];
    pb->bc_vel[i] = b < 0 ? INSDG_BC_INTERIOR : b == right ? INSDG_BC_NEUMANN : INSDG_BC_DIRICHLET;
    pb->bc_p[i] = b < 0 ? INSDG_BC_INTERIOR : b == right ? INSDG_BC_DIRICHLET : INSDG_BC_NEUMANN;
  }
  pb->bctx.m = m;
  pb->o = (insdg_ins_opts){.nu = NU, .dt = dt, .S = S, .Ns = Ns, .bc_vel = pb->bc_vel, .bc_p = pb->bc_p,
                           .boundary = boundary, .boundary_ctx = &pb->bctx,
                           .velocity_at = getenv("INSDG_NO_UPSTREAM") ? NULL : velocity_at, .vel_tol = 1e-12, .p_tol = 1e-12,
                           .vel_maxit = 2000, .p_maxit = 500};
  const size_t n = (size_t)m->K * pb->ref->Np;
  pb->u0 = insdg_malloc(sizeof(double) * n), pb->v0 = insdg_malloc(sizeof(double) * n), pb->p0 = insdg_malloc(sizeof(double) * n);
  for (size_t i = 0; i < n; ++i)
    pb->u0[i] = u_ex(m->x[i], m->y[i], 0), pb->v0[i] = v_ex(m->x[i], m->y[i], 0), pb->p0[i] = p_ex(m->x[i], m->y[i], 0);
}

static insdg_ins *problem_stepper(problem *pb)
{
  insdg_ins *ins = insdg_ins_create(&pb->T, pb->mesh, &pb->o);
  insdg_ins_set_initial(ins, pb->u0, pb->v0, pb->p0, 0.0);
  return ins;
}

static void problem_destroy(problem *pb)
{
  free(pb->bc_vel), free(pb->bc_p), free(pb->u0), free(pb->v0), free(pb->p0);
  insdg_tasks_fini(&pb->T);
  insdg_layout_destroy(pb->L);
  insdg_ops_destroy(pb->op);
  insdg_ref_destroy(pb->ref);
  insdg_mesh_destroy(pb->mesh);
}

/* relative L2 errors of u and p at the final time */
static void run(int N, int nx, double T, double dt, int S, int Ns, double *eu, double *ep, int *maxit_p)
{
  problem pb;
  problem_create(&pb, N, nx, dt, S, Ns);
  insdg_ins *ins = problem_stepper(&pb);
  insdg_mesh *mesh = pb.mesh;
  insdg_ref *ref = pb.ref;
  const size_t n = (size_t)mesh->K * ref->Np;
  double *u = insdg_malloc(sizeof(double) * n), *v = insdg_malloc(sizeof(double) * n), *p = insdg_malloc(sizeof(double) * n);
  const int nsteps = (int)lround(T / dt);
  *maxit_p = 0;
  for (int s = 0; s < nsteps; ++s) {
    insdg_ins_stats st;
    if (insdg_ins_step(ins, &st)) insdg_internal_error(__FILE__, __LINE__, "a solve did not converge");
    if (st.p_iterations > *maxit_p) *maxit_p = st.p_iterations;
    if (getenv("INSDG_TRACE")) {   /* per-step trace for debugging: max |u| */
      insdg_dfield_gather(insdg_ins_u(ins), u);
      double umax = 0;
      for (size_t i = 0; i < n; ++i) umax = fmax(umax, fabs(u[i]));
      if (insdg_runtime_rank() == 0) printf("step %d t %.4f max|u| %.6e p its %d v its %d %d\n", s + 1, insdg_ins_time(ins), umax, st.p_iterations, st.vel_iterations[0], st.vel_iterations[1]);
    }
  }
  /* errors on the original mesh */
  insdg_dfield_gather(insdg_ins_u(ins), u), insdg_dfield_gather(insdg_ins_p(ins), p);
  insdg_mesh_set_ref(mesh, ref);
  const double t = insdg_ins_time(ins);
  double su = 0, nu_ = 0, sp = 0, np_ = 0;
  const int Np = ref->Np;
  for (int e = 0; e < mesh->K; ++e)
    for (int i = 0; i < Np; ++i)
      for (int j = 0; j < Np; ++j) {
        const size_t a = (size_t)e * Np + i, b = (size_t)e * Np + j;
        const double w = mesh->vgeo[e * INSDG_NVGEO + INSDG_J] * ref->M[i * Np + j];
        const double ua = u_ex(mesh->x[a], mesh->y[a], t), ub = u_ex(mesh->x[b], mesh->y[b], t);
        const double pa = p_ex(mesh->x[a], mesh->y[a], t), pb = p_ex(mesh->x[b], mesh->y[b], t);
        su += w * (u[a] - ua) * (u[b] - ub), nu_ += w * ua * ub;
        sp += w * (p[a] - pa) * (p[b] - pb), np_ += w * pa * pb;
      }
  *eu = sqrt(su / nu_), *ep = sqrt(sp / np_);
  free(u), free(v), free(p);
  insdg_ins_destroy(ins);
  problem_destroy(&pb);
}

/* one step at dt with the velocity preconditioner vp (INSDG_PRECOND_DEFAULT: insdg run's
   pick); returns the pick and R, its velocity iterations, and u (renumbered) in u */
static int vpick_step(int N, int nx, double dt, int vp, double *R, int its[2], double *u)
{
  problem pb;
  problem_create(&pb, N, nx, dt, 2, 0);
  pb.o.vel_precond = vp, pb.o.vel_tol = 1e-10;
  insdg_ins *ins = problem_stepper(&pb);
  const int pick = insdg_ins_velocity_preconditioner(ins, R);
  its[0] = its[1] = -1;
  if (u) {
    insdg_ins_stats st;
    if (insdg_ins_step(ins, &st)) insdg_internal_error(__FILE__, __LINE__, "a solve did not converge");
    its[0] = st.vel_iterations[0], its[1] = st.vel_iterations[1];
    insdg_dfield_gather(insdg_ins_u(ins), u);
  }
  insdg_ins_destroy(ins);
  problem_destroy(&pb);
  return pick;
}

static int vpick_test(int N, int nx)
{
  int failures = 0, its[2];
  const int rank = insdg_runtime_rank();
  double R0, R;
  const double dt0 = 1e-3;
  vpick_step(N, nx, dt0, INSDG_PRECOND_DEFAULT, &R0, its, NULL);
  static const double target[3] = {10, 100, 1000};
  static const int want[3] = {INSDG_PRECOND_INVERSE_MASS, INSDG_PRECOND_BLOCK_JACOBI, INSDG_PRECOND_PMG_AMG};
  for (int k = 0; k < 3; ++k) {
    const double dt = dt0 * target[k] / R0;
    const int pick = vpick_step(N, nx, dt, INSDG_PRECOND_DEFAULT, &R, its, NULL);
    const int ok = pick == want[k] && fabs(R - target[k]) <= 1e-10 * target[k];
    if (rank == 0) printf("%s: dt %.4g: R %.12g (want %g), picks %s (want %s)\n", ok ? "ok" : "FAIL", dt, R, target[k],
                          insdg_precond_name((insdg_precond)pick), insdg_precond_name((insdg_precond)want[k]));
    failures += !ok;
  }
  problem pb;   /* the field size */
  problem_create(&pb, N, nx, dt0, 2, 0);
  const size_t n = (size_t)pb.L->mesh->K * pb.ref->Np;
  problem_destroy(&pb);
  double *u_pmg = insdg_malloc(sizeof(double) * n), *u_block = insdg_malloc(sizeof(double) * n);
  int its_block[2];
  const double dt = dt0 * target[2] / R0;
  vpick_step(N, nx, dt, INSDG_PRECOND_DEFAULT, &R, its, u_pmg);
  vpick_step(N, nx, dt, INSDG_PRECOND_BLOCK_JACOBI, &R, its_block, u_block);
  double diff = 0, norm = 0;
  for (size_t i = 0; i < n; ++i) diff = fmax(diff, fabs(u_pmg[i] - u_block[i])), norm = fmax(norm, fabs(u_block[i]));
  const int ok = its[0] <= 20 && its[1] <= 20 && its[0] < its_block[0] && its[1] < its_block[1] && diff <= 1e-9 * norm;
  if (rank == 0)
    printf("%s: R = 1000, one step: pmg_amg %d / %d velocity iterations, block_jacobi %d / %d; max |u_pmg - u_block| "
           "%.3g (max |u| %.3g)\n", ok ? "ok" : "FAIL", its[0], its[1], its_block[0], its_block[1], diff, norm);
  failures += !ok;
  free(u_pmg), free(u_block);
  return failures;
}

/* Restart: A = 2m steps straight; B = m steps, checkpoint, a fresh stepper restarted from
   it, m more steps. mode 0: both in this process (asserts bitwise equality) and the
   checkpoint kept in ckpt; mode 1: only "restart from ckpt, m steps". The final u, in
   original element order, goes to dump (int 0, then the values). Returns failures. */
static int restart_test(int mode, int N, int nx, double dt, int S, int Ns, int m, const char *ckpt, const char *dump)
{
  char err[INSDG_ERRMSG_LEN];
  problem pb;
  problem_create(&pb, N, nx, dt, S, Ns);
  /* with solution projection (a window of 2, so that the 2m steps both fill and restart
     the bases): the bases are part of the checkpoint */
  pb.o.p_projection = pb.o.vel_projection = 2, pb.o.vel_minit = 4;
  const insdg_checkpoint_info info = {N, pb.L->mesh->K, S, Ns, dt, pb.o.nu, NULL};
  const size_t n = (size_t)pb.L->mesh->K * pb.ref->Np;
  double *ua = insdg_malloc(sizeof(double) * n), *ub = insdg_malloc(sizeof(double) * n);
  insdg_ins_stats st;
  int failures = 0;
  if (mode == 0) {
    insdg_ins *a = problem_stepper(&pb);
    for (int s = 0; s < 2 * m; ++s) insdg_ins_step(a, &st);
    insdg_dfield_gather(insdg_ins_u(a), ua);
    insdg_ins_destroy(a);
    insdg_ins *b = problem_stepper(&pb);
    for (int s = 0; s < m; ++s) insdg_ins_step(b, &st);
    if (insdg_checkpoint_write(ckpt, &pb.T, b, &info, err, sizeof err)) insdg_die_user(err);
    insdg_ins_destroy(b);
  }
  insdg_ins *c = problem_stepper(&pb);   /* its initial state is overwritten by the checkpoint */
  if (insdg_checkpoint_read(ckpt, &pb.T, c, &info, err, sizeof err)) insdg_die_user(err);
  for (int s = 0; s < m; ++s) insdg_ins_step(c, &st);
  insdg_dfield_gather(insdg_ins_u(c), ub);
  insdg_ins_destroy(c);
  if (mode == 0) {
    const int same = memcmp(ua, ub, sizeof(double) * n) == 0;
    failures += !same;
    if (pb.T.rank == 0) printf("%s: restarted run %s the uninterrupted one after %d + %d steps\n", same ? "ok" : "FAIL",
                            same ? "is bitwise equal to" : "DIFFERS from", m, m);
  }
  if (pb.T.rank == 0 && dump) {
    FILE *f = fopen(dump, "wb");
    const int zero = 0;
    INSDG_CHECK(f && fwrite(&zero, sizeof zero, 1, f) == 1 && fwrite(ub, sizeof(double), n, f) == n);
    fclose(f);
  }
  free(ua), free(ub);
  problem_destroy(&pb);
  return failures;
}

int main(int argc, char **argv)
{
  char err[INSDG_ERRMSG_LEN];
  if (insdg_runtime_init(&argc, &argv, NULL, err, sizeof err)) insdg_die_user(err);
  const int rank = insdg_runtime_rank();
  int failures = 0;
  if (argc >= 6 && argc <= 8 && !strcmp(argv[1], "temporal")) {
    const int N = atoi(argv[2]), nx = atoi(argv[3]), S = atoi(argv[5]), Ns = argc >= 7 ? atoi(argv[6]) : 0;
    const int steps0 = argc == 8 ? atoi(argv[7]) : 10;
    const double T = atof(argv[4]);
    double prev = 0;
    for (int k = 0; k < 4; ++k) {
      const double dt = T / (steps0 << k);
      double eu, ep;
      int itp;
      run(N, nx, T, dt, S, Ns, &eu, &ep, &itp);
      const double rate = k ? log2(prev / eu) : 0;
      if (rank == 0) printf("N=%d S=%d Ns=%d dt=%.5f  |u| rel %.3e  |p| rel %.3e  order %.2f  (max p iterations %d)\n", N, S, Ns, dt, eu, ep, rate, itp);
      if (k == 3 && rate < S - 0.3) failures++, rank == 0 ? printf("FAIL: order %.2f < %d - 0.3\n", rate, S) : 0;
      prev = eu;
    }
  } else if ((argc == 7 || argc == 8) && !strcmp(argv[1], "run")) {
    double eu, ep;
    int itp;
    run(atoi(argv[2]), atoi(argv[3]), atof(argv[4]), atof(argv[5]), atoi(argv[6]), argc == 8 ? atoi(argv[7]) : 0, &eu, &ep, &itp);
    if (rank == 0) printf("|u| rel %.3e  |p| rel %.3e  (max p iterations %d)\n", eu, ep, itp);
  } else if (argc == 10 && (!strcmp(argv[1], "restart") || !strcmp(argv[1], "continue"))) {
    /* restart|continue N NX DT S NS M CKPT DUMP */
    failures = restart_test(!strcmp(argv[1], "continue"), atoi(argv[2]), atoi(argv[3]), atof(argv[4]), atoi(argv[5]),
                            atoi(argv[6]), atoi(argv[7]), argv[8], argv[9]);
  } else if (argc == 4 && !strcmp(argv[1], "vpick")) {
    failures = vpick_test(atoi(argv[2]), atoi(argv[3]));
  } else {
    insdg_die_user("usage: test_ins temporal N NX T S [NS [M]] | run N NX T DT S [NS] | vpick N NX");
  }
  insdg_runtime_shutdown();
  return failures ? 1 : 0;
}
