/* main.c -- the insdg command line (`insdg --help` prints what follows).
 *
 *   insdg run CASE.ini [--output DIR] [--blocks B] [--progress auto|line|log] [--restart FILE]
 *   insdg mesh FILE.msh [--order N]
 *   insdg demo FILE.msh [--order N] [--blocks B] [--output FILE.nc]
 *   insdg --help | insdg COMMAND --help | insdg --version
 *
 * User errors (bad file, bad option) print one line and exit with status 2; the other
 * statuses of `insdg run` are in run.h and docs/user_guide.md "Exit status".
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demo.h"
#include "error.h"
#include "gmsh.h"
#include "curved.h"
#include "mesh.h"
#include "ref_tri.h"
#include "run.h"
#include "version.h"

static const char usage_line[] =
    "usage: insdg run CASE.ini [--output DIR] [--blocks B] [--progress auto|line|log] [--restart FILE]\n"
    "       insdg mesh FILE.msh [--order N]\n"
    "       insdg demo FILE.msh [--order N] [--blocks B] [--output FILE.nc]\n"
    "       insdg --help | insdg COMMAND --help | insdg --version\n";

static const char help_main[] =
    "insdg: a high-order discontinuous Galerkin solver of the incompressible Navier-Stokes\n"
    "equations (StarPU tasks on CPUs and GPUs, MPI ranks).\n\n"
    "%s\n"
    "commands:\n"
    "  run    run a case file: fields (NetCDF-UGRID), diagnostics.csv and summary.json\n"
    "  mesh   read and check a Gmsh mesh, print its summary\n"
    "  demo   apply the operators to exact fields and report their errors\n\n"
    "Several ranks: mpirun -np R insdg run CASE.ini. Documentation: docs/user_guide.md,\n"
    "docs/case_file.md. Exit status: 0 done, 2 bad input (nothing written), 3 stopped by\n"
    "a signal after a checkpoint, 4 a solve did not converge, 5 diverged or not finite,\n"
    "6 an output file could not be written.\n";

static const char help_run[] =
    "usage: insdg run CASE.ini [--output DIR] [--blocks B] [--progress auto|line|log] [--restart FILE]\n\n"
    "Run the case (docs/case_file.md) to its final time. Writes into the output directory\n"
    "fields_<step>.nc, diagnostics.csv (one row per step), checkpoint_<step>.nc and\n"
    "summary.json.\n\n"
    "  --output DIR      the output directory (default: [case] output of the case file)\n"
    "  --blocks B        blocks over all ranks (default: one per worker of a rank)\n"
    "  --progress MODE   auto (a line on a terminal, log lines otherwise), line or log\n"
    "  --restart FILE    continue from a checkpoint written by an earlier run of the same\n"
    "                    case and mesh (bitwise the run it interrupted)\n\n"
    "SIGTERM or SIGUSR1 (Slurm's warning before a time limit): checkpoint and stop, status 3.\n"
    "Exit status: 0 completed, 2 bad input (nothing written), 3 stopped, 4 not converged,\n"
    "5 diverged or not finite, 6 output failed (docs/user_guide.md \"Exit status\").\n";

static const char help_mesh[] =
    "usage: insdg mesh FILE.msh [--order N]\n\n"
    "Read a Gmsh mesh (format 2.2 or 4.1, triangles, boundaries as physical lines), check it\n"
    "and print its size, edge lengths and boundaries; N (default 4) for the node count.\n"
    "A bad mesh: one line naming the file and the element, status 2.\n";

static const char help_demo[] =
    "usage: insdg demo FILE.msh [--order N] [--blocks B] [--output FILE.nc]\n\n"
    "Apply the paper's operators (gradient, divergence, SIPDG, advection) to exact fields on\n"
    "the mesh as a StarPU task graph on B blocks (mpirun for several ranks), print their\n"
    "errors and write the fields to FILE.nc.\n";

static void usage_error(const char *what)
{
  char msg[INSDG_ERRMSG_LEN];
  snprintf(msg, sizeof msg, "%s (run 'insdg --help' for the usage)", what);
  insdg_die_user(msg);
}

/* an argument no option of the command took: its value missing, or not an option at all */
static void option_error(const char *arg, int has_value)
{
  static const char *const known[] = {"--output", "--blocks", "--progress", "--restart", "--order"};
  char msg[INSDG_ERRMSG_LEN];
  for (size_t k = 0; k < sizeof known / sizeof known[0]; ++k)
    if (!strcmp(arg, known[k]) && !has_value) {
      snprintf(msg, sizeof msg, "option '%s' needs a value", arg);
      usage_error(msg);
    }
  if (arg[0] != '-') snprintf(msg, sizeof msg, "unexpected argument '%s' (one case or mesh file, then options)", arg);
  else snprintf(msg, sizeof msg, "unknown option '%s' for this command", arg);
  usage_error(msg);
}

static int is_help(const char *a) { return !strcmp(a, "--help") || !strcmp(a, "-h") || !strcmp(a, "help"); }

/* `insdg COMMAND ... --help` anywhere after the command: its help, status 0 */
static void command_help(int argc, char **argv, const char *text)
{
  for (int i = 2; i < argc; ++i)
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      fputs(text, stdout);
      exit(0);
    }
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
      option_error(argv[i], has_value);
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
      option_error(argv[i], has_value);
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
  double area = insdg_mesh_area(m), hmin = INFINITY, hmax = 0;
  for (int e = 0; e < m->K; ++e) {
    for (int f = 0; f < 3; ++f) {
      const double h = 2 * m->sgeo[(e * 3 + f) * INSDG_NSGEO + INSDG_SJ];
      hmin = fmin(hmin, h), hmax = fmax(hmax, h);
    }
  }
  printf("mesh %s: %d triangles, %d nodes, area %.10g, edge length %.3g .. %.3g\n", path, m->K,
         m->Nv, area, hmin, hmax);
  if (m->curve_q > 1)
    printf("curved: %d boundary faces of order %d, %d elements%s\n", m->ncurves, m->curve_q,
           m->curved ? m->curved->n : 0, m->nstraightened ? " (interior edges the file curves are kept straight)" : "");
  printf("order N = %d: %d nodes per element, %ld degrees of freedom per field\n", N, ref->Np,
         (long)m->K * ref->Np);
  for (int b = 0; b < m->nbnd; ++b) {
    int nfaces = 0, ncurved = 0;
    for (int i = 0; i < 3 * m->K; ++i) nfaces += m->face_bnd[i] == b, ncurved += m->face_bnd[i] == b && m->face_curve && m->face_curve[i] >= 0;
    if (ncurved) printf("boundary %-16s %d faces, %d curved\n", m->bnd_name[b], nfaces, ncurved);
    else printf("boundary %-16s %d faces\n", m->bnd_name[b], nfaces);
  }
  insdg_mesh_destroy(m);
  insdg_ref_destroy(ref);
  return 0;
}

int main(int argc, char **argv)
{
  if (argc >= 2 && (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version"))) {
    printf("%s\n", insdg_version_string());
    return 0;
  }
  if (argc >= 2 && is_help(argv[1])) {
    printf(help_main, usage_line);
    return 0;
  }
  if (argc < 2) usage_error("no command");
  static const struct { const char *name, *help; } commands[] = {{"run", help_run}, {"mesh", help_mesh}, {"demo", help_demo}};
  for (size_t k = 0; k < sizeof commands / sizeof commands[0]; ++k)
    if (!strcmp(argv[1], commands[k].name)) command_help(argc, argv, commands[k].help);
  if (!strcmp(argv[1], "run") || !strcmp(argv[1], "mesh") || !strcmp(argv[1], "demo")) {
    if (argc < 3 || argv[2][0] == '-') {
      char msg[INSDG_ERRMSG_LEN];
      const char *what = strcmp(argv[1], "run") ? "mesh" : "case";
      if (argc < 3) snprintf(msg, sizeof msg, "insdg %s: missing the %s file", argv[1], what);
      else snprintf(msg, sizeof msg, "insdg %s: the %s file comes first, before the option '%s'", argv[1], what, argv[2]);
      usage_error(msg);
    }
  }
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
