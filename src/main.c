/* main.c -- the insdg command line.
 *
 *   insdg mesh FILE.msh [--order N]   read and check a Gmsh mesh, print its summary
 *   insdg demo FILE.msh [--order N]   apply the paper's operators (G, D, A, N(U)) to smooth
 *                                     fields on the mesh and report their errors against
 *                                     the exact derivatives: an end-to-end check
 *   insdg version
 *
 * User errors (bad file, bad option) print one line and exit with status 2.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "block.h"
#include "error.h"
#include "mesh.h"
#include "ops.h"
#include "ref_tri.h"

static const double PI = 3.14159265358979323846;

static void usage_error(const char *what)
{
  char msg[INSDG_ERRMSG_LEN];
  snprintf(msg, sizeof msg, "%s (usage: insdg mesh|demo FILE.msh [--order N])", what);
  insdg_die_user(msg);
}

static int parse_order(int argc, char **argv)
{
  int N = 4;
  for (int i = 3; i < argc; ++i) {
    if (strcmp(argv[i], "--order") == 0 && i + 1 < argc) {
      char *end;
      const long v = strtol(argv[++i], &end, 10);
      if (*end || v < 1 || v > INSDG_NMAX) {
        char msg[INSDG_ERRMSG_LEN];
        snprintf(msg, sizeof msg, "--order: '%s' is not an integer in 1..%d", argv[i], INSDG_NMAX);
        insdg_die_user(msg);
      }
      N = (int)v;
    } else {
      char msg[INSDG_ERRMSG_LEN];
      snprintf(msg, sizeof msg, "unknown option '%s'", argv[i]);
      usage_error(msg);
    }
  }
  return N;
}

static insdg_mesh *read_mesh_or_die(const char *path)
{
  insdg_mesh *m;
  char err[INSDG_ERRMSG_LEN];
  if (insdg_mesh_read(path, &m, err, sizeof err)) insdg_die_user(err);
  return m;
}

static int cmd_mesh(const char *path, int N)
{
  insdg_mesh *m = read_mesh_or_die(path);
  insdg_ref *ref = insdg_ref_create(N);
  insdg_mesh_set_ref(m, ref);
  double area = 0, hmin = INFINITY, hmax = 0;
  for (int e = 0; e < m->K; ++e) {
    area += 2 * m->vgeo[e * INSDG_NVGEO + INSDG_J];
    for (int f = 0; f < 3; ++f) {
      const double h = 2 * m->sgeo[(e * 3 + f) * INSDG_NSGEO + INSDG_SJ];
      hmin = fmin(hmin, h), hmax = fmax(hmax, h);
    }
  }
  printf("mesh %s: %d triangles, %d vertices, area %.6g, edge length %.3g .. %.3g\n", path, m->K,
         m->Nv, area, hmin, hmax);
  printf("order N = %d: %d nodes per element, %ld degrees of freedom per field\n", N, ref->Np,
         (long)m->K * ref->Np);
  for (int b = 0; b < m->nbnd; ++b) {
    int nfaces = 0;
    for (int i = 0; i < 3 * m->K; ++i) nfaces += m->face_bnd[i] == b;
    printf("boundary %-16s %d faces\n", m->bnd_name[b], nfaces);
  }
  insdg_mesh_destroy(m);
  insdg_ref_destroy(ref);
  return 0;
}

/* Smooth fields of the demonstration: a pressure and a divergence-free velocity from the
   stream function psi = sin(pi x) sin(pi y) / pi. */
static double p_exact(double x, double y) { return cos(PI * x) * sin(PI * y); }
static double px_exact(double x, double y) { return -PI * sin(PI * x) * sin(PI * y); }
static double py_exact(double x, double y) { return PI * cos(PI * x) * cos(PI * y); }
static double u_exact(double x, double y) { return sin(PI * x) * cos(PI * y); }
static double v_exact(double x, double y) { return -cos(PI * x) * sin(PI * y); }
static double adv_u_exact(double x, double y) { (void)y; return 0.5 * PI * sin(2 * PI * x); }
static double adv_v_exact(double x, double y) { (void)x; return 0.5 * PI * sin(2 * PI * y); }
static double lap_exact(double x, double y) { return -2 * PI * PI * p_exact(x, y); }
static double zero(double x, double y) { (void)x, (void)y; return 0; }

/* sqrt(sum_e J e^T M e) of the difference between nodal values and a function */
static double l2_error(const insdg_mesh *m, const double *val, double (*exact)(double, double))
{
  const insdg_ref *ref = m->ref;
  const int Np = ref->Np;
  double *d = insdg_malloc(sizeof(double) * Np);
  double sum = 0;
  for (int e = 0; e < m->K; ++e) {
    for (int i = 0; i < Np; ++i) d[i] = val[e * Np + i] - exact(m->x[e * Np + i], m->y[e * Np + i]);
    for (int i = 0; i < Np; ++i)
      for (int j = 0; j < Np; ++j) sum += m->vgeo[e * INSDG_NVGEO + INSDG_J] * d[i] * ref->M[i * Np + j] * d[j];
  }
  free(d);
  return sqrt(sum);
}

static double wtime(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static int cmd_demo(const char *path, int N)
{
  insdg_mesh *m = read_mesh_or_die(path);
  insdg_ref *ref = insdg_ref_create(N);
  insdg_mesh_set_ref(m, ref);
  insdg_ops *op = insdg_ops_create(ref);
  insdg_block *b = insdg_block_create(m, 0, m->K);
  const int K = m->K, Np = ref->Np, Nfp = ref->Nfp;
  const size_t n = (size_t)K * Np, nf = (size_t)K * 3 * Nfp;
  double *p = insdg_malloc(sizeof(double) * n), *u = insdg_malloc(sizeof(double) * n),
         *v = insdg_malloc(sizeof(double) * n), *gp = insdg_malloc(sizeof(double) * nf),
         *gu = insdg_malloc(sizeof(double) * nf), *gv = insdg_malloc(sizeof(double) * nf),
         *o1 = insdg_malloc(sizeof(double) * n), *o2 = insdg_malloc(sizeof(double) * n),
         *o3 = insdg_malloc(sizeof(double) * n);
  for (size_t i = 0; i < n; ++i)
    p[i] = p_exact(m->x[i], m->y[i]), u[i] = u_exact(m->x[i], m->y[i]), v[i] = v_exact(m->x[i], m->y[i]);
  for (int e = 0; e < K; ++e)   /* Dirichlet data: exact values at the face nodes */
    for (int k = 0; k < 3 * Nfp; ++k) {
      const size_t i = (size_t)e * Np + ref->face_nodes[k], gi = (size_t)e * 3 * Nfp + k;
      gp[gi] = p[i], gu[gi] = u[i], gv[gi] = v[i];
    }
  signed char *dirichlet = insdg_malloc(3 * (size_t)K), codes[INSDG_MAX_BOUNDARIES];
  for (int i = 0; i < INSDG_MAX_BOUNDARIES; ++i) codes[i] = INSDG_BC_DIRICHLET;
  insdg_block_bc_codes(b, codes, dirichlet);

  printf("insdg demo: %s, K = %d, N = %d, %zu nodes per field\n", path, K, N, n);
  double t = wtime();
  insdg_op_gradient(op, b, dirichlet, gp, p, NULL, o1, o2);
  printf("  gradient    G p        L2 error %.3e %.3e   (%.2f ms)\n", l2_error(m, o1, px_exact),
         l2_error(m, o2, py_exact), 1e3 * (wtime() - t));
  insdg_vec_in U = {u, v, NULL, NULL, gu, gv};
  t = wtime();
  insdg_op_divergence(op, b, dirichlet, &U, o1);
  printf("  divergence  D u        L2 error %.3e             (%.2f ms)\n", l2_error(m, o1, zero),
         1e3 * (wtime() - t));
  t = wtime();
  insdg_op_advection(op, b, dirichlet, &U, o1, o2);
  printf("  advection   N(U)       L2 error %.3e %.3e   (%.2f ms)\n", l2_error(m, o1, adv_u_exact),
         l2_error(m, o2, adv_v_exact), 1e3 * (wtime() - t));
  insdg_op_local_gradient(op, b, p, o1, o2);
  t = wtime();
  insdg_op_sipdg(op, b, dirichlet, 1.0, p, o1, o2, NULL, NULL, NULL, o3);
  const double t_sipdg = wtime() - t;
  /* A is in weak form J M (-Lap + 1) p; undo J M and compare on elements away from the
     boundary (there the homogeneous Dirichlet treatment does not apply to p) */
  double num = 0;
  int interior = 0;
  for (int e = 0; e < K; ++e) {
    if (m->face_bnd[3 * e] >= 0 || m->face_bnd[3 * e + 1] >= 0 || m->face_bnd[3 * e + 2] >= 0) continue;
    ++interior;
    const double J = m->vgeo[e * INSDG_NVGEO + INSDG_J];
    for (int i = 0; i < Np; ++i) {
      double w = 0;
      for (int j = 0; j < Np; ++j) w += ref->invM[i * Np + j] * o3[(size_t)e * Np + j] / J;
      const size_t k = (size_t)e * Np + i;
      o1[k] = w - (-lap_exact(m->x[k], m->y[k]) + p[k]);
    }
    for (int i = 0; i < Np; ++i)
      for (int j = 0; j < Np; ++j) num += J * o1[(size_t)e * Np + i] * ref->M[i * Np + j] * o1[(size_t)e * Np + j];
  }
  printf("  SIPDG       (-L+1) p   L2 error %.3e on %d interior elements   (%.2f ms)\n", sqrt(num), interior,
         1e3 * t_sipdg);
  insdg_block_destroy(b);
  insdg_ops_destroy(op);
  insdg_mesh_destroy(m);
  insdg_ref_destroy(ref);
  free(p), free(u), free(v), free(gp), free(gu), free(gv), free(o1), free(o2), free(o3), free(dirichlet);
  return 0;
}

int main(int argc, char **argv)
{
  if (argc >= 2 && strcmp(argv[1], "version") == 0) {
    printf("insdg 0.1\n");
    return 0;
  }
  if (argc < 3) usage_error("missing command or file");
  const int N = parse_order(argc, argv);
  if (strcmp(argv[1], "mesh") == 0) return cmd_mesh(argv[2], N);
  if (strcmp(argv[1], "demo") == 0) return cmd_demo(argv[2], N);
  char msg[INSDG_ERRMSG_LEN];
  snprintf(msg, sizeof msg, "unknown command '%s'", argv[1]);
  usage_error(msg);
}
