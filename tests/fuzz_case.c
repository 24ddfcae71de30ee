/* fuzz_case.c -- deterministic mutation fuzzer for the case-file reader (io/case.c).
 *
 * Usage: fuzz_case CASEDIR [ITERATIONS]. Starts from the valid good.ini and minimal.ini
 * (their relative mesh path made absolute, so that the mutated copy, written to a
 * temporary file, still finds the mesh), applies 1 to 4 random mutations per iteration
 * (byte changes including NUL and control characters, truncation, deleted / duplicated /
 * swapped lines, numbers replaced by huge, negative or garbage values, values replaced by
 * broken expressions, stray section headers and keys, very long lines) and reads the
 * result. The seed is fixed, so every run sees the same inputs.
 *
 * Invariants checked on every call: success gives values inside their documented ranges,
 * the expressions each boundary type needs, NUL-terminated names, and expressions that
 * evaluate (the case is then checked against the mesh's names and destroyed); failure
 * gives *out == NULL and one non-empty line that starts with the path; a short message
 * buffer is never overrun. Memory errors and leaks are left to -fsanitize=address,
 * undefined builds. With FUZZ_CASE_VERBOSE set, every error message is printed.
 * Exit status: 0 if every iteration satisfied the invariants, 1 otherwise.
 */
#include "case.h"
#include "error.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* the shared random source, text buffer and line mutations */
#define FUZZ_SEED 0x7c2a9e14d3b5f608ULL
#include "fuzz_text.h"

#define PICK(array) (array[rng_below(sizeof array / sizeof array[0])])

static int load(const char *path, text *t)
{
  FILE *f = fopen(path, "rb");
  if (!f) return -1;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) text_splice(t, t->len, 0, buf, n);
  fclose(f);
  return 0;
}

/* Replace the first occurrence of from by to (both NUL-terminated); 0 if found. */
static int text_replace(text *t, const char *from, const char *to)
{
  text_reserve(t, t->len);
  t->data[t->len] = '\0';
  char *at = strstr(t->data, from);
  if (!at) return -1;
  text_splice(t, (size_t)(at - t->data), strlen(from), to, strlen(to));
  return 0;
}

/* ---- mutations ----------------------------------------------------------------------- */

static void mutate_byte(text *t)
{
  static const char special[] = {'\0', '\r', '\t', '[', ']', '=', ';', '#', ' ', '(', '.'};
  if (!t->len) return;
  char c = rng_below(2) ? (char)rng_below(256) : PICK(special);
  t->data[rng_below(t->len)] = c;
}

static const char *const numbers[] = {
    "99999999999999999999", "-1", "0", "2147483647", "2147483648", "-2147483648", "1e308",
    "-1e308", "1e-320", "nan", "inf", "0x10", "", "abc", "1.5", "16", "4", "-0", "+3", "3.0",
    "1 2", "1e400", "\t", "\r", "1/0", "0/0", "x", "t", "z"};

/* Replace the number (run of digits, signs, '.', 'e') around a random byte. */
static void mutate_number(text *t)
{
  if (!t->len) return;
  size_t at = rng_below(t->len), end = at;
  const char *num = "0123456789+-.eE";
  while (at > 0 && t->data[at - 1] && strchr(num, t->data[at - 1])) at--;
  while (end < t->len && t->data[end] && strchr(num, t->data[end])) end++;
  const char *r = PICK(numbers);
  text_splice(t, at, end - at, r, strlen(r));
}

static const char *const values[] = {
    "sin(x", "z", "x = 1", "1, 2", "", "((((((((((", "sin(x)*exp(-t)", "x ? 1 : 2",
    "\"s\"", "fmod(x,2)", "nu*Re", "pi^2", "-", "1e", "wall", "inflow", "outflow", "jacobi",
    "none", "full_amg", "6 3 2 1", "1 2", "bottom", "right bottom right", "cylinder",
    "_pi*_e", "min(x,y,t)", "avg()", "x++", "y--", "1;2", "a # b", "sum(x,y", "2^^3"};

/* Replace what follows the '=' of a random line. */
static void mutate_value(text *t)
{
  if (!t->len) return;
  size_t len, start = line_around(t, rng_below(t->len), &len);
  char *eq = memchr(t->data + start, '=', len);
  if (!eq) return;
  size_t at = (size_t)(eq - t->data) + 1, end = start + len - (t->data[start + len - 1] == '\n');
  const char *v = PICK(values);
  char buf[128];
  snprintf(buf, sizeof buf, " %s", v);
  text_splice(t, at, end - at, buf, strlen(buf));
}

static const char *const inserts[] = {
    "[case]\n", "[constants]\n", "[time]\n", "[boundary.bottom]\n", "[boundary.extra]\n",
    "[boundary.]\n", "[exact]\n", "[output]\n", "[bogus]\n", "[case\n", "[]\n", "\n",
    "x = 1\n", "=\n", "= 3\n", "name = n\n", "u = 1\n", "p = 0\n", "type = wall\n",
    "forces = top\n", "pmg_degrees = 1\n", "   indented = 1\n", "order = 3\n",
    "c1 = c2\n", "c2 = c1\n", "k = 1\n", "\xEF\xBB\xBF[case]\n", "key: value\n",
    "[boundary.a b]\n", ";\n", "#[case]\n"};

static void mutate_insert_line(text *t)
{
  size_t len, start = t->len ? line_around(t, rng_below(t->len), &len) : 0;
  if (rng_below(8) == 0) {   /* a very long line */
    size_t n = 150 + rng_below(200);
    char *line = insdg_malloc(n + 1);
    memset(line, 'a', n);
    memcpy(line, "u = ", 4);
    line[n - 1] = '\n';
    text_splice(t, start, 0, line, n);
    free(line);
    return;
  }
  const char *m = PICK(inserts);
  text_splice(t, start, 0, m, strlen(m));
}

static void mutate(text *t)
{
  switch (rng_below(10)) {
  case 0: mutate_byte(t); break;
  case 1: mutate_truncate(t); break;
  case 2: mutate_delete_line(t); break;
  case 3: mutate_duplicate_line(t); break;
  case 4: mutate_swap_lines(t); break;
  case 5: mutate_insert_line(t); break;
  case 6: case 7: mutate_value(t); break;
  default: mutate_number(t); break;
  }
}

/* ---- the invariants ------------------------------------------------------------------ */

static int terminated(const char *s, size_t len)
{
  return memchr(s, '\0', len) != NULL;
}

static int exprs_evaluate(const insdg_case *c)
{
  const insdg_expr *all[] = {c->initial_u, c->initial_v, c->initial_p,
                             c->exact_u,   c->exact_v,   c->exact_p};
  double sum = 0;
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
    if (all[i]) sum += insdg_expr_eval(all[i], 0.5, 0.25, 0.125);
  for (int i = 0; i < c->nboundary; i++) {
    const insdg_case_boundary *b = &c->boundary[i];
    if (b->u) sum += insdg_expr_eval(b->u, 1, 0, 1);
    if (b->v) sum += insdg_expr_eval(b->v, 1, 0, 1);
    if (b->p) sum += insdg_expr_eval(b->p, 1, 0, 1);
  }
  volatile double sink = sum;   /* any value will do: evaluating must merely not crash */
  (void)sink;
  return 1;
}

static int boundaries_valid(const insdg_case *c)
{
  int ok = c->nboundary >= 0;
  for (int i = 0; ok && i < c->nboundary; i++) {
    const insdg_case_boundary *b = &c->boundary[i];
    int inflow = b->kind == INSDG_BOUNDARY_INFLOW, outflow = b->kind == INSDG_BOUNDARY_OUTFLOW;
    ok = (b->kind == INSDG_BOUNDARY_WALL || inflow || outflow) &&
         terminated(b->name, sizeof b->name) && terminated(b->type, sizeof b->type) &&
         b->name[0] != '\0' && (b->u != NULL) == inflow && (b->v != NULL) == inflow &&
         (b->p != NULL) == outflow;
  }
  for (int i = 0; ok && i < c->nforces; i++)
    ok = terminated(c->forces[i], sizeof c->forces[i]) &&
         insdg_case_find_boundary(c, c->forces[i]) != NULL;
  return ok;
}

static int solver_valid(const insdg_case_solver *s, int order)
{
  int ok = s->tolerance > 0 && s->tolerance < 1 && s->max_iterations >= 1 &&
           s->npmg_degrees >= 0 && s->npmg_degrees <= INSDG_CASE_MAX_PMG;
  if (ok && s->npmg_degrees)
    ok = s->pmg_degrees[0] == order && s->pmg_degrees[s->npmg_degrees - 1] == 1;
  return ok;
}

static int check_success(const insdg_case *c, const char *path)
{
  int ok = c->order >= 1 && c->order <= 15 && c->nu > 0 && c->dt > 0 && c->final_time > 0 &&
           c->time_order >= 1 && c->time_order <= 3 && c->substeps >= 0 &&
           c->output_interval >= 0 && c->checkpoint_interval_steps >= 0 &&
           c->checkpoint_interval_seconds >= 0 && c->nconstants >= 1 &&
           c->nforces >= 0 && c->nforces <= INSDG_CASE_MAX_FORCES &&
           terminated(c->name, sizeof c->name) && c->name[0] != '\0' &&
           terminated(c->mesh, sizeof c->mesh) && terminated(c->output, sizeof c->output) &&
           c->initial_u && c->initial_v && c->initial_p &&
           (c->has_exact ? c->exact_u && c->exact_v : !c->exact_u && !c->exact_v && !c->exact_p) &&
           solver_valid(&c->velocity, c->order) && solver_valid(&c->pressure, c->order) &&
           boundaries_valid(c) && exprs_evaluate(c);
  static const char *const names[] = {"bottom", "right", "top", "left"};
  char err[INSDG_ERRMSG_LEN];
  if (insdg_case_check_boundaries(c, names, 4, err, sizeof err) != 0)
    ok = ok && strstr(err, path) == err && !strchr(err, '\n');
  return ok;
}

/* One read of the mutated text; returns 1 if the invariants hold. */
static int run_once(const text *t, const char *path, int short_buffer, int *nread)
{
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(t->data, 1, t->len, f) != t->len || fclose(f) != 0) {
    perror(path);
    exit(1);
  }
  insdg_case *c = (insdg_case *)&c;   /* anything but NULL: it must be set */
  char err[INSDG_ERRMSG_LEN + 8];
  memset(err, 'X', sizeof err);
  size_t errlen = short_buffer ? 1 + rng_below(40) : INSDG_ERRMSG_LEN;
  int status = insdg_case_read(path, &c, err, errlen);
  if (status == 0) {
    int ok = c != NULL && check_success(c, path);
    insdg_case_destroy(c);
    (*nread)++;
    return ok;
  }
  if (getenv("FUZZ_CASE_VERBOSE")) printf("%s\n", err);
  if (c != NULL) return 0;
  if (short_buffer)   /* terminated inside the buffer, nothing written past it */
    return memchr(err, '\0', errlen) != NULL && err[errlen] == 'X';
  return err[0] != '\0' && strstr(err, path) == err && strchr(err, '\n') == NULL;
}

/* good.ini and minimal.ini with their mesh path made absolute. */
static void load_seeds(const char *casedir, text seeds[2])
{
  static const char *const files[2] = {"good.ini", "minimal.ini"};
  static const char *const meshes[2] = {"square22.msh", "square41.msh"};
  char cwd[PATH_MAX / 2];
  INSDG_CHECK(getcwd(cwd, sizeof cwd) != NULL);
  for (int s = 0; s < 2; s++) {
    char path[PATH_MAX], from[64], to[2 * PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", casedir, files[s]);
    if (load(path, &seeds[s]) != 0) {
      perror(path);
      exit(1);
    }
    snprintf(from, sizeof from, "../meshes/%s", meshes[s]);
    snprintf(to, sizeof to, "%s%s%s/../meshes/%s", casedir[0] == '/' ? "" : cwd,
             casedir[0] == '/' ? "" : "/", casedir, meshes[s]);
    INSDG_CHECK(text_replace(&seeds[s], from, to) == 0);
  }
}

int main(int argc, char **argv)
{
  if (argc < 2) {
    fprintf(stderr, "usage: %s CASEDIR [ITERATIONS]\n", argv[0]);
    return 2;
  }
  const int iterations = argc > 2 ? atoi(argv[2]) : 3000;
  text seeds[2] = {{0}, {0}};
  load_seeds(argv[1], seeds);
  const int nbad = fuzz_loop("case", ".ini", seeds, iterations, mutate, run_once);
  free(seeds[0].data);
  free(seeds[1].data);
  return nbad != 0;
}
