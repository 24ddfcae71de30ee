/* demo.c -- the operator demonstration (demo.h).
 *
 * Fields: p = cos(pi x) sin(pi y) and the divergence-free u = (sin(pi x) cos(pi y),
 * -cos(pi x) sin(pi y)), with exact Dirichlet data on every boundary. Through the task
 * graph: G p, D u, N(U) = (u.grad)u, and the SIPDG A p, compared on interior elements
 * with J M (-Lap p + p). Rank 0 prints the L2 errors; all ranks write the fields into one
 * NetCDF-UGRID file.
 */
#include "demo.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dfield.h"
#include "error.h"
#include "gmsh.h"
#include "mesh.h"
#include "ops_tasks.h"
#include "partition.h"
#include "runtime.h"
#include "ugrid.h"

static const double PI = 3.14159265358979323846;

static double p_exact(double x, double y) { return cos(PI * x) * sin(PI * y); }
static double px_exact(double x, double y) { return -PI * sin(PI * x) * sin(PI * y); }
static double py_exact(double x, double y) { return PI * cos(PI * x) * cos(PI * y); }
static double u_exact(double x, double y) { return sin(PI * x) * cos(PI * y); }
static double v_exact(double x, double y) { return -cos(PI * x) * sin(PI * y); }
static double zero(double x, double y) { (void)x, (void)y; return 0; }
static double adv_u_exact(double x, double y) { (void)y; return 0.5 * PI * sin(2 * PI * x); }
static double adv_v_exact(double x, double y) { (void)x; return 0.5 * PI * sin(2 * PI * y); }
/* -Lap p + p */
static double helmholtz_exact(double x, double y) { return (2 * PI * PI + 1) * p_exact(x, y); }

/* L2 norm of (values - exact) over elements, optionally interior ones only; values are
   nodal, or weak-form J M w when weak (then M^{-1}/J is applied first) */
static double l2_error(const insdg_mesh *m, const double *val, double (*exact)(double, double), int weak,
                       int interior_only)
{
  const insdg_ref *r = m->ref;
  const int Np = r->Np;
  double *d = insdg_malloc(sizeof(double) * Np), sum = 0;
  for (int e = 0; e < m->K; ++e) {
    if (interior_only && (m->face_bnd[3 * e] >= 0 || m->face_bnd[3 * e + 1] >= 0 || m->face_bnd[3 * e + 2] >= 0))
      continue;
    const double J = m->vgeo[e * INSDG_NVGEO + INSDG_J];
    for (int i = 0; i < Np; ++i) {
      double w = val[(size_t)e * Np + i];
      if (weak) {
        w = 0;
        for (int j = 0; j < Np; ++j) w += r->invM[i * Np + j] * val[(size_t)e * Np + j] / J;
      }
      d[i] = w - exact(m->x[(size_t)e * Np + i], m->y[(size_t)e * Np + i]);
    }
    for (int i = 0; i < Np; ++i)
      for (int j = 0; j < Np; ++j) sum += J * d[i] * r->M[i * Np + j] * d[j];
  }
  free(d);
  return sqrt(sum);
}

static void sample(const insdg_mesh *m, double (*f)(double, double), double *out)
{
  for (size_t i = 0; i < (size_t)m->K * m->ref->Np; ++i) out[i] = f(m->x[i], m->y[i]);
}

static void face_data(const insdg_mesh *m, const double *field, double *g)
{
  const insdg_ref *r = m->ref;
  for (int e = 0; e < m->K; ++e)
    for (int k = 0; k < 3 * r->Nfp; ++k) g[(size_t)e * 3 * r->Nfp + k] = field[(size_t)e * r->Np + r->face_nodes[k]];
}

enum { F_P, F_U, F_V, F_PX, F_PY, F_DIV, F_NU, F_NV, F_AP, F_UX, F_UY, NFIELDS };
static const struct { const char *name, *units, *description; } field_info[] = {
    {"p", "m2 s-2", "pressure-like field cos(pi x) sin(pi y)"},
    {"u", "m s-1", "velocity x, sin(pi x) cos(pi y)"},
    {"v", "m s-1", "velocity y, -cos(pi x) sin(pi y)"},
    {"dpdx", "m s-2", "DG gradient G p, x component (central flux)"},
    {"dpdy", "m s-2", "DG gradient G p, y component (central flux)"},
    {"div_u", "s-1", "DG divergence D u (central flux); exactly 0 for the continuous field"},
    {"adv_u", "m s-2", "DG advection N(U), x component (cubature, local Lax-Friedrichs)"},
    {"adv_v", "m s-2", "DG advection N(U), y component (cubature, local Lax-Friedrichs)"},
    {"sipdg_p", "m2 s-2", "SIPDG operator J M (-Lap + 1) p, weak form, homogeneous Dirichlet"},
};
enum { NOUTPUT = 9 };

static int write_output(const insdg_demo_opts *o, const insdg_layout *L, insdg_dfield **f, char *err, size_t errlen)
{
  const int Np = L->mesh->ref->Np;
  double *local[NOUTPUT];
  int e_begin = 0, e_end = 0;
  for (int k = 0; k < NOUTPUT; ++k) {
    local[k] = insdg_malloc(sizeof(double) * (size_t)L->mesh->K * Np);
    insdg_dfield_local(f[k], local[k], &e_begin, &e_end);
  }
  insdg_ugrid *w = NULL;
  int status = insdg_ugrid_create(MPI_COMM_WORLD, o->output, L->mesh, e_begin, e_end, "insdg operator demonstration",
                                  &w, err, errlen);
  for (int k = 0; k < NOUTPUT && !status; ++k)
    status = insdg_ugrid_add_field(w, field_info[k].name, field_info[k].units, field_info[k].description, err, errlen);
  if (!status) status = insdg_ugrid_write(w, 0.0, (const double *const *)local, err, errlen);
  if (w && insdg_ugrid_close(w, status ? NULL : err, status ? 0 : errlen) && !status) status = 1;
  for (int k = 0; k < NOUTPUT; ++k) free(local[k]);
  return status;
}

/* A user error seen by every rank: one message (rank 0's), status 2 everywhere. */
static void die_collective(int rank, const char *msg)
{
  if (rank == 0) insdg_die_user(msg);
  exit(INSDG_EXIT_USER);
}

int insdg_demo_run(int *argc, char ***argv, const insdg_demo_opts *o)
{
  char err[INSDG_ERRMSG_LEN];
  if (insdg_runtime_init(argc, argv, NULL, err, sizeof err)) insdg_die_user(err);
  const int rank = insdg_runtime_rank(), size = insdg_runtime_size();
  insdg_mesh *mesh;
  if (insdg_mesh_read(o->mesh_path, &mesh, err, sizeof err)) die_collective(rank, err);
  insdg_ref *ref = insdg_ref_create(o->order);
  insdg_ops *op = insdg_ops_create(ref);
  const int nblocks = o->blocks > 0 ? o->blocks : 4 * size;
  insdg_layout *L;
  if (insdg_layout_create(mesh, ref, size, nblocks, &L, err, sizeof err)) die_collective(rank, err);
  insdg_tasks T;
  insdg_tasks_init(&T, L, op);

  const insdg_mesh *rm = L->mesh;
  const size_t n = (size_t)rm->K * ref->Np, nf = (size_t)rm->K * 3 * ref->Nfp;
  double *host = insdg_malloc(sizeof(double) * n), *gp = insdg_malloc(sizeof(double) * nf),
         *gu = insdg_malloc(sizeof(double) * nf), *gv = insdg_malloc(sizeof(double) * nf);
  signed char *bc = insdg_malloc(3 * (size_t)rm->K);
  for (int i = 0; i < 3 * rm->K; ++i) bc[i] = rm->face_bnd[i] < 0 ? INSDG_BC_INTERIOR : INSDG_BC_DIRICHLET;
  insdg_dfield *f[NFIELDS];
  for (int k = 0; k < NFIELDS; ++k) f[k] = insdg_dfield_create(&T);
  double (*init[3])(double, double) = {p_exact, u_exact, v_exact};
  double *g[3] = {gp, gu, gv};
  for (int k = 0; k < 3; ++k) sample(rm, init[k], host), face_data(rm, host, g[k]), insdg_dfield_set(f[k], host);

  insdg_task_gradient(bc, gp, f[F_P], f[F_PX], f[F_PY]);
  insdg_task_divergence(bc, gu, gv, f[F_U], f[F_V], f[F_DIV]);
  insdg_task_advection(bc, gu, gv, f[F_U], f[F_V], f[F_NU], f[F_NV]);
  insdg_task_sipdg(bc, 1.0, f[F_P], f[F_UX], f[F_UY], f[F_AP]);
  insdg_tasks_wait(&T);

  /* errors on the original mesh, printed by rank 0 */
  insdg_mesh_set_ref(mesh, ref);
  struct { int field; double (*exact)(double, double); int weak, interior; const char *what; } report[] = {
      {F_PX, px_exact, 0, 0, "gradient    G p   x"}, {F_PY, py_exact, 0, 0, "gradient    G p   y"},
      {F_DIV, zero, 0, 0, "divergence  D u    "}, {F_NU, adv_u_exact, 0, 0, "advection   N(U) x"},
      {F_NV, adv_v_exact, 0, 0, "advection   N(U) y"}, {F_AP, helmholtz_exact, 1, 1, "SIPDG (-L+1) p (interior elements)"}};
  if (rank == 0)
    printf("insdg demo: %s, K = %d, N = %d, %d rank(s), %d blocks, %d worker(s) per rank\n", o->mesh_path, rm->K,
           o->order, size, L->B, insdg_runtime_workers());
  for (size_t k = 0; k < sizeof report / sizeof report[0]; ++k) {
    insdg_dfield_gather(f[report[k].field], host);
    const double e = l2_error(mesh, host, report[k].exact, report[k].weak, report[k].interior);
    if (rank == 0) printf("  %-36s L2 error %.3e\n", report[k].what, e);
  }
  int status = 0;
  if (o->output) {
    status = write_output(o, L, f, err, sizeof err);
    if (rank == 0 && status) fprintf(stderr, "insdg: error: %s\n", err);
    if (rank == 0 && !status) printf("  wrote %s\n", o->output);
  }
  for (int k = 0; k < NFIELDS; ++k) insdg_dfield_destroy(f[k]);
  free(host), free(gp), free(gu), free(gv), free(bc);
  insdg_tasks_fini(&T);
  insdg_layout_destroy(L);
  insdg_ops_destroy(op);
  insdg_ref_destroy(ref);
  insdg_mesh_destroy(mesh);
  insdg_runtime_shutdown();
  return status ? INSDG_EXIT_USER : 0;
}
