/* test_case.c -- the case-file reader (io/case.c).
 *
 * Usage: test_case CASEDIR (tests/cases). Checks every value read from good.ini (which
 * sets every key), the defaults from minimal.ini, expression values against formulas
 * written in C, the resolution of relative paths, the boundary check against lists of
 * mesh names, and the message of many small wrong files written to a temporary
 * directory: each must be one line that starts with the file's path and names the line
 * and the section or key. Exit status 0 when everything holds.
 */
#include "case.h"
#include "error.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int nfail = 0;

#define EXPECT(cond)                                                                   \
  do {                                                                                 \
    if (!(cond)) {                                                                     \
      fprintf(stderr, "test_case.c:%d: FAILED: %s\n", __LINE__, #cond);                \
      nfail++;                                                                         \
    }                                                                                  \
  } while (0)

#define EXPECT_NEAR(a, b)                                                              \
  do {                                                                                 \
    double a_ = (a), b_ = (b);                                                         \
    if (!(fabs(a_ - b_) <= 1e-13 * (1 + fabs(b_)))) {                                  \
      fprintf(stderr, "test_case.c:%d: FAILED: %s = %.17g, expected %.17g\n", __LINE__, \
              #a, a_, b_);                                                             \
      nfail++;                                                                         \
    }                                                                                  \
  } while (0)

static const double pi = 3.14159265358979323846;

static const double points[4][3] = {{0, 0, 0}, {0.3, 0.7, 0.1}, {1, 0.25, 2.5}, {-0.4, 0.9, 7}};

static insdg_case *read_ok(const char *path)
{
  char err[INSDG_ERRMSG_LEN];
  insdg_case *c = NULL;
  if (insdg_case_read(path, &c, err, sizeof err) != 0) {
    fprintf(stderr, "test_case: %s: unexpected error: %s\n", path, err);
    nfail++;
    return NULL;
  }
  return c;
}

/* ---- good.ini: every key ------------------------------------------------------------- */

static void check_good_scalars(const insdg_case *c, const char *dir)
{
  char expect[INSDG_CASE_PATH_LEN + 64];
  EXPECT(strcmp(c->dir, dir) == 0);
  EXPECT(strcmp(c->name, "taylor_vortex") == 0);
  snprintf(expect, sizeof expect, "%s/../meshes/square22.msh", dir);
  EXPECT(strcmp(c->mesh, expect) == 0);
  snprintf(expect, sizeof expect, "%s/out/taylor", dir);
  EXPECT(strcmp(c->output, expect) == 0);
  EXPECT(c->order == 6 && c->refine == 1);
  EXPECT(c->nconstants == 4);
  static const char *const names[4] = {"Re", "k", "amp", "nu"};
  const double values[4] = {100, 2 * pi, 1.5, 0.01};
  for (int i = 0; i < 4 && c->nconstants == 4; i++) {
    EXPECT(strcmp(c->constants[i].name, names[i]) == 0);
    EXPECT_NEAR(c->constants[i].value, values[i]);
  }
  EXPECT_NEAR(c->nu, 0.01);
  EXPECT_NEAR(c->dt, 1e-3);
  EXPECT_NEAR(c->final_time, 0.75);
  EXPECT(c->time_order == 1);
  EXPECT(c->substeps == 4);
  EXPECT(c->start_exact == 1);
  EXPECT_NEAR(c->velocity.tolerance, 1e-10);
  EXPECT(c->velocity.max_iterations == 300);
  EXPECT(c->velocity.preconditioner == INSDG_PRECOND_JACOBI);
  EXPECT(c->velocity.npmg_degrees == 0);
  EXPECT_NEAR(c->pressure.tolerance, 1e-9);
  EXPECT(c->pressure.max_iterations == 200);
  EXPECT(c->pressure.preconditioner == INSDG_PRECOND_PMG_AMG);
  EXPECT(c->pressure.npmg_degrees == 4);
  static const int degrees[4] = {6, 3, 2, 1};
  for (int i = 0; i < 4; i++) EXPECT(c->pressure.pmg_degrees[i] == degrees[i]);
  EXPECT(c->pressure.pmg_point_jacobi == 1 && c->pressure.pmg_chebyshev_degree == 3 && c->pressure.pmg_coarse_amg == 1);
  EXPECT_NEAR(c->output_interval, 0.1);
  EXPECT(c->checkpoint_interval_steps == 100);
  EXPECT_NEAR(c->checkpoint_interval_seconds, 3600);
  EXPECT(c->nforces == 2);
  EXPECT(strcmp(c->forces[0], "right") == 0 && strcmp(c->forces[1], "bottom") == 0);
  EXPECT(c->forces_line == 65);
  EXPECT(insdg_case_has_outflow(c) == 1);
}

/* The Taylor vortex of good.ini: amp = 1.5, k = 2 pi, nu = 0.01. */
static double tv_u(double x, double y, double t)
{
  (void)x;
  return -1.5 * sin(2 * pi * y) * exp(-8 * pi * pi * 0.01 * t);
}
static double tv_v(double x, double y, double t)
{
  (void)y;
  return 1.5 * sin(2 * pi * x) * exp(-8 * pi * pi * 0.01 * t);
}
static double tv_p(double x, double y, double t)
{
  return -2.25 * cos(2 * pi * x) * cos(2 * pi * y) * exp(-16 * pi * pi * 0.01 * t);
}

typedef double (*formula)(double, double, double);

/* e against f at the test points; at_zero: evaluate f at t = 0 whatever t is. */
static void check_expr(const insdg_expr *e, formula f, int at_zero)
{
  EXPECT(e != NULL);
  if (!e) return;
  for (int i = 0; i < 4; i++) {
    const double *q = points[i];
    EXPECT_NEAR(insdg_expr_eval(e, q[0], q[1], q[2]), f(q[0], q[1], at_zero ? 0 : q[2]));
  }
}

static void check_good_expressions(const insdg_case *c)
{
  check_expr(c->initial_u, tv_u, 1);
  check_expr(c->initial_v, tv_v, 1);
  check_expr(c->initial_p, tv_p, 1);
  EXPECT(insdg_expr_uses(c->initial_u) == INSDG_EXPR_USES_Y);
  EXPECT(insdg_expr_uses(c->initial_p) == (INSDG_EXPR_USES_X | INSDG_EXPR_USES_Y));
  EXPECT(strcmp(insdg_expr_text(c->initial_u), "-amp*sin(k*y)") == 0);
  EXPECT(c->has_exact == 1);
  check_expr(c->exact_u, tv_u, 0);
  check_expr(c->exact_v, tv_v, 0);
  check_expr(c->exact_p, tv_p, 0);
  EXPECT(insdg_expr_uses(c->exact_p) ==
         (INSDG_EXPR_USES_X | INSDG_EXPR_USES_Y | INSDG_EXPR_USES_T));

  double x[4], y[4], out[4];
  for (int i = 0; i < 4; i++) x[i] = points[i][0], y[i] = points[i][1];
  insdg_expr_eval_many(c->exact_v, 4, x, y, 0.3, out);
  for (int i = 0; i < 4; i++) EXPECT_NEAR(out[i], tv_v(x[i], y[i], 0.3));
}

static double zero(double x, double y, double t)
{
  (void)x, (void)y, (void)t;
  return 0;
}

static void check_good_boundaries(const insdg_case *c)
{
  EXPECT(c->nboundary == 4);
  if (c->nboundary != 4) return;
  static const char *const names[4] = {"bottom", "right", "top", "left"};
  static const char *const types[4] = {"inflow", "wall", "outflow", "outflow"};
  static const insdg_boundary_kind kinds[4] = {INSDG_BOUNDARY_INFLOW, INSDG_BOUNDARY_WALL,
                                               INSDG_BOUNDARY_OUTFLOW, INSDG_BOUNDARY_OUTFLOW};
  static const int lines[4] = {41, 46, 49, 53};
  for (int i = 0; i < 4; i++) {
    const insdg_case_boundary *b = &c->boundary[i];
    EXPECT(strcmp(b->name, names[i]) == 0);
    EXPECT(strcmp(b->type, types[i]) == 0);
    EXPECT(b->kind == kinds[i]);
    EXPECT(b->line == lines[i]);
    EXPECT((b->u != NULL) == (b->kind == INSDG_BOUNDARY_INFLOW));
    EXPECT((b->v != NULL) == (b->kind == INSDG_BOUNDARY_INFLOW));
    EXPECT((b->p != NULL) == (b->kind == INSDG_BOUNDARY_OUTFLOW));
    EXPECT(insdg_case_find_boundary(c, names[i]) == b);
  }
  EXPECT(insdg_case_find_boundary(c, "fluid") == NULL);
  check_expr(c->boundary[0].u, tv_u, 0);
  check_expr(c->boundary[0].v, tv_v, 0);
  check_expr(c->boundary[2].p, tv_p, 0);
  check_expr(c->boundary[3].p, zero, 0);   /* the default outflow pressure */
}

static void test_good(const char *casedir)
{
  char path[PATH_MAX + 64];
  snprintf(path, sizeof path, "%s/good.ini", casedir);
  insdg_case *c = read_ok(path);
  if (!c) return;
  EXPECT(strcmp(c->path, path) == 0);
  check_good_scalars(c, casedir);
  check_good_expressions(c);
  check_good_boundaries(c);
  insdg_case_destroy(c);
}

/* ---- minimal.ini: defaults ----------------------------------------------------------- */

static void test_defaults(const char *casedir)
{
  char path[PATH_MAX + 64], expect[PATH_MAX + 64];
  snprintf(path, sizeof path, "%s/minimal.ini", casedir);
  insdg_case *c = read_ok(path);
  if (!c) return;
  EXPECT(strcmp(c->name, "minimal") == 0);   /* the file's stem */
  snprintf(expect, sizeof expect, "%s/out/minimal", casedir);
  EXPECT(strcmp(c->output, expect) == 0);
  EXPECT(c->order == 1 && c->refine == 0);
  EXPECT(c->nconstants == 1 && strcmp(c->constants[0].name, "nu") == 0);
  EXPECT(c->time_order == 2 && c->substeps == 0 && c->start_exact == 0);
  EXPECT_NEAR(c->velocity.tolerance, 1e-8);
  EXPECT(c->velocity.max_iterations == 1000);
  EXPECT(c->velocity.preconditioner == INSDG_PRECOND_DEFAULT);   /* chosen at start-up (tasks/ins.c) */
  EXPECT_NEAR(c->pressure.tolerance, 1e-8);
  EXPECT(c->pressure.max_iterations == 1000);
  EXPECT(c->pressure.preconditioner == INSDG_PRECOND_PMG_AMG);
  EXPECT(c->pressure.npmg_degrees == 0);
  EXPECT(c->pressure.pmg_point_jacobi == 0 && c->pressure.pmg_chebyshev_degree == 2 &&
         c->pressure.pmg_coarse_amg == 0);   /* pMG smoother and coarse solve defaults */
  EXPECT(c->velocity.projection == 8 && c->pressure.projection == 8);          /* solution projection */
  EXPECT(c->velocity.min_iterations == 4 && c->pressure.min_iterations == 0);
  check_expr(c->initial_p, zero, 1);
  EXPECT(c->has_exact == 0 && !c->exact_u && !c->exact_v && !c->exact_p);
  EXPECT(c->output_interval == 0 && c->checkpoint_interval_steps == 0);
  EXPECT(c->checkpoint_interval_seconds == 0 && c->nforces == 0 && c->forces_line == 0);
  EXPECT(insdg_case_has_outflow(c) == 0);
  const insdg_case_boundary *top = insdg_case_find_boundary(c, "top");
  EXPECT(top && top->kind == INSDG_BOUNDARY_INFLOW && !top->p);
  if (top) EXPECT_NEAR(insdg_expr_eval(top->u, 0.5, 1, 3), 1);
  insdg_case_destroy(c);
}

/* ---- relative paths ------------------------------------------------------------------ */

static void test_relative_paths(const char *casedir)
{
  char cwd[PATH_MAX];
  INSDG_CHECK(getcwd(cwd, sizeof cwd) != NULL);
  INSDG_CHECK(chdir(casedir) == 0);
  insdg_case *c = read_ok("good.ini");   /* no directory: paths stay as written */
  if (c) {
    EXPECT(strcmp(c->dir, "") == 0);
    EXPECT(strcmp(c->mesh, "../meshes/square22.msh") == 0);
    EXPECT(strcmp(c->output, "out/taylor") == 0);
    insdg_case_destroy(c);
  }
  c = read_ok("./../cases/minimal.ini");
  if (c) {
    EXPECT(strcmp(c->dir, "./../cases") == 0);
    EXPECT(strcmp(c->mesh, "./../cases/../meshes/square41.msh") == 0);
    insdg_case_destroy(c);
  }
  INSDG_CHECK(chdir(cwd) == 0);
}

/* ---- the boundary check -------------------------------------------------------------- */

static void expect_check(const insdg_case *c, const char *const *names, int n,
                         const char *fragment)
{
  char err[INSDG_ERRMSG_LEN] = "";
  int status = insdg_case_check_boundaries(c, names, n, err, sizeof err);
  if (!fragment) {
    EXPECT(status == 0);
    if (status) fprintf(stderr, "  unexpected: %s\n", err);
    return;
  }
  EXPECT(status != 0);
  EXPECT(strstr(err, c->path) == err && strstr(err, fragment) && !strchr(err, '\n'));
  if (!strstr(err, fragment)) fprintf(stderr, "  got: %s\n  expected: %s\n", err, fragment);
}

static void test_boundary_check(const char *casedir)
{
  char path[PATH_MAX + 64];
  snprintf(path, sizeof path, "%s/good.ini", casedir);
  insdg_case *c = read_ok(path);
  if (!c) return;
  const char *const same[] = {"left", "top", "right", "bottom"};
  expect_check(c, same, 4, NULL);
  const char *const more[] = {"left", "top", "right", "bottom", "outlet"};
  expect_check(c, more, 5, ":0: [boundary.outlet]: missing section for the mesh boundary");
  const char *const fewer[] = {"left", "top", "bottom"};
  expect_check(c, fewer, 3, ":46: [boundary.right]: the mesh has no boundary of this name");
  memcpy(c->forces[1], "cylinder", 9);   /* as if forces named a boundary not in the mesh */
  expect_check(c, same, 4, ":65: [output] forces: 'cylinder' is not a boundary of the mesh");
  insdg_case_destroy(c);
}

/* ---- the Taylor vortex as in the issue ------------------------------------------------ */

static char tmpdir[] = "/tmp/insdg_test_case_XXXXXX";
static char mesh[PATH_MAX];

static void write_file(const char *path, const char *text, size_t len)
{
  FILE *f = fopen(path, "wb");
  INSDG_CHECK(f != NULL);
  INSDG_CHECK(fwrite(text, 1, len, f) == len);
  INSDG_CHECK(fclose(f) == 0);
}

/* A valid case with the given extra text appended ("%s" in head is the mesh). */
static void write_case(const char *path, const char *head, const char *tail)
{
  char text[8192];
  int n = snprintf(text, sizeof text, head, mesh);
  INSDG_CHECK(n > 0 && (size_t)n < sizeof text);
  n += snprintf(text + n, sizeof text - (size_t)n, "%s", tail);
  INSDG_CHECK((size_t)n < sizeof text);
  write_file(path, text, (size_t)n);
}

static const char base_head[] = "[case]\nmesh = %s\norder = 2\n[physics]\nnu = 0.05\n"
                                "[time]\ndt = 0.1\nfinal_time = 1\n";
static const char base_tail[] = "[initial]\nu = 0\nv = 0\n[boundary.wall]\ntype = wall\n";

static void test_taylor_vortex(void)
{
  char path[PATH_MAX];
  snprintf(path, sizeof path, "%s/taylor.ini", tmpdir);
  write_case(path,
             "[exact]\nu = -sin(2*pi*y)*exp(-8*pi^2*nu*t)\nv = sin(2*pi*x)*exp(-8*pi^2*nu*t)\n"
             "[physics]\nnu = 1/Re\n[constants]\nRe = 100\n"   /* any section order */
             "[case]\nmesh = %s\norder = 3\n[time]\ndt = 1e-2\nfinal_time = 1\n",
             "  [initial]\n  u = -sin(2*pi*y)\n  v = sin(2*pi*x)\n"   /* indented lines */
             "[boundary.wall]\ntype = wall\n");
  insdg_case *c = read_ok(path);
  if (!c) return;
  EXPECT_NEAR(c->nu, 0.01);
  EXPECT(strcmp(c->name, "taylor") == 0);
  EXPECT(strcmp(c->mesh, mesh) == 0);   /* absolute paths are kept */
  EXPECT(c->has_exact && c->exact_p == NULL);
  for (int i = 0; i < 4; i++) {
    const double *q = points[i];
    EXPECT_NEAR(insdg_expr_eval(c->exact_u, q[0], q[1], q[2]),
                -sin(2 * pi * q[1]) * exp(-8 * pi * pi * 0.01 * q[2]));
    EXPECT_NEAR(insdg_expr_eval(c->initial_v, q[0], q[1], q[2]), sin(2 * pi * q[0]));
  }
  insdg_case_destroy(c);
}

/* ---- small wrong files --------------------------------------------------------------- */

static void expect_error_text(const char *name, const char *text, size_t len,
                              const char *fragment)
{
  char path[PATH_MAX], err[INSDG_ERRMSG_LEN];
  snprintf(path, sizeof path, "%s/%s", tmpdir, name);
  write_file(path, text, len);
  insdg_case *c = (insdg_case *)&c;
  int status = insdg_case_read(path, &c, err, sizeof err);
  int ok = status != 0 && c == NULL && strstr(err, path) == err && strstr(err, fragment) &&
           !strchr(err, '\n');
  if (!ok) {
    fprintf(stderr, "test_case: %s: status %d, message [%s], expected [%s]\n", name, status,
            status ? err : "", fragment);
    nfail++;
  }
  if (status == 0) insdg_case_destroy(c);
}

/* A case made of base_head (with the mesh), middle and base_tail must fail so. */
static void expect_error(const char *name, const char *middle, const char *fragment)
{
  char text[8192];
  int n = snprintf(text, sizeof text, base_head, mesh);
  n += snprintf(text + n, sizeof text - (size_t)n, "%s%s", middle, base_tail);
  INSDG_CHECK(n > 0 && (size_t)n < sizeof text);
  expect_error_text(name, text, (size_t)n, fragment);
}

static void test_valid_base(void)
{
  char path[PATH_MAX];
  snprintf(path, sizeof path, "%s/base.ini", tmpdir);
  write_case(path, base_head, base_tail);
  insdg_case_destroy(read_ok(path));
  /* a BOM, CRLF line ends, comments and blank lines are fine */
  snprintf(path, sizeof path, "%s/crlf.ini", tmpdir);
  write_case(path, "\xEF\xBB\xBF; comment\r\n\r\n[case]\r\nmesh = %s\r\norder = 2\r\n",
             "[physics]\r\nnu = 0.05   ; inline\r\n# other comment\r\n[time]\r\ndt = 0.1\r\n"
             "final_time = 1\r\n[initial]\r\nu = x>0.5 ? 1 : 0\r\nv = 0\r\n"
             "[boundary.wall]\r\ntype = wall\r\n");
  insdg_case *c = read_ok(path);
  if (c) EXPECT_NEAR(insdg_expr_eval(c->initial_u, 0.7, 0, 0), 1);
  insdg_case_destroy(c);
  /* the velocity solver's default min_iterations (4 with projection) never exceeds
     max_iterations (fuzz Finding 6, tests/fuzz/README.md) */
  snprintf(path, sizeof path, "%s/vel_max3.ini", tmpdir);
  write_case(path, base_head, "[initial]\nu = 0\nv = 0\n[boundary.wall]\ntype = wall\n"
                              "[velocity_solver]\nmax_iterations = 3\n");
  c = read_ok(path);
  if (c) EXPECT(c->velocity.max_iterations == 3 && c->velocity.min_iterations == 3);
  insdg_case_destroy(c);
}

/* [probes], [statistics], [time] steady_tolerance: values, file order, defaults */
static void test_observe_keys(void)
{
  char path[PATH_MAX];
  snprintf(path, sizeof path, "%s/observe.ini", tmpdir);
  write_case(path, base_head, "[initial]\nu = 0\nv = 0\n[boundary.wall]\ntype = wall\n[constants]\nD = 2\n"
                              "[probes]\nwake = 1.5*D, -0.25\ninterval = 0.5\nangle = atan2(1, 1), (1+2)/4\n"
                              "[statistics]\n");
  insdg_case *c = read_ok(path);
  if (c) {
    EXPECT(c->nprobes == 2 && !strcmp(c->probes[0].name, "wake") && !strcmp(c->probes[1].name, "angle"));
    EXPECT_NEAR(c->probes[0].x, 3);
    EXPECT_NEAR(c->probes[0].y, -0.25);
    EXPECT_NEAR(c->probes[1].x, pi / 4);   /* the comma inside atan2( , ) */
    EXPECT_NEAR(c->probes[1].y, 0.75);
    EXPECT(c->probes[0].line > 0 && c->probes[1].line == c->probes[0].line + 2);
    EXPECT_NEAR(c->probe_interval, 0.5);
    EXPECT(c->has_statistics && c->statistics_start == 0 && c->steady_tolerance == 0);
  }
  insdg_case_destroy(c);
  snprintf(path, sizeof path, "%s/observe2.ini", tmpdir);
  write_case(path, "[case]\nmesh = %s\norder = 2\n[physics]\nnu = 0.05\n"
                   "[time]\ndt = 0.1\nfinal_time = 1\nsteady_tolerance = 1e-6\n",
             "[initial]\nu = 0\nv = 0\n[boundary.wall]\ntype = wall\n[statistics]\nstart = 0.25\n");
  c = read_ok(path);
  if (c) EXPECT(c->nprobes == 0 && c->probes == NULL && c->has_statistics && c->statistics_start == 0.25 &&
                c->steady_tolerance == 1e-6);
  insdg_case_destroy(c);
}

static void test_structure_errors(void)
{
  expect_error("unknown_section.ini", "[solvers]\n", ":9: [solvers]: unknown section");
  expect_error("empty_boundary_name.ini", "[boundary.]\n", ":9: [boundary.]: unknown section");
  expect_error("duplicate_section.ini", "[time]\n",
               ":9: [time]: duplicate section (first on line 6)");
  expect_error("bad_header.ini", "[output\n", ":9: malformed section header");
  expect_error("header_junk.ini", "[output] x\n", ":9: unexpected text after the section");
  expect_error("syntax.ini", "just words\n", ":9: syntax error");
  expect_error("unknown_key.ini", "[output]\nintervals = 1\n",
               ":10: [output] intervals: unknown key");
  expect_error("duplicate_key.ini", "[output]\ninterval = 1\ninterval = 2\n",
               ":11: [output] interval: duplicate key (first on line 10)");
  expect_error_text("outside.ini", "x = 1\n[case]\n", 13, ":1: 'x' is outside any section");
  expect_error_text("nul.ini", "[case]\nmesh = a\0b\n", 17, ":2: NUL byte");
  char longline[400];
  memset(longline, 'a', sizeof longline);
  memcpy(longline, "[case]\nname = ", 14);
  longline[sizeof longline - 1] = '\n';
  expect_error_text("long.ini", longline, sizeof longline, ":2: line longer than");
  char longname[300];
  snprintf(longname, sizeof longname, "[boundary.%0140d]\n", 7);
  expect_error_text("long_section.ini", longname, strlen(longname),
                    ":1: section name longer than");
}

static void test_missing_and_files(void)
{
  char text[512];
  int n = snprintf(text, sizeof text, "[case]\nmesh = %s\norder = 2\n", mesh);
  expect_error_text("no_physics.ini", text, (size_t)n,
                    ":0: [physics] nu: missing required key (there is no [physics] section)");
  expect_error_text("no_case.ini", "[physics]\nnu = 1\n", 17,
                    ":0: [case] mesh: missing required key");
  char path[PATH_MAX], err[INSDG_ERRMSG_LEN];
  insdg_case *c = NULL;
  snprintf(path, sizeof path, "%s/does_not_exist.ini", tmpdir);
  EXPECT(insdg_case_read(path, &c, err, sizeof err) != 0 && c == NULL);
  EXPECT(strstr(err, path) == err && strstr(err, ": cannot open the case file: No such file"));
  EXPECT(insdg_case_read(tmpdir, &c, err, sizeof err) != 0 && strstr(err, "not a regular file"));
  expect_error_text("mesh_dir.ini", "[case]\nmesh = .\n", 16, ":2: [case] mesh: '");
}

static void test_expression_errors(void)
{
  expect_error("expr_paren.ini", "[exact]\nu = sin(x\nv = 0\n",
               ":10: [exact] u: malformed expression 'sin(x': Missing parenthesis");
  expect_error("expr_empty.ini", "[exact]\nu =\nv = 0\n",
               ":10: [exact] u: malformed expression '': Expression is empty");
  expect_error("expr_function.ini", "[exact]\nu = fmod(x, 2)\nv = 0\n",
               ":10: [exact] u: malformed expression 'fmod(x, 2)'");
  expect_error("expr_assign.ini", "[exact]\nu = 1\nv = (x = 2)\n",
               ":11: [exact] v: malformed expression '(x = 2)': '=' is not allowed");
  expect_error("expr_list.ini", "[exact]\nu = 1, 2\nv = 0\n",
               ":10: [exact] u: malformed expression '1, 2': one value expected");
  expect_error("expr_unknown.ini", "[exact]\nu = x + w\nv = 0\n",
               ":10: [exact] u: unknown variable 'w' in 'x + w' (known here: x, y, t, pi, nu)");
  expect_error("expr_compare_ok.ini", "[exact]\nu = (x <= 1) + (x >= 0) + (x != 3) + (x == 1)\n"
               "v = q\n", ":11: [exact] v: unknown variable 'q'");
  expect_error("constant_forward.ini", "[constants]\na = b\nb = 1\n",
               ":10: [constants] a: unknown variable 'b' in 'b' (known here: pi; a [constants]");
  expect_error("constant_reserved.ini", "[constants]\nsin = 1\n",
               ":10: [constants] sin: reserved name");
  expect_error("constant_nu.ini", "[constants]\nnu = 1\n", ":10: [constants] nu: reserved name");
  expect_error("constant_identifier.ini", "[constants]\n2a = 1\n",
               ":10: [constants] 2a: a constant's name must be an identifier");
  expect_error("constant_xyt.ini", "[constants]\na = t\n",
               ":10: [constants] a: uses 't', but this value must be a constant");
  expect_error("constant_inf.ini", "[constants]\na = 1/0\n", ":10: [constants] a: '1/0' is inf");
  expect_error("dt_t.ini", "[output]\ninterval = 2*t\n",
               ":10: [output] interval: uses 't', but this value must be a constant");
}

static void test_value_errors(void)
{
  char text[PATH_MAX + 256];
  snprintf(text, sizeof text, "[case]\nmesh = %s\norder = 0\n", mesh);
  expect_error_text("order0.ini", text, strlen(text),
                    ":3: [case] order: 0 is out of range (1..15)");
  snprintf(text, sizeof text, "[case]\nmesh = %s\norder = 3.5\n", mesh);
  expect_error_text("order_real.ini", text, strlen(text),
                    ":3: [case] order: '3.5' is not an integer");
  snprintf(text, sizeof text, "[case]\nmesh = %s\norder = 99999999999999999999\n", mesh);
  expect_error_text("order_huge.ini", text, strlen(text), ":3: [case] order: '9999");
  snprintf(text, sizeof text, "[case]\nname = a b\nmesh = %s\norder = 2\n", mesh);
  expect_error_text("name.ini", text, strlen(text), ":2: [case] name: 'a b' is not a name");
  expect_error("tolerance.ini", "[velocity_solver]\ntolerance = 1\n",
               ":10: [velocity_solver] tolerance: 1 must be in (0, 1)");
  expect_error("max_iterations.ini", "[pressure_solver]\nmax_iterations = 0\n",
               ":10: [pressure_solver] max_iterations: 0 is out of range");
  expect_error("projection.ini", "[pressure_solver]\nprojection = 9\n",
               ":10: [pressure_solver] projection: 9 is out of range");
  expect_error("min_iterations.ini", "[velocity_solver]\nmax_iterations = 10\nmin_iterations = 11\n",
               ":11: [velocity_solver] min_iterations: 11 is out of range");
  expect_error("velocity_amg.ini", "[velocity_solver]\npreconditioner = full_amg\n",
               ":10: [velocity_solver] preconditioner: unknown preconditioner 'full_amg' "
               "(known: inverse_mass block_jacobi pmg_amg jacobi none)");
  expect_error("velocity_pmg.ini", "[velocity_solver]\npmg_degrees = 2 1\n",
               ":10: [velocity_solver] pmg_degrees: unknown key");
  expect_error("pmg_not_first.ini", "[pressure_solver]\npmg_degrees = 3 1\n",
               ":10: [pressure_solver] pmg_degrees: '3 1' is not a decreasing list");
  expect_error("pmg_not_last.ini", "[pressure_solver]\npmg_degrees = 2\n",
               ":10: [pressure_solver] pmg_degrees: '2' is not");
  expect_error("pmg_junk.ini", "[pressure_solver]\npmg_degrees = 2 x 1\n",
               ":10: [pressure_solver] pmg_degrees: '2 x 1' is not");
  expect_error("pmg_jacobi.ini", "[pressure_solver]\npreconditioner = jacobi\npmg_degrees = 2 1\n",
               ":11: [pressure_solver] pmg_degrees: needs preconditioner = pmg_amg");
  expect_error("pmg_smoother.ini", "[pressure_solver]\npmg_smoother = gauss_seidel\n",
               ":10: [pressure_solver] pmg_smoother: unknown smoother 'gauss_seidel' (known: block_jacobi jacobi)");
  expect_error("pmg_cheb0.ini", "[pressure_solver]\npmg_chebyshev_degree = 0\n",
               ":10: [pressure_solver] pmg_chebyshev_degree: 0 is out of range");
  expect_error("pmg_cheb_jacobi.ini", "[pressure_solver]\npreconditioner = jacobi\npmg_chebyshev_degree = 2\n",
               ":11: [pressure_solver] pmg_chebyshev_degree: needs preconditioner = pmg_amg");
  expect_error("pmg_coarse.ini", "[pressure_solver]\npmg_coarse = direct\n",
               ":10: [pressure_solver] pmg_coarse: unknown coarse solve 'direct' (known: auto amg)");
  expect_error("pmg_coarse_jacobi.ini", "[pressure_solver]\npreconditioner = jacobi\npmg_coarse = amg\n",
               ":11: [pressure_solver] pmg_coarse: needs preconditioner = pmg_amg");
  expect_error("velocity_smoother.ini", "[velocity_solver]\npmg_smoother = jacobi\n",
               ":10: [velocity_solver] pmg_smoother: unknown key");
  expect_error("final_time.ini", "[output]\ninterval = -1\n",
               ":10: [output] interval: -1 must be >= 0");
  expect_error("nan.ini", "[output]\ninterval = sqrt(-1)\n",
               ":10: [output] interval: 'sqrt(-1)' is ");   /* nan or -nan */
}

static void test_boundary_errors(void)
{
  expect_error("no_type.ini", "[boundary.in]\nu = 1\n",
               ":9: [boundary.in] type: missing required key");
  expect_error("inflow_p.ini", "[boundary.in]\ntype = inflow\nu = 1\nv = 0\np = 1\n",
               ":13: [boundary.in] p: not allowed on an inflow boundary");
  expect_error("wall_u.ini", "[boundary.in]\ntype = wall\nu = 1\n",
               ":11: [boundary.in] u: not allowed on a wall");
  expect_error("outflow_v.ini", "[boundary.out]\ntype = outflow\nv = 1\n",
               ":11: [boundary.out] v: not allowed on an outflow boundary");
  expect_error("outflow_bad_p.ini", "[boundary.out]\ntype = outflow\np = z\n",
               ":11: [boundary.out] p: unknown variable 'z'");
  expect_error("boundary_key.ini", "[boundary.out]\ntype = outflow\nq = 1\n",
               ":11: [boundary.out] q: unknown key (known: type u v p)");
  expect_error("exact_no_v.ini", "[exact]\nu = 0\n", ":9: [exact] v: missing required key");
  expect_error("forces_twice.ini", "[output]\nforces = wall wall\n",
               ":10: [output] forces: 'wall' is listed twice");
  expect_error("forces_missing.ini", "[output]\nforces = wall  inlet\n",
               ":10: [output] forces: 'inlet' has no [boundary.NAME] section");
}

int main(int argc, char **argv)
{
  if (argc != 2) {
    fprintf(stderr, "usage: %s CASEDIR\n", argv[0]);
    return 2;
  }
  char casedir[PATH_MAX / 2], cwd[PATH_MAX / 4];
  snprintf(casedir, sizeof casedir, "%s", argv[1]);
  INSDG_CHECK(getcwd(cwd, sizeof cwd) != NULL);
  if (casedir[0] == '/')   /* an absolute mesh path, for files written elsewhere */
    snprintf(mesh, sizeof mesh, "%s/../meshes/square22.msh", casedir);
  else
    snprintf(mesh, sizeof mesh, "%s/%s/../meshes/square22.msh", cwd, casedir);
  INSDG_CHECK(mkdtemp(tmpdir) != NULL);

  test_good(casedir);
  test_defaults(casedir);
  test_relative_paths(casedir);
  test_boundary_check(casedir);
  test_taylor_vortex();
  test_valid_base();
  test_observe_keys();
  test_structure_errors();
  test_missing_and_files();
  test_expression_errors();
  test_value_errors();
  test_boundary_errors();

  char cmd[PATH_MAX + 16];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
  if (system(cmd) != 0) fprintf(stderr, "test_case: could not remove %s\n", tmpdir);
  if (nfail) {
    fprintf(stderr, "test_case: %d checks FAILED\n", nfail);
    return 1;
  }
  printf("test_case: all checks passed\n");
  return 0;
}
