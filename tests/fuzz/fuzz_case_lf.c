/* fuzz_case_lf.c -- libFuzzer target of the case-file reader (io/case.c: inih, muparser).
 *
 * The reader resolves the mesh path relative to the case file's directory and checks that
 * the file can be read, so each process builds a scratch tree in which the mesh paths of
 * the committed seeds (the .ini files of tests/cases and cases/NAME, unchanged) exist as empty
 * files:
 *   ROOT/a/b/input.ini                    the input, rewritten for each run
 *   ROOT/a/meshes/square22.msh, square41.msh           (../meshes/...)
 *   ROOT/cases/taylor_vortex/square.msh, ROOT/cases/kovasznay/kovasznay.msh   (../../cases/...)
 *   ROOT/a/b/square.msh, kovasznay.msh, square_cylinder.msh   (the cases/ files)
 *
 * Failure: *out NULL, the message one NUL-terminated line "<path>...", nothing written
 * past the buffer (one input size in eight gets a short buffer). Success: the values in
 * their documented ranges (case.h), the expressions each boundary type needs, names
 * NUL-terminated; then every expression evaluated, the case checked against the boundary
 * names of the square meshes (insdg_case_check_boundaries, same message rules), printed
 * (to /dev/null) and destroyed. See tests/fuzz/README.md.
 */
#include "case.h"
#include "error.h"

#include "fuzz_common.h"

static const char *ini_path;
static FILE *devnull;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
  (void)argc, (void)argv;
  fuzz_scratch("fuzz_case");
  static const char *const dirs[] = {"a", "a/b", "a/meshes", "cases", "cases/taylor_vortex",
                                     "cases/kovasznay"};
  static const char *const meshes[] = {"a/meshes/square22.msh", "a/meshes/square41.msh",
                                       "cases/taylor_vortex/square.msh",
                                       "cases/kovasznay/kovasznay.msh", "a/b/square.msh",
                                       "a/b/kovasznay.msh", "a/b/square_cylinder.msh"};
  for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) fuzz_mkdir(dirs[i]);
  for (size_t i = 0; i < sizeof meshes / sizeof meshes[0]; i++)
    fuzz_write_file(fuzz_path(meshes[i]), (const uint8_t *)"", 0);
  ini_path = fuzz_path("a/b/input.ini");
  devnull = fopen("/dev/null", "w");
  FUZZ_REQUIRE(devnull != NULL, "cannot open /dev/null");
  return 0;
}

static int terminated(const char *s, size_t len)
{
  return memchr(s, '\0', len) != NULL;
}

static void evaluate(const insdg_expr *e)
{
  if (!e) return;
  static const double x[3] = {0.5, 1, -2}, y[3] = {0.25, 0, 3};
  double out[3];
  volatile double sink = insdg_expr_eval(e, 0.5, 0.25, 0.125);   /* any value will do */
  insdg_expr_eval_many(e, 3, x, y, 1.0, out);
  sink += out[0] + out[1] + out[2];
  (void)sink;
  FUZZ_REQUIRE(insdg_expr_text(e) != NULL, "expression without text");
  FUZZ_REQUIRE((insdg_expr_uses(e) & ~7u) == 0, "uses mask %u", insdg_expr_uses(e));
}

static void check_solver(const insdg_case_solver *s, int order)
{
  FUZZ_REQUIRE(s->tolerance > 0 && s->tolerance < 1, "tolerance %g", s->tolerance);
  FUZZ_REQUIRE(s->max_iterations >= 1, "max_iterations %d", s->max_iterations);
  FUZZ_REQUIRE(s->min_iterations >= 0 && s->min_iterations <= s->max_iterations,
               "min_iterations %d", s->min_iterations);
  FUZZ_REQUIRE(s->projection >= 0 && s->projection <= INSDG_CASE_MAX_PROJECTION, "projection %d",
               s->projection);
  FUZZ_REQUIRE(s->npmg_degrees >= 0 && s->npmg_degrees <= INSDG_CASE_MAX_PMG, "npmg_degrees %d",
               s->npmg_degrees);
  if (s->npmg_degrees)
    FUZZ_REQUIRE(s->pmg_degrees[0] == order && s->pmg_degrees[s->npmg_degrees - 1] == 1,
                 "pmg_degrees %d..%d for order %d", s->pmg_degrees[0],
                 s->pmg_degrees[s->npmg_degrees - 1], order);
  FUZZ_REQUIRE(insdg_precond_name(s->preconditioner) != NULL, "preconditioner %d",
               (int)s->preconditioner);
}

static void check_case(const insdg_case *c)
{
  FUZZ_REQUIRE(c->order >= 1 && c->order <= 15, "order %d", c->order);
  FUZZ_REQUIRE(c->refine >= 0 && c->refine <= 6, "refine %d", c->refine);
  FUZZ_REQUIRE(c->nu > 0 && c->dt > 0 && c->final_time > 0, "nu %g dt %g final_time %g", c->nu,
               c->dt, c->final_time);
  FUZZ_REQUIRE(c->time_order >= 1 && c->time_order <= 2, "time order %d", c->time_order);
  FUZZ_REQUIRE(c->substeps >= 0, "substeps %d", c->substeps);
  FUZZ_REQUIRE(c->output_interval >= 0 && c->checkpoint_interval_steps >= 0 &&
                   c->checkpoint_interval_seconds >= 0,
               "output intervals");
  FUZZ_REQUIRE(c->nconstants >= 1 && strcmp(c->constants[c->nconstants - 1].name, "nu") == 0,
               "constants do not end with nu");
  for (int i = 0; i < c->nconstants; i++)
    FUZZ_REQUIRE(terminated(c->constants[i].name, sizeof c->constants[i].name) &&
                     c->constants[i].value - c->constants[i].value == 0,
                 "constant %d", i);
  FUZZ_REQUIRE(terminated(c->path, sizeof c->path) && terminated(c->dir, sizeof c->dir) &&
                   terminated(c->name, sizeof c->name) && c->name[0] &&
                   terminated(c->mesh, sizeof c->mesh) && terminated(c->output, sizeof c->output),
               "a name or path not terminated");
  FUZZ_REQUIRE(c->initial_u && c->initial_v && c->initial_p, "initial expressions missing");
  FUZZ_REQUIRE(c->has_exact ? c->exact_u && c->exact_v : !c->exact_u && !c->exact_v && !c->exact_p,
               "exact expressions and has_exact = %d", c->has_exact);
  check_solver(&c->velocity, c->order);
  check_solver(&c->pressure, c->order);
  FUZZ_REQUIRE(c->nboundary >= 0, "nboundary %d", c->nboundary);
  for (int i = 0; i < c->nboundary; i++) {
    const insdg_case_boundary *b = &c->boundary[i];
    const int inflow = b->kind == INSDG_BOUNDARY_INFLOW, outflow = b->kind == INSDG_BOUNDARY_OUTFLOW;
    FUZZ_REQUIRE(inflow || outflow || b->kind == INSDG_BOUNDARY_WALL, "kind %d", (int)b->kind);
    FUZZ_REQUIRE(terminated(b->name, sizeof b->name) && b->name[0] &&
                     terminated(b->type, sizeof b->type),
                 "boundary %d: name or type", i);
    FUZZ_REQUIRE((b->u != NULL) == inflow && (b->v != NULL) == inflow && (b->p != NULL) == outflow,
                 "boundary %s: expressions of a %s", b->name, b->type);
    FUZZ_REQUIRE(insdg_case_find_boundary(c, b->name) != NULL, "boundary %s not found", b->name);
    evaluate(b->u), evaluate(b->v), evaluate(b->p);
  }
  FUZZ_REQUIRE(c->nforces >= 0 && c->nforces <= INSDG_CASE_MAX_FORCES, "nforces %d", c->nforces);
  for (int i = 0; i < c->nforces; i++)
    FUZZ_REQUIRE(terminated(c->forces[i], sizeof c->forces[i]) &&
                     insdg_case_find_boundary(c, c->forces[i]) != NULL,
                 "forces %d", i);
  evaluate(c->initial_u), evaluate(c->initial_v), evaluate(c->initial_p);
  evaluate(c->exact_u), evaluate(c->exact_v), evaluate(c->exact_p);
  (void)insdg_case_has_outflow(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  fuzz_write_file(ini_path, data, size);
  const size_t errlen = fuzz_errlen(size, INSDG_ERRMSG_LEN);
  const int full = errlen == INSDG_ERRMSG_LEN;
  char err[INSDG_ERRMSG_LEN + 8];
  memset(err, 'X', sizeof err);

  insdg_case *c = (insdg_case *)&c;   /* anything but NULL: it must be set */
  if (insdg_case_read(ini_path, &c, err, errlen) != 0) {
    FUZZ_REQUIRE(c == NULL, "case not NULL after a failure");
    fuzz_check_message(err, errlen, full, ini_path);
    return 0;
  }
  FUZZ_REQUIRE(c != NULL, "no case after a success");
  check_case(c);
  static const char *const names[] = {"bottom", "right", "top", "left"};
  memset(err, 'X', sizeof err);
  if (insdg_case_check_boundaries(c, names, 4, err, errlen) != 0)
    fuzz_check_message(err, errlen, full, ini_path);
  insdg_case_print(c, devnull);
  insdg_case_destroy(c);
  return 0;
}
