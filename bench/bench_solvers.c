/* bench_solvers.c -- the pressure-solver comparison of paper §3/§4.2: PCG iterations to
 * 1e-8 relative residual, setup and solve times, and preconditioner memory per element,
 * for the SIPDG Poisson problem (Dirichlet) on a mesh and its uniform refinement, N = 1..NMAX:
 *   - Jacobi:   PCG on the task graph, Jacobi diagonal;
 *   - pMG-AMG:  flexible PCG on the task graph with the pMG-AMG V-cycle (tasks/pmg.h);
 *   - full AMG: flexible PCG (serial) with the aggregation AMG of the assembled degree-N
 *               matrix (src/amg.h), the paper's comparison.
 * Memory per element: pMG-AMG counts its diagonals, level vectors, transfers and the
 * degree-1 matrix with its AMG hierarchy; full AMG the degree-N matrix and its hierarchy.
 *
 * Usage: [mpirun -np 1] bench_solvers [--nmax NMAX] [--nx NX] [--blocks B]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "amg.h"
#include "assemble.h"
#include "error.h"
#include "mesh.h"
#include "ops_tasks.h"
#include "partition.h"
#include "pcg.h"
#include "pmg.h"
#include "roofline.h"
#include "runtime.h"

static const double PI = 3.14159265358979323846;

typedef struct {
  int it_jacobi, it_pmg, it_amg;
  double setup_pmg, solve_pmg, setup_amg, solve_amg, mem_pmg, mem_amg;
} row;

static row run(insdg_mesh *mesh, int N, int nblocks)
{
  row out = {0};
  char err[INSDG_ERRMSG_LEN];
  insdg_ref *ref = insdg_ref_create(N);
  insdg_ops *op = insdg_ops_create(ref);
  insdg_layout *L;
  if (insdg_layout_create(mesh, ref, insdg_runtime_size(), nblocks, &L, err, sizeof err)) insdg_die_user(err);
  insdg_tasks T;
  insdg_tasks_init(&T, L, op);
  const insdg_mesh *m = L->mesh;
  const int Np = ref->Np, K = m->K;
  const size_t n = (size_t)K * Np;
  signed char *bc = insdg_malloc(3 * (size_t)K);
  for (int i = 0; i < 3 * K; ++i) bc[i] = m->face_bnd[i] < 0 ? INSDG_BC_INTERIOR : INSDG_BC_DIRICHLET;
  double *bh = insdg_malloc(sizeof(double) * n), *zero = insdg_calloc(n, sizeof(double));
  for (size_t k = 0; k < n; ++k) zero[k] = 2 * PI * PI * sin(PI * m->x[k]) * sin(PI * m->y[k]);   /* f */
  insdg_mesh_weak_form(m, zero, bh);   /* b = J M f */
  for (size_t k = 0; k < n; ++k) zero[k] = 0;
  insdg_dfield *b = insdg_dfield_create(&T), *x = insdg_dfield_create(&T), *ux = insdg_dfield_create(&T),
               *uy = insdg_dfield_create(&T);
  insdg_dfield_set(b, bh);
  insdg_sipdg_ctx actx = {bc, 0.0, ux, uy};
  insdg_linop A = {insdg_sipdg_apply, &actx};

  /* Jacobi */
  double *dinv = insdg_sipdg_inverse_diagonal(&T, bc, 0.0);
  insdg_linop J = {insdg_jacobi_apply, dinv};
  insdg_pcg_opts o = {.rtol = 1e-8, .maxit = 5000};
  insdg_dfield_set(x, zero);
  insdg_pcg_result r = insdg_pcg(&T, A, &J, b, x, &o);
  out.it_jacobi = r.converged ? r.iterations : -r.iterations;

  /* pMG-AMG */
  double t0 = insdg_wtime();
  insdg_pmg *pmg = insdg_pmg_create(&T, mesh, bc, 0.0, NULL);
  insdg_tasks_wait(&T);
  out.setup_pmg = insdg_wtime() - t0;
  out.mem_pmg = (double)insdg_pmg_memory(pmg) / K;
  insdg_linop P = {insdg_pmg_apply, pmg};
  o.flexible = 1;
  insdg_dfield_set(x, zero);
  t0 = insdg_wtime();
  r = insdg_pcg(&T, A, &P, b, x, &o);
  insdg_tasks_wait(&T);
  out.solve_pmg = insdg_wtime() - t0;
  out.it_pmg = r.converged ? r.iterations : -r.iterations;
  insdg_pmg_destroy(pmg);

  /* full AMG on the assembled degree-N matrix (serial, rank 0's numbers) */
  t0 = insdg_wtime();
  insdg_csr *AN = insdg_assemble_sipdg(m, op, bc, 0.0);
  insdg_amg *amg = insdg_amg_setup(AN, NULL);
  out.setup_amg = insdg_wtime() - t0;
  out.mem_amg = (double)(insdg_csr_memory(AN) + insdg_amg_memory(amg)) / K;
  double *xs = insdg_calloc(n, sizeof(double));
  int its = 0;
  t0 = insdg_wtime();
  const int status = insdg_fpcg_csr(AN, bh, xs, insdg_amg_precondition, amg, 1e-8, 5000, &its, NULL);
  out.solve_amg = insdg_wtime() - t0;
  out.it_amg = status == 0 ? its : -its;
  insdg_amg_destroy(amg), insdg_csr_destroy(AN);

  free(xs), free(dinv), free(bh), free(zero), free(bc);
  insdg_dfield_destroy(b), insdg_dfield_destroy(x), insdg_dfield_destroy(ux), insdg_dfield_destroy(uy);
  insdg_tasks_fini(&T);
  insdg_layout_destroy(L);
  insdg_ops_destroy(op);
  insdg_ref_destroy(ref);
  return out;
}

int main(int argc, char **argv)
{
  char err[INSDG_ERRMSG_LEN];
  if (insdg_runtime_init(&argc, &argv, NULL, err, sizeof err)) insdg_die_user(err);
  int nmax = 8, nx = 12, nblocks = 4;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--nmax") && i + 1 < argc) nmax = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--nx") && i + 1 < argc) nx = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--blocks") && i + 1 < argc) nblocks = atoi(argv[++i]);
    else insdg_die_user("usage: bench_solvers [--nmax NMAX] [--nx NX] [--blocks B]");
  }
  insdg_mesh *coarse = insdg_mesh_rectangle(nx, nx, 0.0, 1.0, 0.0, 1.0, 0.15, 17u);
  insdg_mesh *fine = insdg_mesh_refine(coarse);
  const int rank = insdg_runtime_rank();
  if (rank == 0) {
    printf("# %s; %d rank(s) x %d worker(s), %d blocks; Poisson, Dirichlet, PCG to 1e-8\n", insdg_roofline_cpu_name(),
           insdg_runtime_size(), insdg_runtime_workers(), nblocks);
    printf("# meshes: jittered %dx%d square (%d triangles) and its uniform refinement (%d)\n", nx, nx, coarse->K, fine->K);
    printf("| N | K | Jacobi it | pMG-AMG it | full AMG it | pMG setup s | pMG solve s | AMG setup s | AMG solve s | pMG kB/elem | full AMG kB/elem |\n");
    printf("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  }
  for (int N = 1; N <= nmax; ++N)
    for (int k = 0; k < 2; ++k) {
      insdg_mesh *m = k ? fine : coarse;
      const row r = run(m, N, nblocks);
      if (rank == 0)
        printf("| %d | %d | %d | %d | %d | %.3f | %.3f | %.3f | %.3f | %.1f | %.1f |\n", N, m->K, r.it_jacobi, r.it_pmg,
               r.it_amg, r.setup_pmg, r.solve_pmg, r.setup_amg, r.solve_amg, r.mem_pmg / 1024, r.mem_amg / 1024);
      fflush(stdout);
    }
  insdg_mesh_destroy(coarse), insdg_mesh_destroy(fine);
  insdg_runtime_shutdown();
  return 0;
}
