/* test_tasks.c -- decomposition invariance of the operators run as StarPU tasks.
 *
 * Every operator of ops.h is applied through the task graph on the mesh cut into
 * NBLOCKS blocks over the MPI ranks, gathered in the original element order, and compared
 * with the bare kernels on the whole mesh as one block (rank 0). The per-element
 * arithmetic is the same, so the results must agree to round-off (asserted: 1e-12
 * relative) and in practice bitwise (reported). With --dump FILE rank 0 writes the
 * gathered results, so runs with different worker counts can be compared bitwise.
 *
 * Usage: test_tasks MESH N NBLOCKS [--dump FILE]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "block.h"
#include "dfield.h"
#include "error.h"
#include "gmsh.h"
#include "mesh.h"
#include "ops.h"
#include "ops_tasks.h"
#include "partition.h"
#include "runtime.h"

enum { NOUT = 9 };
static const char *out_name[NOUT] = {"px", "py", "div", "Au", "Nu", "Nv", "Su", "Sv", "ux"};

static double field_value(int which, double x, double y)
{
  switch (which) {
    case 0: return sin(1.3 * x + 0.4) * cos(0.7 * y);        /* p */
    case 1: return sin(2.0 * x) * cos(1.5 * y) + 0.3;        /* u */
    case 2: return -cos(2.0 * x) * sin(1.5 * y) - 0.2;       /* v */
    case 3: return exp(0.5 * x - 0.25 * y);                  /* w */
    default: return 0;
  }
}

/* Inputs on a mesh (any numbering): fields [4][K][Np], bc [K][3], face data [4][K][3Nfp] */
static void make_inputs(const insdg_mesh *m, double **f, signed char *bc, double **g)
{
  const insdg_ref *r = m->ref;
  const size_t n = (size_t)m->K * r->Np;
  for (int k = 0; k < 4; ++k)
    for (size_t i = 0; i < n; ++i) f[k][i] = field_value(k, m->x[i], m->y[i]);
  for (int e = 0; e < m->K; ++e)
    for (int fc = 0; fc < 3; ++fc) {
      const int bnd = m->face_bnd[3 * e + fc];
      bc[3 * e + fc] = bnd < 0 ? INSDG_BC_INTERIOR : (bnd % 2 ? INSDG_BC_NEUMANN : INSDG_BC_DIRICHLET);
      for (int j = 0; j < r->Nfp; ++j) {
        const size_t node = (size_t)e * r->Np + r->face_nodes[fc * r->Nfp + j];
        for (int k = 0; k < 4; ++k) g[k][((size_t)e * 3 + fc) * r->Nfp + j] = 0.5 * f[k][node] + 0.1;
      }
    }
}

/* reference: bare kernels on the whole original mesh as one block */
static void reference(const insdg_mesh *m, const insdg_ops *op, double **out)
{
  const insdg_ref *r = m->ref;
  const size_t n = (size_t)m->K * r->Np, nf = (size_t)m->K * 3 * r->Nfp;
  double *f[4], *g[4], *uy = insdg_malloc(sizeof(double) * n);
  signed char *bc = insdg_malloc(3 * (size_t)m->K);
  for (int k = 0; k < 4; ++k) f[k] = insdg_malloc(sizeof(double) * n), g[k] = insdg_malloc(sizeof(double) * nf);
  make_inputs(m, f, bc, g);
  insdg_block *b = insdg_block_create(m, 0, m->K);
  insdg_op_gradient(op, b, bc, g[0], f[0], NULL, out[0], out[1]);
  insdg_vec_in U = {f[1], f[2], NULL, NULL, g[1], g[2]}, W = {f[3], f[0], NULL, NULL, g[3], g[0]};
  insdg_op_divergence(op, b, bc, &U, out[2]);
  insdg_op_local_gradient(op, b, f[0], out[8], uy);
  insdg_op_sipdg(op, b, bc, 2.5, f[0], out[8], uy, NULL, NULL, NULL, out[3]);
  insdg_op_advection(op, b, bc, &U, out[4], out[5]);
  insdg_op_subcycle(op, b, bc, &U, &W, out[6], out[7]);
  insdg_block_destroy(b);
  for (int k = 0; k < 4; ++k) free(f[k]), free(g[k]);
  free(uy), free(bc);
}

int main(int argc, char **argv)
{
  char err[INSDG_ERRMSG_LEN];
  if (insdg_runtime_init(&argc, &argv, NULL, err, sizeof err)) insdg_die_user(err);
  if (argc < 4) insdg_die_user("usage: test_tasks MESH N NBLOCKS [--dump FILE]");
  const int N = atoi(argv[2]), nblocks = atoi(argv[3]);
  const char *dump = argc >= 6 && !strcmp(argv[4], "--dump") ? argv[5] : NULL;
  const int rank = insdg_runtime_rank(), size = insdg_runtime_size();

  insdg_mesh *mesh;
  if (insdg_mesh_read(argv[1], &mesh, err, sizeof err)) insdg_die_user(err);
  insdg_ref *ref = insdg_ref_create(N);
  insdg_ops *op = insdg_ops_create(ref);
  insdg_layout *L;
  if (insdg_layout_create(mesh, ref, size, nblocks, &L, err, sizeof err)) insdg_die_user(err);
  insdg_tasks T;
  insdg_tasks_init(&T, L, op);

  /* inputs on the renumbered mesh, known to every rank */
  const insdg_mesh *rm = L->mesh;
  const size_t n = (size_t)rm->K * ref->Np, nf = (size_t)rm->K * 3 * ref->Nfp;
  double *f[4], *g[4];
  signed char *bc = insdg_malloc(3 * (size_t)rm->K);
  for (int k = 0; k < 4; ++k) f[k] = insdg_malloc(sizeof(double) * n), g[k] = insdg_malloc(sizeof(double) * nf);
  make_inputs(rm, f, bc, g);
  insdg_dfield *in[4], *out[NOUT], *uy = insdg_dfield_create(&T);
  for (int k = 0; k < 4; ++k) in[k] = insdg_dfield_create(&T), insdg_dfield_set(in[k], f[k]);
  for (int k = 0; k < NOUT; ++k) out[k] = insdg_dfield_create(&T);

  insdg_task_gradient(bc, g[0], in[0], out[0], out[1]);
  insdg_task_divergence(bc, g[1], g[2], in[1], in[2], out[2]);
  insdg_task_sipdg(bc, 2.5, in[0], out[8], uy, out[3]);
  insdg_task_advection(bc, g[1], g[2], in[1], in[2], out[4], out[5]);
  insdg_task_subcycle(bc, g[1], g[2], g[3], g[0], in[1], in[2], in[3], in[0], out[6], out[7]);
  insdg_tasks_wait(&T);

  double *got[NOUT], *want[NOUT];
  for (int k = 0; k < NOUT; ++k) {
    got[k] = insdg_malloc(sizeof(double) * n), want[k] = insdg_malloc(sizeof(double) * n);
    insdg_dfield_gather(out[k], got[k]);
  }
  int failures = 0;
  if (rank == 0) {
    insdg_mesh_set_ref(mesh, ref);
    reference(mesh, op, want);
    for (int k = 0; k < NOUT; ++k) {
      double diff = 0, scale = 0;
      for (size_t i = 0; i < n; ++i) diff = fmax(diff, fabs(got[k][i] - want[k][i])), scale = fmax(scale, fabs(want[k][i]));
      const int bitwise = memcmp(got[k], want[k], sizeof(double) * n) == 0;
      const int ok = diff <= 1e-12 * scale;
      failures += !ok;
      printf("%s %-3s ranks %d blocks %d workers %d: max |tasks - kernels| = %.2e (scale %.2e)%s\n",
             ok ? "ok  " : "FAIL", out_name[k], size, nblocks, insdg_runtime_workers(), diff, scale,
             bitwise ? ", bitwise equal" : "");
    }
    if (dump) {
      FILE *fp = fopen(dump, "wb");
      INSDG_CHECK(fp);
      for (int k = 0; k < NOUT; ++k) INSDG_CHECK(fwrite(got[k], sizeof(double), n, fp) == n);
      fclose(fp);
    }
  }
  MPI_Bcast(&failures, 1, MPI_INT, 0, MPI_COMM_WORLD);
  for (int k = 0; k < 4; ++k) insdg_dfield_destroy(in[k]), free(f[k]), free(g[k]);
  for (int k = 0; k < NOUT; ++k) insdg_dfield_destroy(out[k]), free(got[k]), free(want[k]);
  insdg_dfield_destroy(uy);
  free(bc);
  insdg_tasks_fini(&T);
  insdg_layout_destroy(L);
  insdg_ops_destroy(op);
  insdg_ref_destroy(ref);
  insdg_mesh_destroy(mesh);
  insdg_runtime_shutdown();
  return failures ? 1 : 0;
}
