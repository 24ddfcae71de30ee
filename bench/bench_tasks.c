/* bench_tasks.c -- what the task runtime costs: time per operator application through
 * the StarPU task graph against the bare kernels, for 1, 4 and 16 blocks per worker.
 *
 * One rank (run it without mpirun or with -np 1). For each N and blocks-per-worker count
 * the SIPDG operator (pack u, local gradient, pack ux and uy, SIPDG: 4 tasks per block
 * plus the packs per pair) and the advection operator N(U) (packs, volume, surface) are
 * applied REPS times through the graph and waited for; the bare kernels are applied to
 * the same blocks one after the other on one thread (halos filled beforehand, untimed).
 * Reported: ms per application, the ideal (bare / workers), the overhead per task
 * ((graph - ideal) x workers / tasks: what a task costs beyond its kernel, packs
 * included), and the efficiency ideal / graph.
 *
 * In a CPU-only build the graph runs on the rank's own threads (direct execution,
 * tasks/direct.h); INSDG_DIRECT=0 measures StarPU's scheduler instead.
 *
 * Usage: bench_tasks [--k K] [--reps R]     (STARPU_NCPU sets the worker count)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "block.h"
#include "dfield.h"
#include "error.h"
#include "mesh.h"
#include "ops.h"
#include "ops_tasks.h"
#include "partition.h"
#include "roofline.h"
#include "runtime.h"

/* The same kernels on the same blocks, one after the other on one thread, with the halos
   filled beforehand (not timed): the work the graph has to schedule, without the graph. */
static double bare_time(const insdg_layout *L, const insdg_ops *op, int which, int reps)
{
  const insdg_mesh *m = L->mesh;
  const size_t n = (size_t)m->K * m->ref->Np;
  double *u = insdg_malloc(sizeof(double) * n), *v = insdg_malloc(sizeof(double) * n);
  double *o1 = insdg_malloc(sizeof(double) * n), *o2 = insdg_malloc(sizeof(double) * n), *o3 = insdg_malloc(sizeof(double) * n);
  for (size_t i = 0; i < n; ++i) u[i] = sin(m->x[i]), v[i] = cos(m->y[i]);
  signed char *bc = insdg_calloc(3 * (size_t)m->K, 1);
  for (int i = 0; i < 3 * m->K; ++i) bc[i] = m->face_bnd[i] < 0 ? INSDG_BC_INTERIOR : INSDG_BC_DIRICHLET;
  double **halo = insdg_malloc(sizeof(double *) * 4 * (size_t)L->B);
  for (int b = 0; b < L->B; ++b)
    for (int k = 0; k < 4; ++k) halo[4 * b + k] = insdg_calloc((size_t)L->block[b]->nhalo + 1, sizeof(double));
  for (int b = 0; b < L->B; ++b) insdg_block_gather_halo(L->block[b], u, halo[4 * b]), insdg_block_gather_halo(L->block[b], v, halo[4 * b + 1]);
  double best = INFINITY;
  for (int r = 0; r < reps + 1; ++r) {
    const double t0 = insdg_wtime();
    for (int b = 0; b < L->B; ++b) {
      const insdg_block *blk = L->block[b];
      const size_t off = (size_t)L->block_start[b] * m->ref->Np;
      double **h = halo + 4 * b;
      if (which == 0) {
        insdg_op_local_gradient(op, blk, u + off, o1 + off, o2 + off);
        insdg_op_sipdg(op, blk, bc + 3 * (size_t)L->block_start[b], 1.0, u + off, o1 + off, o2 + off, h[0], h[2], h[3], o3 + off);
      } else {
        insdg_vec_in U = {u + off, v + off, h[0], h[1], NULL, NULL};
        insdg_op_advection(op, blk, bc + 3 * (size_t)L->block_start[b], &U, o1 + off, o2 + off);
      }
    }
    if (r > 0) best = fmin(best, insdg_wtime() - t0);
  }
  for (int i = 0; i < 4 * L->B; ++i) free(halo[i]);
  free(halo), free(u), free(v), free(o1), free(o2), free(o3), free(bc);
  return best;
}

int main(int argc, char **argv)
{
  char err[INSDG_ERRMSG_LEN];
  if (insdg_runtime_init(&argc, &argv, NULL, err, sizeof err)) insdg_die_user(err);
  int K = 20000, reps = 10;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--k") && i + 1 < argc) K = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
    else insdg_die_user("usage: bench_tasks [--k K] [--reps R]");
  }
  const int workers = insdg_runtime_workers(), nx = (int)ceil(sqrt(K / 2.0));
  insdg_mesh *mesh = insdg_mesh_rectangle(nx, nx, 0.0, 1.0, 0.0, 1.0, 0.2, 7u);
  printf("# CPU: %s; %d StarPU CPU worker(s), 1 rank; mesh %d triangles; best of %d\n",
         insdg_roofline_cpu_name(), workers, mesh->K, reps);
  printf("%2s %-10s %6s %7s %7s %11s %11s %11s %10s %8s\n", "N", "operator", "blocks", "tasks", "", "graph ms",
         "bare ms", "ideal ms", "us/task", "effic.");
  static const char *names[2] = {"SIPDG", "N(U)"};
  const int Ns[2] = {2, 5};
  for (int in = 0; in < 2; ++in) {
    insdg_ref *ref = insdg_ref_create(Ns[in]);
    insdg_ops *op = insdg_ops_create(ref);
    insdg_mesh_set_ref(mesh, ref);
    const int per_worker[3] = {1, 4, 16};
    for (int ip = 0; ip < 3; ++ip) {
      const int B = per_worker[ip] * workers;
      insdg_layout *L;
      if (insdg_layout_create(mesh, ref, 1, B, &L, err, sizeof err)) insdg_die_user(err);
      insdg_tasks T;
      insdg_tasks_init(&T, L, op);
      const insdg_mesh *rm = L->mesh;
      const size_t n = (size_t)rm->K * ref->Np;
      double *init = insdg_malloc(sizeof(double) * n);
      signed char *bc = insdg_malloc(3 * (size_t)rm->K);
      for (int i = 0; i < 3 * rm->K; ++i) bc[i] = rm->face_bnd[i] < 0 ? INSDG_BC_INTERIOR : INSDG_BC_DIRICHLET;
      insdg_dfield *u = insdg_dfield_create(&T), *v = insdg_dfield_create(&T), *a = insdg_dfield_create(&T),
                   *b = insdg_dfield_create(&T), *c = insdg_dfield_create(&T);
      for (size_t i = 0; i < n; ++i) init[i] = sin(rm->x[i]);
      insdg_dfield_set(u, init);
      for (size_t i = 0; i < n; ++i) init[i] = cos(rm->y[i]);
      insdg_dfield_set(v, init);
      for (int which = 0; which < 2; ++which) {
        /* tasks per application: packs per pair per packed field, plus block tasks */
        const int ntasks = which == 0 ? 3 * L->npairs + 2 * B : 2 * L->npairs + 2 * B;
        /* graph and bare kernels alternate, so that both see the same machine (this VM's
           speed drifts by up to 2x over seconds) */
        double best = INFINITY, bare = INFINITY;
        for (int r = 0; r < reps + 1; ++r) {   /* first application warms up */
          bare = fmin(bare, bare_time(L, op, which, 1));
          const double t0 = insdg_wtime();
          if (which == 0) insdg_task_sipdg(bc, 1.0, u, a, b, c);
          else insdg_task_advection(bc, NULL, NULL, u, v, a, b);
          insdg_tasks_wait(&T);
          if (r > 0) best = fmin(best, insdg_wtime() - t0);
        }
        const double ideal = bare / workers;
        printf("%2d %-10s %6d %7d %7s %11.3f %11.3f %11.3f %10.2f %7.0f%%\n", Ns[in], names[which], B, ntasks, "",
               1e3 * best, 1e3 * bare, 1e3 * ideal, 1e6 * (best - ideal) / ntasks * workers,
               100 * ideal / best);
        fflush(stdout);
      }
      insdg_dfield_destroy(u), insdg_dfield_destroy(v), insdg_dfield_destroy(a), insdg_dfield_destroy(b),
          insdg_dfield_destroy(c);
      free(init), free(bc);
      insdg_tasks_fini(&T);
      insdg_layout_destroy(L);
    }
    insdg_ops_destroy(op);
    insdg_ref_destroy(ref);
  }
  insdg_mesh_destroy(mesh);
  insdg_runtime_shutdown();
  return 0;
}
