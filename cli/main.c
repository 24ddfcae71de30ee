/* main.c -- the insdg command line.
 *
 *   insdg mesh FILE.msh [--order N]   read and check a Gmsh mesh, print its summary
 *   insdg demo FILE.msh [--order N] [--blocks B] [--output FILE.nc]
 *                                     apply the paper's operators (G, D, A, N(U)) as a
 *                                     StarPU task graph on B blocks (under mpirun for
 *                                     several ranks), report their errors against exact
 *                                     derivatives and write the fields to NetCDF-UGRID
 *   insdg run CASE.ini [--output DIR] [--blocks B] [--progress auto|line|log]
 *                                     run the case (docs/case_file.md, docs/user_guide.md):
 *                                     fields, diagnostics.csv and summary.json in DIR (default:
 *                                     the case's [case] output); B blocks in all (default one
 *                                     per worker of a rank); progress as one line on a terminal or log
 *                                     lines. --restart FILE continues from a checkpoint
 *                                     (written every checkpoint interval and on SIGTERM
 *                                     or SIGUSR1, into the output directory)
 *   insdg version
 *
 * User errors (bad file, bad option) print one line and exit with status 2.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demo.h"
#include "error.h"
#include "mesh.h"
#include "ref_tri.h"
#include "run.h"

static void usage_error(const char *what)
{
  char msg[INSDG_ERRMSG_LEN];
  snprintf(msg, sizeof msg,
           "%s (usage: insdg mesh FILE.msh [--order N] | insdg demo FILE.msh [--order N] [--blocks B]"
           " [--output FILE.nc] | insdg run CASE.ini [--output DIR] [--blocks B] [--progress auto|line|log])",
           what);
  insdg_die_user(msg);
}

static int parse_int(const char *key, const char *text, int lo, int hi)
{
  char *end;
  const long v = strtol(text, &end, 10);
  if (*text == 0 || *end || v < lo || v > hi) {
    char msg[INSDG_ERRMSG_LEN];
    snprintf(msg, sizeof msg, "%s: '%s' is not an integer in %d..%d", key, text, lo, hi);
    insdg_die_user(msg);
  }
  return (int)v;
}

static insdg_demo_opts parse_options(int argc, char **argv, int allow_run_options)
{
  insdg_demo_opts o = {argv[2], 4, 0, NULL};
  for (int i = 3; i < argc; ++i) {
    const int has_value = i + 1 < argc;
    if (!strcmp(argv[i], "--order") && has_value) o.order = parse_int("--order", argv[++i], 1, INSDG_NMAX);
    else if (allow_run_options && !strcmp(argv[i], "--blocks") && has_value) o.blocks = parse_int("--blocks", argv[++i], 1, 1 << 20);
    else if (allow_run_options && !strcmp(argv[i], "--output") && has_value) o.output = argv[++i];
    else {
      char msg[INSDG_ERRMSG_LEN];
      snprintf(msg, sizeof msg, "unknown option '%s'%s", argv[i], has_value ? "" : " or missing value");
      usage_error(msg);
    }
  }
  return o;
}

static insdg_progress_mode parse_progress(const char *text)
{
  if (!strcmp(text, "auto")) return INSDG_PROGRESS_AUTO;
  if (!strcmp(text, "line")) return INSDG_PROGRESS_LINE;
  if (!strcmp(text, "log")) return INSDG_PROGRESS_LOG;
  char msg[INSDG_ERRMSG_LEN];
  snprintf(msg, sizeof msg, "--progress: '%s' is not one of auto, line, log", text);
  insdg_die_user(msg);
}

/* insdg run CASE.ini [--output DIR] [--blocks B] [--progress auto|line|log] [--restart FILE] */
static insdg_run_opts parse_run_options(int argc, char **argv)
{
  insdg_run_opts o = {argv[2], NULL, 0, INSDG_PROGRESS_AUTO, NULL};
  for (int i = 3; i < argc; ++i) {
    const int has_value = i + 1 < argc;
    if (!strcmp(argv[i], "--output") && has_value) o.output = argv[++i];
    else if (!strcmp(argv[i], "--blocks") && has_value) o.blocks = parse_int("--blocks", argv[++i], 1, 1 << 20);
    else if (!strcmp(argv[i], "--progress") && has_value) o.progress = parse_progress(argv[++i]);
    else if (!strcmp(argv[i], "--restart") && has_value) {
      o.restart = argv[++i];
      FILE *f = fopen(o.restart, "rb");   /* before any work: a checkpoint that is not there */
      if (!f) {
        char msg[INSDG_ERRMSG_LEN];
        snprintf(msg, sizeof msg, "--restart: %s: cannot open the checkpoint", o.restart);
        insdg_die_user(msg);
      }
      fclose(f);
    }
    else {
      char msg[INSDG_ERRMSG_LEN];
      snprintf(msg, sizeof msg, "unknown option '%s'%s", argv[i], has_value ? "" : " or missing value");
      usage_error(msg);
    }
  }
  return o;
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

int main(int argc, char **argv)
{
  if (argc >= 2 && strcmp(argv[1], "version") == 0) {
    printf("insdg 0.1\n");
    return 0;
  }
  if (argc < 3) usage_error("missing command or file");
  if (strcmp(argv[1], "mesh") == 0) return cmd_mesh(argv[2], parse_options(argc, argv, 0).order);
  if (strcmp(argv[1], "demo") == 0) {
    const insdg_demo_opts opts = parse_options(argc, argv, 1);
    return insdg_demo_run(&argc, &argv, &opts);
  }
  if (strcmp(argv[1], "run") == 0) {
    const insdg_run_opts opts = parse_run_options(argc, argv);
    return insdg_run(&argc, &argv, &opts);
  }
  char msg[INSDG_ERRMSG_LEN];
  snprintf(msg, sizeof msg, "unknown command '%s'", argv[1]);
  usage_error(msg);
}
