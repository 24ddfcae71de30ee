/* count_ops.c -- a driver for counting the CPU operators' instructions per element with
 * cachegrind: deterministic where bench_ops' times are not (on a host whose other tenants
 * swing even in-cache rows by 2x; docs/performance.md, 2026-12-04). It times nothing.
 *
 * Usage: count_ops N OP CALLS
 *   N: the degree (1..INSDG_NMAX); OP: 1 G, 2 D, 3 SIPDG (lambda 1), as bench_ops numbers
 *   them, 4 SIPDG with lambda 0 (Poisson); CALLS: applications of the operator to one block of
 *   K = 2 048 triangles (a jittered 32 x 32 rectangle in locality order, Dirichlet on every
 *   boundary face; the fields fit in L2 at low N). Prints K, the sum of the output and a hash
 *   of its bits (FNV-1a over the doubles: two builds whose hashes agree computed the same
 *   values bitwise). Instructions per element per call:
 *     valgrind --tool=cachegrind --cache-sim=no build/bench/count_ops N OP C
 *   for C = 0 and C = 20, (Ir(20) - Ir(0)) / (20 K); cg_annotate on a build with -g puts them
 *   on source lines. (Valgrind 3.19 cannot decode all of gcc 12's AVX2 code: the AVX2 SIPDG at
 *   N = 2 stops on a VEX vmovq.)
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "block.h"
#include "error.h"
#include "mesh.h"
#include "ops.h"
#include "partition.h"

int main(int argc, char **argv)
{
  const int N = argc == 4 ? atoi(argv[1]) : 0, which = argc == 4 ? atoi(argv[2]) : 0;
  const int calls = argc == 4 ? atoi(argv[3]) : -1;
  if (N < 1 || N > INSDG_NMAX || which < 1 || which > 4 || calls < 0) {
    fprintf(stderr, "usage: count_ops N(1..%d) OP(1 G, 2 D, 3 SIPDG, 4 SIPDG lambda 0) CALLS(>= 0)\n",
            INSDG_NMAX);
    return 2;
  }
  insdg_ref *ref = insdg_ref_create(N);
  insdg_mesh *m0 = insdg_mesh_rectangle(32, 32, 0.0, 1.0, 0.0, 1.0, 0.2, 11u);
  int *order = insdg_malloc(sizeof(int) * (size_t)m0->K);
  insdg_mesh_locality_order(m0, order);
  insdg_mesh *m = insdg_mesh_renumber(m0, order);
  free(order);
  insdg_mesh_destroy(m0);
  insdg_mesh_set_ref(m, ref);
  insdg_ops *op = insdg_ops_create(ref);
  insdg_block *b = insdg_block_create(m, 0, m->K);
  const size_t n = (size_t)m->K * ref->Np;
  signed char codes[INSDG_MAX_BOUNDARIES], *bc = insdg_malloc(3 * (size_t)m->K);
  for (int i = 0; i < INSDG_MAX_BOUNDARIES; ++i) codes[i] = INSDG_BC_DIRICHLET;
  insdg_block_bc_codes(b, codes, bc);
  double *f[6];
  for (int i = 0; i < 6; ++i) {
    f[i] = insdg_malloc(sizeof(double) * n);
    for (size_t k = 0; k < n; ++k) f[i][k] = sin(0.001 * (double)k + i);
  }
  double *g = insdg_calloc((size_t)m->K * 3 * ref->Nfp, sizeof(double));
  insdg_vec_in U = {f[0], f[1], NULL, NULL, g, g};
  for (int c = 0; c < calls; ++c) {
    if (which == 1) insdg_op_gradient(op, b, bc, g, f[0], NULL, f[4], f[5]);
    else if (which == 2) insdg_op_divergence(op, b, bc, &U, f[4]);
    else insdg_op_sipdg(op, b, bc, which == 3 ? 1.0 : 0.0, f[0], f[2], f[3], NULL, NULL, NULL, f[4]);
  }
  double s = 0;   /* the results used, so no call is dropped */
  uint64_t h = 14695981039346656037u;
  for (size_t k = 0; k < n; ++k) {
    uint64_t w;
    memcpy(&w, &f[4][k], sizeof w);
    s += f[4][k], h = (h ^ w) * 1099511628211u;
  }
  printf("count_ops: N = %d, operator %d, %d calls, K = %d (checksum %.6e, bits %016llx)\n", N, which, calls, m->K, s,
         (unsigned long long)h);
  for (int i = 0; i < 6; ++i) free(f[i]);
  free(g);
  free(bc);
  insdg_block_destroy(b);
  insdg_ops_destroy(op);
  insdg_mesh_destroy(m);
  insdg_ref_destroy(ref);
  return 0;
}
