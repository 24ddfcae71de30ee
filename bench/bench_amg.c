/* bench_amg.c -- full AMG on the assembled degree-N SIPDG Poisson matrix (paper §3 and
 * its Figure "VortexPreconditioner": iterations, time and memory per element against N,
 * on a mesh and its 2x refinement). Numbers for docs/amg.md.
 *
 * For each mesh (jittered unit squares, cells x cells and 2cells x 2cells, Dirichlet on
 * every side, lambda = 0) and N = 1..nmax: assemble by probing, set up the AMG with the
 * default options, and solve A x = b (b pseudo-random, fixed seed; x0 = 0) by flexible
 * PCG to ||r|| <= 1e-8 ||b||. Times are wall-clock seconds on one core, best of `reps`
 * repetitions. Prints a markdown table, then one of the alternatives to each default
 * choice (strength, Chebyshev interval and degree, K-cycle depth) for N = 1, 3 on the
 * finer mesh.
 *
 * Usage: bench_amg [cells=40] [nmax=4] [reps=3]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "amg.h"
#include "assemble.h"
#include "block.h"
#include "csr.h"
#include "error.h"
#include "mesh.h"
#include "ops.h"
#include "ref_tri.h"
#include "roofline.h"

static double uniform(unsigned *state)
{
  *state = *state * 1664525u + 1013904223u;
  return 2.0 * ((*state >> 8) / 16777216.0) - 1.0;
}

typedef struct {
  int cells, N, K, n, nnz, levels, iters;
  double complexity, t_assemble, t_setup, t_solve, relres, amg_bytes, matrix_bytes;
} result;

static insdg_csr *assemble(insdg_mesh *m, const insdg_ops *op)
{
  signed char codes[INSDG_MAX_BOUNDARIES], *bc = insdg_malloc(3 * (size_t)m->K);
  for (int i = 0; i < INSDG_MAX_BOUNDARIES; ++i) codes[i] = INSDG_BC_DIRICHLET;
  insdg_block *b = insdg_block_create(m, 0, m->K);
  insdg_block_bc_codes(b, codes, bc);
  insdg_block_destroy(b);
  insdg_csr *A = insdg_assemble_sipdg(m, op, bc, 0.0);
  free(bc);
  return A;
}

static result run(int cells, int N, int reps, const insdg_amg_opts *opts)
{
  result res = {.cells = cells, .N = N, .t_assemble = INFINITY, .t_setup = INFINITY, .t_solve = INFINITY};
  insdg_mesh *m = insdg_mesh_rectangle(cells, cells, 0.0, 1.0, 0.0, 1.0, 0.2, 1234u);
  insdg_ref *ref = insdg_ref_create(N);
  insdg_ops *op = insdg_ops_create(ref);
  insdg_mesh_set_ref(m, ref);
  double t = insdg_wtime();
  insdg_csr *A = assemble(m, op);
  res.t_assemble = insdg_wtime() - t;
  insdg_amg *amg = NULL;
  for (int r = 0; r < reps; ++r) {
    insdg_amg_destroy(amg);
    t = insdg_wtime();
    amg = insdg_amg_setup(A, opts);
    res.t_setup = fmin(res.t_setup, insdg_wtime() - t);
  }
  const int n = A->nrows;
  double *b = insdg_malloc(sizeof(double) * (size_t)n), *x = insdg_malloc(sizeof(double) * (size_t)n);
  unsigned state = 77u;
  for (int i = 0; i < n; ++i) b[i] = uniform(&state);
  for (int r = 0; r < reps; ++r) {
    for (int i = 0; i < n; ++i) x[i] = 0.0;
    t = insdg_wtime();
    insdg_fpcg_csr(A, b, x, insdg_amg_precondition, amg, 1e-8, 500, &res.iters, &res.relres);
    res.t_solve = fmin(res.t_solve, insdg_wtime() - t);
  }
  res.K = m->K, res.n = n, res.nnz = A->nnz, res.levels = insdg_amg_levels(amg);
  res.complexity = insdg_amg_operator_complexity(amg);
  res.amg_bytes = (double)insdg_amg_memory(amg), res.matrix_bytes = (double)insdg_csr_memory(A);
  free(b), free(x);
  insdg_amg_destroy(amg);
  insdg_csr_destroy(A);
  insdg_ops_destroy(op), insdg_ref_destroy(ref), insdg_mesh_destroy(m);
  return res;
}

/* the choices of docs/amg.md against their alternatives, on the finer mesh */
static void ablation(int cells, int reps)
{
  struct { const char *name; insdg_amg_opts opts; } variants[] = {
      {"default (signed row-relative theta 0.7, Chebyshev [0.1, 1.1] rho, K-cycle on 2 levels)", {.theta = 0}},
      {"V-cycle on every level", {.kcycle_levels = -1}},
      {"K-cycle on the finest level only", {.kcycle_levels = 1}},
      {"K-cycle on 4 levels", {.kcycle_levels = 4}},
      {"classical strength, theta 0.08", {.strength = INSDG_AMG_STRENGTH_CLASSICAL}},
      {"classical strength, theta 0.25", {.strength = INSDG_AMG_STRENGTH_CLASSICAL, .theta = 0.25}},
      {"signed row-relative theta 0.5", {.theta = 0.5}},
      {"signed row-relative theta 0.9", {.theta = 0.9}},
      {"Chebyshev on [0.3, 1.1] rho", {.cheb_lower = 0.3}},
      {"Chebyshev degree 3", {.cheb_degree = 3}},
  };
  printf("\n# variants on the %dx%d mesh\n\n", cells, cells);
  printf("| variant | N | levels | op. complexity | setup s | iterations | solve s |\n|---|---|---|---|---|---|---|\n");
  for (size_t v = 0; v < sizeof variants / sizeof variants[0]; ++v)
    for (int N = 1; N <= 3; N += 2) {
      const result r = run(cells, N, reps, &variants[v].opts);
      printf("| %s | %d | %d | %.3f | %.3f | %d%s | %.3f |\n", variants[v].name, N, r.levels, r.complexity, r.t_setup,
             r.iters, r.relres <= 1e-8 ? "" : " (not converged)", r.t_solve);
      fflush(stdout);
    }
}

int main(int argc, char **argv)
{
  const int cells = argc > 1 ? atoi(argv[1]) : 40, nmax = argc > 2 ? atoi(argv[2]) : 4;
  const int reps = argc > 3 ? atoi(argv[3]) : 3;
  if (cells < 1 || nmax < 1 || nmax > INSDG_NMAX || reps < 1) {
    fprintf(stderr, "usage: bench_amg [cells>=1] [nmax 1..%d] [reps>=1]\n", INSDG_NMAX);
    return 2;
  }
  printf("# full AMG, SIPDG Poisson (Dirichlet), jittered unit square, FPCG to 1e-8, one core: %s\n\n",
         insdg_roofline_cpu_name());
  printf("| mesh | K | N | unknowns | nnz/row | levels | op. complexity | assembly s | setup s | iterations | "
         "solve s | s/iteration | matrix B/K | AMG B/K | (matrix+AMG) kB/K |\n");
  printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (int refine = 0; refine < 2; ++refine)
    for (int N = 1; N <= nmax; ++N) {
      const result r = run(cells << refine, N, reps, NULL);
      printf("| %dx%d | %d | %d | %d | %.1f | %d | %.3f | %.3f | %.3f | %d%s | %.3f | %.2e | %.0f | %.0f | %.1f |\n",
             r.cells, r.cells, r.K, r.N, r.n, (double)r.nnz / r.n, r.levels, r.complexity, r.t_assemble, r.t_setup,
             r.iters, r.relres <= 1e-8 ? "" : " (not converged)", r.t_solve, r.t_solve / (r.iters ? r.iters : 1),
             r.matrix_bytes / r.K, r.amg_bytes / r.K, (r.matrix_bytes + r.amg_bytes) / r.K / 1e3);
      fflush(stdout);
    }
  ablation(2 * cells, reps);
  return 0;
}
