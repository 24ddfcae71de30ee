/* bench_solvers.c -- the linear solvers of paper §3/§4.2 on the SIPDG operator lambda M + S
 * (a jittered unit square and its uniform refinements, N = NMIN..NMAX; b = J M f,
 * f = 2 pi^2 sin(pi x) sin(pi y); PCG from x0 = 0 to ||r|| <= 1e-8 ||b||):
 *
 * 1. The pressure table (lambda = --lambda, default 0: Poisson; Dirichlet, or Neumann with
 *    --neumann): PCG iterations, setup and solve times, preconditioner memory per element
 *   - Jacobi:   PCG on the task graph, Jacobi diagonal;
 *   - pMG-AMG:  flexible PCG on the task graph with the pMG-AMG V-cycle (tasks/pmg.h);
 *   - full AMG: flexible PCG (serial) with the aggregation AMG of the assembled degree-N
 *               matrix (src/amg.h), the paper's comparison.
 *   Memory per element: pMG-AMG counts its (block) diagonals, level vectors, transfers and
 *   the degree-1 matrix with its AMG hierarchy; full AMG the degree-N matrix and hierarchy.
 * 2. The velocity table, the Helmholtz problem of a subcycled step (lambda = gamma0 / (nu dt),
 *    --helmholtz-lambda, default 15000: nu = 0.01, dt = 0.01, BDF2), Dirichlet, f with a
 *    node-by-node oscillation added (problem_create), on the
 *    finest mesh: PCG with the inverse mass matrix, element-block Jacobi and flexible PCG
 *    with the pMG-AMG V-cycle of lambda M + S (Chebyshev(2), as insdg run's velocity
 *    solves), iterations, setup and solve times, and the stiffness/mass diagonal ratio by
 *    which insdg run picks between them (tasks/ins.c).
 * 3. Where hypre is found (bench/CMakeLists.txt): pMG-AMG's solve time against hypre's
 *    BoomerAMG + PCG on the assembled matrix of the same problem (N = 4, finest mesh,
 *    lambda 0, Dirichlet), best of 3 solves each, BoomerAMG's better strength threshold of
 *    0.25 and 0.5.
 *
 * The last line (the solver issue's acceptance line):
 *   bench_solvers: pmg_its_max=<max over N of table 1's pMG-AMG at the finest mesh>
 *   helmholtz_its_max=<max over N of table 2 with the preconditioner insdg run picks>
 *   boomeramg_ratio=<pMG-AMG solve s / BoomerAMG solve s, N = 4; nan without hypre>
 *
 * 4. With --coarse (only this table, on the finest mesh, N = NMIN..NMAX, on as many ranks
 *    as it runs on): the coarse levels below pMG's degree-1 level, which every rank holds
 *    and solves after one allgather per V-cycle: the coarse rows and the solve chosen
 *    (sparse or banded Cholesky with its entries or half bandwidth, or AMG; --coarse-solver
 *    picks one), the time
 *    in the allgather and in the coarse solve per V-cycle and their share of the solve
 *    (the worst rank), and their memory beside the whole pMG's on rank 0.
 *
 * Usage: [mpirun -np R] bench_solvers [--nmin NMIN] [--nmax NMAX] [--nx NX] [--refine R]
 *          [--blocks B] [--lambda L] [--neumann] [--methods jacobi,pmg,amg] [--helmholtz-lambda L]
 *          [--coarse] [--mesh FILE] [--coarse-solver auto|amg|band|cholesky]
 *   --mesh FILE: a Gmsh mesh instead of the jittered square (every boundary face Dirichlet,
 *   or Neumann with --neumann; f as above, so a square with sides on integers, such as
 *   [-1, 1]^2, has the exact solution sin(pi x) sin(pi y) for lambda = 0)
 *   --refine R: the mesh and R uniform refinements (default 1); --methods: which solvers
 *   of table 1 (default all three).
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "amg.h"
#include "assemble.h"
#include "case.h" /* insdg_precond */
#include "error.h"
#include "gmsh.h"
#include "ins.h"
#include "mesh.h"
#include "ops_tasks.h"
#include "partition.h"
#include "pcg.h"
#include "pmg.h"
#include "roofline.h"
#include "runtime.h"
#ifdef INSDG_BENCH_HYPRE
#include "HYPRE.h"
#include "HYPRE_parcsr_ls.h" /* HYPRE_Init, HYPRE_Finalize */
#include "hypre_solve.h"
#endif

static const double PI = 3.14159265358979323846;
static const double RTOL = 1e-8;

/* one problem lambda M + S on one mesh at degree N, its right-hand side, on the graph */
/* pMG's solve below the degree-1 level (--coarse-solver; pmg.h) */
static int coarse_solver = INSDG_PMG_COARSE_AUTO;

typedef struct {
  insdg_mesh *mesh;   /* the original (pMG makes its coarse layouts from it) */
  insdg_ref *ref;
  insdg_ops *op;
  insdg_layout *L;
  insdg_tasks T;
  signed char *bc;
  double lambda, *bh, *zero;
  int neumann;
  insdg_dfield *b, *x, *ux, *uy;
  insdg_sipdg_ctx actx;
} problem;

/* rough: f gets a node-by-node oscillation of amplitude 1 too (a right-hand side with
   content at every frequency, as a time step's velocity right-hand side has; with the
   smooth f alone a mass-dominated Helmholtz solve converges in one iteration) */
static problem *problem_create(insdg_mesh *mesh, int N, int nblocks, double lambda, int neumann, int rough)
{
  problem *p = insdg_calloc(1, sizeof *p);
  char err[INSDG_ERRMSG_LEN];
  p->mesh = mesh, p->ref = insdg_ref_create(N), p->op = insdg_ops_create(p->ref), p->lambda = lambda, p->neumann = neumann;
  if (insdg_layout_create(mesh, p->ref, insdg_runtime_size(), nblocks, &p->L, err, sizeof err)) insdg_die_user(err);
  insdg_tasks_init(&p->T, p->L, p->op);
  const insdg_mesh *m = p->L->mesh;
  const size_t n = (size_t)m->K * p->ref->Np;
  p->bc = insdg_malloc(3 * (size_t)m->K);
  for (int i = 0; i < 3 * m->K; ++i)
    p->bc[i] = m->face_bnd[i] < 0 ? INSDG_BC_INTERIOR : neumann ? INSDG_BC_NEUMANN : INSDG_BC_DIRICHLET;
  p->bh = insdg_malloc(sizeof(double) * n), p->zero = insdg_calloc(n, sizeof(double));
  double *f = insdg_malloc(sizeof(double) * n);
  for (size_t k = 0; k < n; ++k)
    f[k] = 2 * PI * PI * sin(PI * m->x[k]) * sin(PI * m->y[k]) + (rough ? sin(1.7 * (double)k + 0.3) : 0.0);
  insdg_mesh_weak_form(m, f, p->bh);   /* b = J M f */
  free(f);
  p->b = insdg_dfield_create(&p->T), p->x = insdg_dfield_create(&p->T);
  p->ux = insdg_dfield_create(&p->T), p->uy = insdg_dfield_create(&p->T);
  insdg_dfield_set(p->b, p->bh);
  p->actx = (insdg_sipdg_ctx){p->bc, lambda, p->ux, p->uy};
  return p;
}

static void problem_destroy(problem *p)
{
  insdg_dfield_destroy(p->b), insdg_dfield_destroy(p->x), insdg_dfield_destroy(p->ux), insdg_dfield_destroy(p->uy);
  insdg_tasks_fini(&p->T);
  insdg_layout_destroy(p->L), insdg_ops_destroy(p->op), insdg_ref_destroy(p->ref);
  free(p->bc), free(p->bh), free(p->zero), free(p);
}

/* PCG from zero with preconditioner P (NULL: none); iterations, negative when not converged */
static int solve(problem *p, const insdg_linop *P, int flexible, double *seconds)
{
  insdg_linop A = {insdg_sipdg_apply, &p->actx};
  const insdg_pcg_opts o = {.rtol = RTOL, .maxit = 5000, .flexible = flexible, .null_space = p->neumann && p->lambda == 0.0};
  insdg_dfield_set(p->x, p->zero);
  insdg_tasks_wait(&p->T);
  const double t0 = insdg_wtime();
  const insdg_pcg_result r = insdg_pcg(&p->T, A, P, p->b, p->x, &o);
  insdg_tasks_wait(&p->T);
  if (seconds) *seconds = insdg_wtime() - t0;
  return r.converged ? r.iterations : -r.iterations;
}

typedef struct {
  int it_jacobi, it_pmg, it_amg;
  double setup_pmg, solve_pmg, setup_amg, solve_amg, mem_pmg, mem_amg;
} row;

typedef struct {
  int jacobi, pmg, amg;
} methods;

/* the methods of table 1 on p; pMG-AMG's solve time the best of `repeat` (>= 1) */
static row run(problem *p, methods want, int repeat)
{
  row out = {0};
  const int K = p->L->mesh->K;
  if (want.jacobi) {
    double *dinv = insdg_sipdg_inverse_diagonal(&p->T, p->bc, p->lambda);
    const insdg_linop J = {insdg_jacobi_apply, dinv};
    out.it_jacobi = solve(p, &J, 0, NULL);
    free(dinv);
  }
  if (want.pmg) {
    double t0 = insdg_wtime();
    const insdg_pmg_opts po = {.coarse = coarse_solver};
    insdg_pmg *pmg = insdg_pmg_create(&p->T, p->mesh, p->bc, p->lambda, &po);
    insdg_tasks_wait(&p->T);
    out.setup_pmg = insdg_wtime() - t0;
    out.mem_pmg = (double)insdg_pmg_memory(pmg) / K;
    const insdg_linop P = {insdg_pmg_apply, pmg};
    for (int k = 0; k < repeat; ++k) {
      double s;
      out.it_pmg = solve(p, &P, 1, &s);
      out.solve_pmg = k == 0 || s < out.solve_pmg ? s : out.solve_pmg;
    }
    insdg_pmg_destroy(pmg);
  }
  if (want.amg) {   /* full AMG on the assembled degree-N matrix (serial, rank 0's numbers) */
    const double t0 = insdg_wtime();
    insdg_csr *AN = insdg_assemble_sipdg(p->L->mesh, p->op, p->bc, p->lambda);
    insdg_amg *amg = insdg_amg_setup(AN, NULL);
    out.setup_amg = insdg_wtime() - t0;
    out.mem_amg = (double)(insdg_csr_memory(AN) + insdg_amg_memory(amg)) / K;
    double *xs = insdg_calloc((size_t)AN->nrows, sizeof(double));
    int its = 0;
    const double t1 = insdg_wtime();
    const int status = insdg_fpcg_csr(AN, p->bh, xs, insdg_amg_precondition, amg, RTOL, 5000, &its, NULL);
    out.solve_amg = insdg_wtime() - t1;
    out.it_amg = status == 0 ? its : -its;
    insdg_amg_destroy(amg), insdg_csr_destroy(AN);
    free(xs);
  }
  return out;
}

/* table 2's row: the velocity problem under the inverse mass, block Jacobi and pMG-AMG
   (the Chebyshev(2) cycle insdg run uses for velocity), and the ratio insdg run picks by */
typedef struct {
  int it[3];        /* inverse mass, block Jacobi, pMG-AMG */
  double t[3];      /* solve s */
  double setup[3];  /* setup s (the inverse mass: none) */
  double ratio;
} vrow;

static vrow run_velocity(problem *p)
{
  vrow v = {{0}, {0}, {0}, 0};
  const insdg_linop M = {insdg_inverse_mass_apply, NULL};
  v.it[0] = solve(p, &M, 0, &v.t[0]);
  double t0 = insdg_wtime();
  double *binv = insdg_sipdg_inverse_blocks(&p->T, p->bc, p->lambda);
  v.setup[1] = insdg_wtime() - t0;
  insdg_dinv D = {binv, 1};
  const insdg_linop B = {insdg_dinv_apply, &D};
  v.it[1] = solve(p, &B, 0, &v.t[1]);
  free(binv);
  t0 = insdg_wtime();
  const insdg_pmg_opts po = {.cheb_degree = INSDG_VEL_PMG_CHEBYSHEV, .coarse = coarse_solver};   /* insdg run's velocity cycle */
  insdg_pmg *pmg = insdg_pmg_create(&p->T, p->mesh, p->bc, p->lambda, &po);
  insdg_tasks_wait(&p->T);
  v.setup[2] = insdg_wtime() - t0;
  const insdg_linop P = {insdg_pmg_apply, pmg};
  v.it[2] = solve(p, &P, 1, &v.t[2]);
  insdg_pmg_destroy(pmg);
  v.ratio = insdg_sipdg_stiffness_mass_ratio(&p->T, p->bc, p->lambda);
  return v;
}

/* Table 4 (--coarse): the coarse levels below pMG's degree-1 level, which every rank
   holds and solves redundantly after one allgather per V-cycle: their share of the
   pressure solve's time and of the rank's memory, on the ranks this runs on. The
   pressure cycle of insdg run (Chebyshev(2)), Poisson, Dirichlet, 3 solves from zero. */
static void coarse_table(insdg_mesh *m, int N, int nblocks)
{
  problem *p = problem_create(m, N, nblocks, 0.0, 0, 0);
  const insdg_pmg_opts po = {.cheb_degree = 2, .coarse = coarse_solver};
  insdg_pmg *pmg = insdg_pmg_create(&p->T, p->mesh, p->bc, 0.0, &po);
  insdg_tasks_wait(&p->T);
  const insdg_linop P = {insdg_pmg_apply, pmg};
  double solve_s = 0;
  int its = 0;
  for (int k = 0; k < 3; ++k) {
    double s;
    its = solve(p, &P, 1, &s);
    solve_s += s;
  }
  double cs[2];
  long calls;
  insdg_pmg_coarse_time(pmg, cs, &calls);
  /* per rank: coarse allgather, coarse solve, their share of the solve; the max over ranks */
  double mine[3] = {cs[0], cs[1], (cs[0] + cs[1]) / solve_s}, worst[3];
  MPI_Reduce(mine, worst, 3, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  const size_t cmem = insdg_pmg_coarse_memory(pmg), pmem = insdg_pmg_memory(pmg);
  int nc;
  long size;
  const int kind = insdg_pmg_coarse_solve(pmg, &nc, &size);
  char how[48];
  if (kind == INSDG_PMG_COARSE_CHOLESKY) snprintf(how, sizeof how, "sparse Cholesky, %ld entries", size);
  else if (kind == INSDG_PMG_COARSE_BAND) snprintf(how, sizeof how, "band, kd %ld", size);
  else snprintf(how, sizeof how, "AMG");
  if (insdg_runtime_rank() == 0)
    printf("| %d | %d | %d | %d | %.3f | %ld | %d | %s | %.3f | %.3f | %.1f%% | %.0f | %.0f | %.1f%% |\n",
           insdg_runtime_size(), N, m->K, its, solve_s / 3, calls / 3, nc, how, 1e3 * worst[0] / (double)calls,
           1e3 * worst[1] / (double)calls,
           100 * worst[2], cmem / 1024.0, pmem / 1024.0, 100.0 * (double)cmem / (double)pmem);
  insdg_pmg_destroy(pmg);
  problem_destroy(p);
}

/* pMG-AMG's solve time / BoomerAMG's (best theta), best of 3 each, N = 4 on mesh m */
static double boomeramg_ratio(insdg_mesh *m, int nblocks)
{
#ifdef INSDG_BENCH_HYPRE
  problem *p = problem_create(m, 4, nblocks, 0.0, 0, 0);
  const row r = run(p, (methods){.pmg = 1}, 3);
  insdg_csr *A = insdg_assemble_sipdg(p->L->mesh, p->op, p->bc, 0.0);
  double best = INFINITY;
  int its = 0;
  static const double thetas[2] = {0.25, 0.5};
  for (int t = 0; t < 2; ++t)
    for (int k = 0; k < 3; ++k) {
      char label[64];
      const insdg_bench_result h = insdg_bench_hypre(A, p->bh, thetas[t], RTOL, 1000, label, sizeof label);
      if (h.converged && h.t_solve < best) best = h.t_solve, its = h.iters;
    }
  if (insdg_runtime_rank() == 0)
    printf("# N = 4, K = %d: pMG-AMG %d iterations, %.4f s; hypre BoomerAMG + PCG %d iterations, %.4f s "
           "(best of 3 solves each; hypre on the assembled matrix, its better strength threshold)\n",
           m->K, r.it_pmg, r.solve_pmg, its, best);
  insdg_csr_destroy(A);
  problem_destroy(p);
  return r.it_pmg > 0 && isfinite(best) ? r.solve_pmg / best : NAN;
#else
  (void)m, (void)nblocks;
  if (insdg_runtime_rank() == 0) printf("# hypre not built in (libhypre-dev): no BoomerAMG comparison\n");
  return NAN;
#endif
}

int main(int argc, char **argv)
{
  char err[INSDG_ERRMSG_LEN];
  if (insdg_runtime_init(&argc, &argv, NULL, err, sizeof err)) insdg_die_user(err);
  int nmin = 1, nmax = 8, nx = 12, nblocks = 4, nrefine = 1, neumann = 0, coarse = 0;
  const char *mesh_file = NULL;
  double lambda = 0.0, helm_lambda = 1.5 / (0.01 * 0.01);
  methods want = {1, 1, 1};
  const char *usage = "usage: bench_solvers [--nmin NMIN] [--nmax NMAX] [--nx NX] [--refine R] [--blocks B] "
                      "[--lambda L] [--neumann] [--methods jacobi,pmg,amg] [--helmholtz-lambda L] [--coarse] [--mesh FILE] "
                      "[--coarse-solver auto|amg|band|cholesky]";
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--nmax") && i + 1 < argc) nmax = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--nmin") && i + 1 < argc) nmin = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--nx") && i + 1 < argc) nx = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--blocks") && i + 1 < argc) nblocks = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--refine") && i + 1 < argc) nrefine = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--lambda") && i + 1 < argc) lambda = atof(argv[++i]);
    else if (!strcmp(argv[i], "--helmholtz-lambda") && i + 1 < argc) helm_lambda = atof(argv[++i]);
    else if (!strcmp(argv[i], "--neumann")) neumann = 1;
    else if (!strcmp(argv[i], "--coarse")) coarse = 1;
    else if (!strcmp(argv[i], "--mesh") && i + 1 < argc) mesh_file = argv[++i];
    else if (!strcmp(argv[i], "--coarse-solver") && i + 1 < argc) {
      const char *v = argv[++i];
      if (!strcmp(v, "auto")) coarse_solver = INSDG_PMG_COARSE_AUTO;
      else if (!strcmp(v, "amg")) coarse_solver = INSDG_PMG_COARSE_AMG;
      else if (!strcmp(v, "band")) coarse_solver = INSDG_PMG_COARSE_BAND;
      else if (!strcmp(v, "cholesky")) coarse_solver = INSDG_PMG_COARSE_CHOLESKY;
      else insdg_die_user("bench_solvers: --coarse-solver takes auto, amg, band or cholesky");
    }
    else if (!strcmp(argv[i], "--methods") && i + 1 < argc) {   /* a comma-separated subset of jacobi,pmg,amg */
      char list[64];
      snprintf(list, sizeof list, "%s", argv[++i]);
      want = (methods){0, 0, 0};
      for (char *t = strtok(list, ","); t; t = strtok(NULL, ","))
        if (!strcmp(t, "jacobi")) want.jacobi = 1;
        else if (!strcmp(t, "pmg")) want.pmg = 1;
        else if (!strcmp(t, "amg")) want.amg = 1;
        else insdg_die_user("bench_solvers: --methods takes jacobi, pmg, amg (comma-separated)");
    } else
      insdg_die_user(usage);
  }
  if (nrefine < 0 || nrefine > 4 || nmin < 1 || nmax > 8 || nmin > nmax || nx < 1 || !(lambda >= 0) ||
      !(helm_lambda > 0))
    insdg_die_user("bench_solvers: --refine takes 0..4, 1 <= --nmin <= --nmax <= 8, --nx >= 1, --lambda >= 0, "
                   "--helmholtz-lambda > 0");
#ifdef INSDG_BENCH_HYPRE
  HYPRE_Init();
#endif
  insdg_mesh *mesh[5];
  if (mesh_file) {
    if (insdg_mesh_read(mesh_file, &mesh[0], err, sizeof err)) insdg_die_user(err);
  } else {
    mesh[0] = insdg_mesh_rectangle(nx, nx, 0.0, 1.0, 0.0, 1.0, 0.15, 17u);
  }
  for (int k = 1; k <= nrefine; ++k) mesh[k] = insdg_mesh_refine(mesh[k - 1]);
  insdg_mesh *finest = mesh[nrefine];
  const int rank = insdg_runtime_rank();
  if (coarse) {   /* table 4 only */
    if (rank == 0) {
      printf("# %s; %d rank(s) x %d worker(s), %d blocks\n", insdg_roofline_cpu_name(), insdg_runtime_size(),
             insdg_runtime_workers(), nblocks);
      printf("\n## 4. the coarse levels (redundant on every rank), Poisson, Dirichlet, insdg run's pressure cycle\n");
      printf("| ranks | N | K | it | solve s | V-cycles | coarse rows | coarse solve | allgather ms/cycle | coarse solve "
             "ms/cycle | coarse share of the solve | coarse kB (every rank) | pMG kB (rank 0) | coarse share of pMG "
             "memory |\n");
      printf("|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|\n");
    }
    for (int N = nmin; N <= nmax; ++N) coarse_table(finest, N, nblocks);
    for (int k = 0; k <= nrefine; ++k) insdg_mesh_destroy(mesh[k]);
    insdg_runtime_shutdown();
    return 0;
  }
  if (rank == 0) {
    printf("# %s; %d rank(s) x %d worker(s), %d blocks; PCG from zero to 1e-8\n", insdg_roofline_cpu_name(),
           insdg_runtime_size(), insdg_runtime_workers(), nblocks);
    if (mesh_file) printf("# meshes: %s (%d triangles) and %d uniform refinement(s)\n", mesh_file, mesh[0]->K, nrefine);
    else printf("# meshes: jittered %dx%d square (%d triangles) and %d uniform refinement(s)\n", nx, nx, mesh[0]->K, nrefine);
    printf("\n## 1. %s, lambda = %g, %s\n", lambda == 0.0 ? "Poisson" : "Helmholtz", lambda,
           neumann ? "Neumann" : "Dirichlet");
    printf("| N | K | Jacobi it | pMG-AMG it | full AMG it | pMG setup s | pMG solve s | AMG setup s | AMG solve s | pMG kB/elem | full AMG kB/elem |\n");
    printf("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  }
  int pmg_max = 0;   /* at the finest mesh; -1: a solve did not converge */
  for (int N = nmin; N <= nmax; ++N)
    for (int k = 0; k <= nrefine; ++k) {
      problem *p = problem_create(mesh[k], N, nblocks, lambda, neumann, 0);
      const row r = run(p, want, 1);
      problem_destroy(p);
      if (k == nrefine && want.pmg) pmg_max = r.it_pmg < 0 || pmg_max < 0 ? -1 : r.it_pmg > pmg_max ? r.it_pmg : pmg_max;
      if (rank == 0)
        printf("| %d | %d | %d | %d | %d | %.3f | %.3f | %.3f | %.3f | %.1f | %.1f |\n", N, mesh[k]->K, r.it_jacobi,
               r.it_pmg, r.it_amg, r.setup_pmg, r.solve_pmg, r.setup_amg, r.solve_amg, r.mem_pmg / 1024,
               r.mem_amg / 1024);
      fflush(stdout);
    }
  if (rank == 0) {
    printf("\n## 2. velocity: Helmholtz, lambda = %g, Dirichlet, K = %d\n", helm_lambda, finest->K);
    printf("| N | inverse mass it | s | block Jacobi it | setup s | s | pMG-AMG it | setup s | s | stiffness/mass ratio | insdg run's default |\n");
    printf("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
  }
  int helm_max = 0;
  for (int N = nmin; N <= nmax; ++N) {
    problem *p = problem_create(finest, N, nblocks, helm_lambda, 0, 1);
    const vrow v = run_velocity(p);
    problem_destroy(p);
    const int pick = insdg_ins_velocity_default(v.ratio);   /* insdg run's default */
    const int c = pick == INSDG_PRECOND_PMG_AMG ? 2 : pick == INSDG_PRECOND_BLOCK_JACOBI ? 1 : 0, it = v.it[c];
    helm_max = it < 0 || helm_max < 0 ? -1 : it > helm_max ? it : helm_max;
    if (rank == 0)
      printf("| %d | %d | %.3f | %d | %.3f | %.3f | %d | %.3f | %.3f | %.3g | %s |\n", N, v.it[0], v.t[0], v.it[1],
             v.setup[1], v.t[1], v.it[2], v.setup[2], v.t[2], v.ratio, insdg_precond_name((insdg_precond)pick));
    fflush(stdout);
  }
  if (rank == 0) printf("\n## 3. against hypre\n");
  const double bratio = boomeramg_ratio(finest, nblocks);
  if (rank == 0)
    printf("bench_solvers: pmg_its_max=%d helmholtz_its_max=%d boomeramg_ratio=%.3f\n", want.pmg ? pmg_max : 0, helm_max,
           bratio);
  for (int k = 0; k <= nrefine; ++k) insdg_mesh_destroy(mesh[k]);
#ifdef INSDG_BENCH_HYPRE
  HYPRE_Finalize();
#endif
  insdg_runtime_shutdown();
  return 0;
}
