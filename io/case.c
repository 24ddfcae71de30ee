/* case.c -- the case file reader and the expressions (see case.h, docs/case_file.md).
 *
 * Reading takes two passes, and the first error ends both:
 *  1. inih reads the file through read_line, which numbers the lines, refuses NUL bytes
 *     and lines too long for inih's buffer, drops leading blanks (so inih's multi-line
 *     values never apply and every handler call belongs to the line just read) and checks
 *     section headers itself (unknown, duplicate or malformed: so empty sections are
 *     checked too, and names are not cut to inih's 50 bytes). on_key stores every
 *     key = value with its line, refusing unknown keys and duplicates.
 *  2. interpret() turns the stored entries into the insdg_case section by section in
 *     dependency order ([constants] before [physics] before the expressions), so the
 *     sections may come in any order in the file.
 * Every message is one line "<path>:<line>: [section] key: what"; control characters
 * copied from the file are replaced by '?' so that it stays one line.
 */
#include "case.h"

#include "error.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <limits.h>
#include <math.h>
#include <muParserDLL.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ==== expressions ====================================================================== */

struct insdg_expr {
  muParserHandle_t parser;
  double *xyt;        /* [3] the variables x, y, t that muparser reads (heap: stable) */
  char *text;
  unsigned uses;      /* INSDG_EXPR_USES_* */
  int line;           /* of its key in the case file (0: a default) */
  char where[80];     /* "[section] key" */
};

static char *copy_string(const char *s)
{
  size_t n = strlen(s) + 1;
  char *p = insdg_malloc(n);
  memcpy(p, s, n);
  return p;
}

static void expr_free(insdg_expr *e)
{
  if (!e) return;
  if (e->parser) mupRelease(e->parser);
  free(e->xyt);
  free(e->text);
  free(e);
}

double insdg_expr_eval(const insdg_expr *e, double x, double y, double t)
{
  e->xyt[0] = x;
  e->xyt[1] = y;
  e->xyt[2] = t;
  return mupEval(e->parser);
}

void insdg_expr_eval_many(const insdg_expr *e, size_t n, const double *x, const double *y,
                          double t, double *out)
{
  for (size_t i = 0; i < n; i++) out[i] = insdg_expr_eval(e, x[i], y[i], t);
}

int insdg_expr_line(const insdg_expr *e) { return e->line; }

const char *insdg_expr_where(const insdg_expr *e) { return e->where; }

const char *insdg_expr_text(const insdg_expr *e)
{
  return e->text;
}

unsigned insdg_expr_uses(const insdg_expr *e)
{
  return e->uses;
}

static const char *const variable_names[3] = {"x", "y", "t"};

static int variable_index(const char *name)
{
  for (int i = 0; i < 3; i++)
    if (strcmp(name, variable_names[i]) == 0) return i;
  return -1;
}

/* muparser has an assignment operator '=' that would write into x, y or t: refuse any
   '=' that is not part of ==, <=, >= or !=. */
static int has_assignment(const char *text)
{
  for (const char *p = text; *p; p++) {
    if (*p != '=') continue;
    int after_comparison = p > text && strchr("=<>!", p[-1]) != NULL;
    if (!after_comparison && p[1] != '=') return 1;
  }
  return 0;
}

/* "x, y, t, pi, Re, nu": the names an expression may use, for messages. */
static void list_known_names(const insdg_case_constant *consts, int nconsts, int allow_xyt,
                             char *buf, size_t len)
{
  snprintf(buf, len, "%s", allow_xyt ? "x, y, t, pi" : "pi");
  for (int i = 0; i < nconsts; i++) {
    size_t used = strlen(buf);
    snprintf(buf + used, len - used, ", %s", consts[i].name);
  }
}

/* Refuse names that are not defined; record which of x, y, t are used. */
static int check_used_names(insdg_expr *e, const insdg_case_constant *consts, int nconsts,
                            int allow_xyt, char *why, size_t whylen)
{
  int nused = mupGetExprVarNum(e->parser);
  if (mupError(e->parser)) {   /* a syntax error: mupEval gives the better message */
    mupErrorReset(e->parser);
    return 0;
  }
  for (int i = 0; i < nused; i++) {
    const muChar_t *name = NULL;
    muFloat_t *where = NULL;
    mupGetExprVar(e->parser, (unsigned)i, &name, &where);
    int var = variable_index(name);
    if (var >= 0 && allow_xyt) {
      e->uses |= 1u << var;
      continue;
    }
    if (var >= 0) {
      snprintf(why, whylen, "uses '%s', but this value must be a constant (no x, y, t)", name);
      return -1;
    }
    char known[256];
    list_known_names(consts, nconsts, allow_xyt, known, sizeof known);
    snprintf(why, whylen, "unknown variable '%s' in '%s' (known here: %s%s)", name, e->text,
             known, allow_xyt ? "" : "; a [constants] entry may use only those above it");
    return -1;
  }
  return 0;
}

/* Evaluate once: the full parse, and the check that there is exactly one value. */
static int check_parses(insdg_expr *e, char *why, size_t whylen)
{
  mupEval(e->parser);
  if (mupError(e->parser)) {
    const char *msg = mupGetErrorMsg(e->parser);
    int pos = mupGetErrorPos(e->parser);
    if (strstr(msg, "position") || pos < 0)
      snprintf(why, whylen, "malformed expression '%s': %s", e->text, msg);
    else
      snprintf(why, whylen, "malformed expression '%s': %s at position %d", e->text, msg, pos);
    return -1;
  }
  int nvalues = 0;
  mupEvalMulti(e->parser, &nvalues);
  if (mupError(e->parser) || nvalues != 1) {
    snprintf(why, whylen, "malformed expression '%s': one value expected, not a list", e->text);
    return -1;
  }
  return 0;
}

/* Compile text with the given constants (and x, y, t when allow_xyt). NULL and a reason
   in why on failure. */
static insdg_expr *expr_compile(const char *text, const insdg_case_constant *consts,
                                int nconsts, int allow_xyt, char *why, size_t whylen)
{
  if (has_assignment(text)) {
    snprintf(why, whylen, "malformed expression '%s': '=' is not allowed (use == to compare)",
             text);
    return NULL;
  }
  insdg_expr *e = insdg_calloc(1, sizeof *e);
  e->text = copy_string(text);
  e->xyt = insdg_calloc(3, sizeof *e->xyt);
  e->parser = mupCreate(muBASETYPE_FLOAT);
  INSDG_CHECK(e->parser != NULL);
  mupDefineConst(e->parser, "pi", 3.14159265358979323846);
  for (int i = 0; i < nconsts; i++) mupDefineConst(e->parser, consts[i].name, consts[i].value);
  if (allow_xyt)
    for (int i = 0; i < 3; i++) mupDefineVar(e->parser, variable_names[i], &e->xyt[i]);
  if (mupError(e->parser)) {   /* muparser accepts every identifier; this is a safeguard */
    snprintf(why, whylen, "cannot define the names of this case: %s", mupGetErrorMsg(e->parser));
    expr_free(e);
    return NULL;
  }
  mupSetExpr(e->parser, text);
  if (check_used_names(e, consts, nconsts, allow_xyt, why, whylen) != 0 ||
      check_parses(e, why, whylen) != 0) {
    expr_free(e);
    return NULL;
  }
  return e;
}

/* ==== the first pass: lines, sections and keys ========================================= */

typedef struct {
  char *name;
  int line;
} section_header;

typedef struct {
  int section;        /* index into sections */
  char *key, *value;
  int line;
} key_entry;

typedef struct {
  const char *path;
  FILE *file;
  int lineno;                 /* lines read so far: the line the handler is called for */
  char *linebuf;
  size_t linecap;

  section_header *sections;
  int nsections, sections_cap;
  int current;                /* the section being read, -1 before the first header */

  key_entry *entries;
  int nentries, entries_cap;

  char *err;
  size_t errlen;
  int failed;
  int error_line;
} parse_state;

/* Record the first error: "<path>:<line>: [section] key: what" (section and key may be
   NULL; line < 0 leaves out the line). */
static void fail(parse_state *st, int line, const char *section, const char *key,
                 const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void fail(parse_state *st, int line, const char *section, const char *key,
                 const char *fmt, ...)
{
  if (st->failed) return;
  st->failed = 1;
  st->error_line = line;
  if (!st->errlen) return;
  char what[INSDG_ERRMSG_LEN];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  char where[64] = "";
  if (line >= 0) snprintf(where, sizeof where, ":%d", line);
  if (section && key)
    snprintf(st->err, st->errlen, "%s%s: [%s] %s: %s", st->path, where, section, key, what);
  else if (section)
    snprintf(st->err, st->errlen, "%s%s: [%s]: %s", st->path, where, section, what);
  else
    snprintf(st->err, st->errlen, "%s%s: %s", st->path, where, what);
}

/* Keep a message on one line whatever bytes the file held. */
static void make_one_line(char *msg)
{
  for (unsigned char *p = (unsigned char *)msg; *p; p++)
    if (*p < 0x20 || *p == 0x7f) *p = '?';
}

static const char *const plain_sections[] = {"case", "constants", "physics", "time",
                                             "velocity_solver", "pressure_solver",
                                             "initial", "exact", "output", "probes",
                                             "statistics"};
enum { NPLAIN_SECTIONS = sizeof plain_sections / sizeof plain_sections[0] };
static const char boundary_prefix[] = "boundary.";

/* The keys of each section, space-separated ([constants] takes any identifier). */
static const char *section_keys(const char *section)
{
  static const char *const keys[NPLAIN_SECTIONS] = {
      "name mesh order refine output", NULL, "nu", "dt final_time order substeps start steady_tolerance",
      "tolerance max_iterations preconditioner projection min_iterations",
      "tolerance max_iterations preconditioner projection min_iterations pmg_degrees pmg_smoother "
      "pmg_chebyshev_degree pmg_coarse",
      "u v p", "u v p",
      "interval checkpoint_interval_steps checkpoint_interval_seconds checkpoints_kept forces",
      NULL, "start"};   /* [probes]: any identifier (a probe's name) and interval */
  for (int i = 0; i < NPLAIN_SECTIONS; i++)
    if (strcmp(section, plain_sections[i]) == 0) return keys[i];
  return "type u v p";   /* boundary.NAME */
}

static int is_boundary_section(const char *section)
{
  return strncmp(section, boundary_prefix, sizeof boundary_prefix - 1) == 0;
}

static int is_known_section(const char *section)
{
  for (int i = 0; i < NPLAIN_SECTIONS; i++)
    if (strcmp(section, plain_sections[i]) == 0) return 1;
  return is_boundary_section(section) && section[sizeof boundary_prefix - 1] != '\0';
}

/* Is word one of the space-separated words of list? */
static int word_in_list(const char *word, const char *list)
{
  size_t n = strlen(word);
  for (const char *p = list; *p;) {
    size_t m = strcspn(p, " ");
    if (m == n && strncmp(p, word, n) == 0) return 1;
    p += m;
    while (*p == ' ') p++;
  }
  return 0;
}

static int find_section(const parse_state *st, const char *name)
{
  for (int i = 0; i < st->nsections; i++)
    if (strcmp(st->sections[i].name, name) == 0) return i;
  return -1;
}

/* A section header line "[name]" (leading blanks already gone). Returns 0 or -1. */
static int open_section(parse_state *st, const char *line)
{
  const char *end = line + 1;
  while (*end && *end != ']' && !(*end == ';' && isspace((unsigned char)end[-1]))) end++;
  if (*end != ']') {
    fail(st, st->lineno, NULL, NULL, "malformed section header: ']' missing");
    return -1;
  }
  const char *rest = end + 1;
  while (isspace((unsigned char)*rest)) rest++;
  if (*rest && *rest != ';' && *rest != '#') {
    fail(st, st->lineno, NULL, NULL, "unexpected text after the section header: '%s'", rest);
    return -1;
  }
  char name[sizeof boundary_prefix - 1 + INSDG_CASE_NAME_LEN];
  size_t len = (size_t)(end - line - 1);
  if (len >= sizeof name) {
    fail(st, st->lineno, NULL, NULL, "section name longer than %d characters",
         (int)sizeof name - 1);
    return -1;
  }
  memcpy(name, line + 1, len);
  name[len] = '\0';
  if (!is_known_section(name)) {
    fail(st, st->lineno, name, NULL,
         "unknown section (known: case, constants, physics, time, velocity_solver, "
         "pressure_solver, initial, boundary.NAME, exact, output, probes, statistics)");
    return -1;
  }
  int previous = find_section(st, name);
  if (previous >= 0) {
    fail(st, st->lineno, name, NULL, "duplicate section (first on line %d)",
         st->sections[previous].line);
    return -1;
  }
  if (st->nsections == st->sections_cap) {
    st->sections_cap = st->sections_cap ? 2 * st->sections_cap : 16;
    st->sections = realloc(st->sections, (size_t)st->sections_cap * sizeof *st->sections);
    INSDG_CHECK(st->sections != NULL);
  }
  st->sections[st->nsections].name = copy_string(name);
  st->sections[st->nsections].line = st->lineno;
  st->current = st->nsections++;
  return 0;
}

/* Read one whole line into st->linebuf; returns its length, or -1 at end of file.
   *has_nul tells whether it held a NUL byte. */
static long read_whole_line(parse_state *st, int *has_nul)
{
  size_t len = 0;
  int c;
  *has_nul = 0;
  while ((c = getc(st->file)) != EOF && c != '\n') {
    if (len + 2 > st->linecap) {
      st->linecap = st->linecap ? 2 * st->linecap : 256;
      st->linebuf = realloc(st->linebuf, st->linecap);
      INSDG_CHECK(st->linebuf != NULL);
    }
    if (c == '\0') *has_nul = 1;
    st->linebuf[len++] = (char)c;
  }
  if (c == EOF && len == 0) return -1;
  if (!st->linebuf) {   /* an empty first line */
    st->linecap = 256;
    st->linebuf = insdg_malloc(st->linecap);
  }
  st->linebuf[len] = '\0';
  return (long)len;
}

/* inih's reader: one line per call, checked and stripped (see the top of this file). */
static char *read_line(char *str, int num, void *stream)
{
  parse_state *st = stream;
  if (st->failed) return NULL;
  int has_nul;
  if (read_whole_line(st, &has_nul) < 0) return NULL;
  st->lineno++;
  if (has_nul) {
    fail(st, st->lineno, NULL, NULL, "NUL byte in the line");
    return NULL;
  }
  char *start = st->linebuf;
  if (st->lineno == 1 && strncmp(start, "\xEF\xBB\xBF", 3) == 0) start += 3;
  while (isspace((unsigned char)*start)) start++;
  size_t len = strlen(start);
  if (num < 2 || len > (size_t)num - 1) {
    fail(st, st->lineno, NULL, NULL, "line longer than %d characters", num - 1);
    return NULL;
  }
  if (*start == '[' && open_section(st, start) != 0) return NULL;
  memcpy(str, start, len + 1);
  return str;
}

static int is_identifier(const char *s)
{
  if (!(isalpha((unsigned char)*s) || *s == '_')) return 0;
  for (s++; *s; s++)
    if (!(isalnum((unsigned char)*s) || *s == '_')) return 0;
  return 1;
}

/* inih's handler: store key = value of the current section (inih's own section name is
   not used: it is cut to 50 bytes). Returns 1 to go on, 0 on error. */
static int on_key(void *user, const char *inih_section, const char *key, const char *value)
{
  (void)inih_section;
  parse_state *st = user;
  if (st->failed) return 0;
  if (st->current < 0) {
    fail(st, st->lineno, NULL, NULL, "'%s' is outside any section", key);
    return 0;
  }
  const char *section = st->sections[st->current].name;
  const char *keys = section_keys(section);
  if (keys ? !word_in_list(key, keys) : !is_identifier(key)) {
    if (keys)
      fail(st, st->lineno, section, key, "unknown key (known: %s)", keys);
    else if (strcmp(section, "probes") == 0)
      fail(st, st->lineno, section, key, "a probe's name must be an identifier (or the key interval)");
    else
      fail(st, st->lineno, section, key, "a constant's name must be an identifier");
    return 0;
  }
  for (int i = 0; i < st->nentries; i++)
    if (st->entries[i].section == st->current && strcmp(st->entries[i].key, key) == 0) {
      fail(st, st->lineno, section, key, "duplicate key (first on line %d)",
           st->entries[i].line);
      return 0;
    }
  if (st->nentries == st->entries_cap) {
    st->entries_cap = st->entries_cap ? 2 * st->entries_cap : 32;
    st->entries = realloc(st->entries, (size_t)st->entries_cap * sizeof *st->entries);
    INSDG_CHECK(st->entries != NULL);
  }
  key_entry *e = &st->entries[st->nentries++];
  e->section = st->current;
  e->key = copy_string(key);
  e->value = copy_string(value);
  e->line = st->lineno;
  return 1;
}

static void parse_state_free(parse_state *st)
{
  for (int i = 0; i < st->nsections; i++) free(st->sections[i].name);
  for (int i = 0; i < st->nentries; i++) {
    free(st->entries[i].key);
    free(st->entries[i].value);
  }
  free(st->sections);
  free(st->entries);
  free(st->linebuf);
}

/* The first pass. Returns 0 or -1 (message in st). */
static int read_entries(parse_state *st)
{
  st->file = fopen(st->path, "rb");
  if (!st->file) {
    fail(st, -1, NULL, NULL, "cannot open the case file: %s", strerror(errno));
    return -1;
  }
  struct stat info;
  if (fstat(fileno(st->file), &info) != 0 || !S_ISREG(info.st_mode)) {
    fail(st, -1, NULL, NULL, "not a regular file");
    fclose(st->file);
    return -1;
  }
  int inih_status = ini_parse_stream(read_line, st, on_key, st);
  int read_error = ferror(st->file);
  fclose(st->file);
  st->file = NULL;
  if (inih_status > 0 && (!st->failed || inih_status < st->error_line)) {
    st->failed = 0;   /* an earlier line of the file is wrong: report that one */
    fail(st, inih_status, NULL, NULL, "syntax error: expected '[section]' or 'key = value'");
  }
  if (inih_status < 0) fail(st, -1, NULL, NULL, "cannot read the case file (inih %d)", inih_status);
  if (read_error) fail(st, -1, NULL, NULL, "read error");
  return st->failed ? -1 : 0;
}

/* ==== the second pass: values ========================================================== */

static const key_entry *find_entry(const parse_state *st, const char *section, const char *key)
{
  int s = find_section(st, section);
  for (int i = 0; s >= 0 && i < st->nentries; i++)
    if (st->entries[i].section == s && strcmp(st->entries[i].key, key) == 0)
      return &st->entries[i];
  return NULL;
}

/* The entry, or NULL; a missing required key is an error (returned as -1 in *status). */
static const key_entry *get_entry(parse_state *st, const char *section, const char *key,
                                  int required, int *status)
{
  const key_entry *e = find_entry(st, section, key);
  *status = 0;
  if (e || !required) return e;
  int s = find_section(st, section);
  if (s >= 0)
    fail(st, st->sections[s].line, section, key, "missing required key");
  else
    fail(st, 0, section, key, "missing required key (there is no [%s] section)", section);
  *status = -1;
  return NULL;
}

/* An integer key in [lo, hi]; *out keeps its default when absent and not required. */
static int get_int(parse_state *st, const char *section, const char *key, int required,
                   int lo, int hi, int *out)
{
  int status;
  const key_entry *e = get_entry(st, section, key, required, &status);
  if (!e) return status;
  char *end;
  errno = 0;
  long v = strtol(e->value, &end, 10);
  if (end == e->value || *end != '\0' || errno == ERANGE) {
    fail(st, e->line, section, key, "'%s' is not an integer", e->value);
    return -1;
  }
  if (v < lo || v > hi) {
    fail(st, e->line, section, key, "%ld is out of range (%d..%d)", v, lo, hi);
    return -1;
  }
  *out = (int)v;
  return 0;
}

typedef enum { REAL_POSITIVE, REAL_NONNEGATIVE, REAL_FRACTION } real_range;

static const char *real_range_violation(double v, real_range range)
{
  if (!isfinite(v)) return "must be finite";
  if (range == REAL_POSITIVE && !(v > 0)) return "must be > 0";
  if (range == REAL_NONNEGATIVE && !(v >= 0)) return "must be >= 0";
  if (range == REAL_FRACTION && !(v > 0 && v < 1)) return "must be in (0, 1)";
  return NULL;
}

/* A constant expression (numbers, pi and the constants so far) of one entry. */
static int eval_constant(parse_state *st, const insdg_case *c, const key_entry *e,
                         const char *section, double *out)
{
  char why[INSDG_ERRMSG_LEN];
  insdg_expr *x = expr_compile(e->value, c->constants, c->nconstants, 0, why, sizeof why);
  if (!x) {
    fail(st, e->line, section, e->key, "%s", why);
    return -1;
  }
  *out = insdg_expr_eval(x, 0, 0, 0);
  expr_free(x);
  return 0;
}

/* A real key: a constant expression whose value lies in range. */
static int get_real(parse_state *st, const insdg_case *c, const char *section, const char *key,
                    int required, real_range range, double *out)
{
  int status;
  const key_entry *e = get_entry(st, section, key, required, &status);
  if (!e) return status;
  double v;
  if (eval_constant(st, c, e, section, &v) != 0) return -1;
  const char *violation = real_range_violation(v, range);
  if (violation) {
    char *end;
    strtod(e->value, &end);
    if (*end == '\0')
      fail(st, e->line, section, key, "%s %s", e->value, violation);
    else
      fail(st, e->line, section, key, "'%s' is %g, %s", e->value, v, violation);
    return -1;
  }
  *out = v;
  return 0;
}

/* An expression key in x, y, t. *out stays NULL when absent and not required; absent
   with a default text compiles the default. */
static int get_expr(parse_state *st, const insdg_case *c, const char *section, const char *key,
                    int required, const char *default_text, insdg_expr **out)
{
  int status;
  const key_entry *e = get_entry(st, section, key, required, &status);
  if (!e && !default_text) return status;
  char why[INSDG_ERRMSG_LEN];
  *out = expr_compile(e ? e->value : default_text, c->constants, c->nconstants, 1, why,
                      sizeof why);
  if (!*out) {
    fail(st, e ? e->line : 0, section, key, "%s", why);
    return -1;
  }
  (*out)->line = e ? e->line : 0;
  snprintf((*out)->where, sizeof (*out)->where, "[%.40s] %.30s", section, key);
  return 0;
}

/* A key that must not be given (why says so). */
static int forbid_key(parse_state *st, const char *section, const char *key, const char *why)
{
  const key_entry *e = find_entry(st, section, key);
  if (!e) return 0;
  fail(st, e->line, section, key, "%s", why);
  return -1;
}

/* dir + "/" + rel unless rel is absolute or dir empty. Returns 0 or -1 (too long). */
static int resolve_path(const char *dir, const char *rel, char *out, size_t outlen)
{
  int n;
  if (rel[0] == '/' || dir[0] == '\0')
    n = snprintf(out, outlen, "%s", rel);
  else if (dir[strlen(dir) - 1] == '/')
    n = snprintf(out, outlen, "%s%s", dir, rel);
  else
    n = snprintf(out, outlen, "%s/%s", dir, rel);
  return n < 0 || (size_t)n >= outlen ? -1 : 0;
}

static int is_name_char(int ch)
{
  return isalnum(ch) || strchr("_-.+", ch) != NULL;
}

/* The file name without directory and last extension, other characters made '_'. */
static void default_case_name(const char *path, char *name, size_t len)
{
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  const char *dot = strrchr(base, '.');
  size_t n = dot && dot > base ? (size_t)(dot - base) : strlen(base);
  if (n >= len) n = len - 1;
  for (size_t i = 0; i < n; i++) name[i] = is_name_char((unsigned char)base[i]) ? base[i] : '_';
  name[n] = '\0';
  if (n == 0) snprintf(name, len, "case");
}

static int read_case_name(parse_state *st, insdg_case *c)
{
  const key_entry *e = find_entry(st, "case", "name");
  if (!e) {
    default_case_name(c->path, c->name, sizeof c->name);
    return 0;
  }
  size_t n = strlen(e->value);
  for (size_t i = 0; i < n; i++)
    if (!is_name_char((unsigned char)e->value[i])) n = 0;
  if (n == 0 || n >= sizeof c->name) {
    fail(st, e->line, "case", "name",
         "'%s' is not a name (1 to %d letters, digits, '_', '-', '.', '+')", e->value,
         (int)sizeof c->name - 1);
    return -1;
  }
  memcpy(c->name, e->value, n + 1);
  return 0;
}

/* A path key: nonempty, resolved relative to the case file's directory. */
static int resolve_entry_path(parse_state *st, const insdg_case *c, const key_entry *e,
                              const char *section, char *out, size_t outlen)
{
  if (e->value[0] == '\0') {
    fail(st, e->line, section, e->key, "empty path");
    return -1;
  }
  if (resolve_path(c->dir, e->value, out, outlen) != 0) {
    fail(st, e->line, section, e->key, "path longer than %d characters", (int)outlen - 1);
    return -1;
  }
  return 0;
}

static int read_mesh_path(parse_state *st, insdg_case *c)
{
  int status;
  const key_entry *e = get_entry(st, "case", "mesh", 1, &status);
  if (!e) return status;
  if (resolve_entry_path(st, c, e, "case", c->mesh, sizeof c->mesh) != 0) return -1;
  struct stat info;
  if (stat(c->mesh, &info) != 0 || access(c->mesh, R_OK) != 0) {
    fail(st, e->line, "case", "mesh", "cannot read '%s': %s", c->mesh, strerror(errno));
    return -1;
  }
  if (!S_ISREG(info.st_mode)) {
    fail(st, e->line, "case", "mesh", "'%s' is not a regular file", c->mesh);
    return -1;
  }
  return 0;
}

static int read_output_dir(parse_state *st, insdg_case *c)
{
  const key_entry *e = find_entry(st, "case", "output");
  if (e) return resolve_entry_path(st, c, e, "case", c->output, sizeof c->output);
  char rel[INSDG_CASE_NAME_LEN + 8];
  snprintf(rel, sizeof rel, "out/%s", c->name);
  if (resolve_path(c->dir, rel, c->output, sizeof c->output) != 0) {
    fail(st, 0, "case", "output", "default path longer than %d characters",
         (int)sizeof c->output - 1);
    return -1;
  }
  return 0;
}

static int read_case_section(parse_state *st, insdg_case *c)
{
  if (read_case_name(st, c) || read_mesh_path(st, c) ||
      get_int(st, "case", "order", 1, 1, 15, &c->order) || get_int(st, "case", "refine", 0, 0, 6, &c->refine) ||
      read_output_dir(st, c))
    return -1;
  return 0;
}

/* Names a constant may not take: the variables, nu, and muparser's own names. */
static int is_reserved_name(const char *name)
{
  static const char reserved[] =
      "x y t nu pi _pi _e sin cos tan asin acos atan sinh cosh tanh asinh acosh atanh "
      "log2 log10 log ln exp sqrt sign rint abs min max sum avg atan2";
  return word_in_list(name, reserved);
}

static void append_constant(insdg_case *c, const char *name, double value)
{
  insdg_case_constant *k = &c->constants[c->nconstants++];
  snprintf(k->name, sizeof k->name, "%s", name);
  k->value = value;
}

/* [constants] in file order: each may use pi and the constants above it. */
static int read_constants(parse_state *st, insdg_case *c)
{
  c->constants = insdg_calloc((size_t)st->nentries + 1, sizeof *c->constants);
  int s = find_section(st, "constants");
  for (int i = 0; s >= 0 && i < st->nentries; i++) {
    const key_entry *e = &st->entries[i];
    if (e->section != s) continue;
    if (is_reserved_name(e->key) || strlen(e->key) >= INSDG_CASE_NAME_LEN) {
      fail(st, e->line, "constants", e->key,
           strlen(e->key) >= INSDG_CASE_NAME_LEN ? "name too long"
                                                 : "reserved name (a variable or function)");
      return -1;
    }
    double value;
    if (eval_constant(st, c, e, "constants", &value) != 0) return -1;
    if (!isfinite(value)) {
      fail(st, e->line, "constants", e->key, "'%s' is %g, must be finite", e->value, value);
      return -1;
    }
    append_constant(c, e->key, value);
  }
  return 0;
}

/* [physics] nu; afterwards nu is a constant of every expression. */
static int read_physics(parse_state *st, insdg_case *c)
{
  if (get_real(st, c, "physics", "nu", 1, REAL_POSITIVE, &c->nu) != 0) return -1;
  append_constant(c, "nu", c->nu);
  return 0;
}

static int read_time(parse_state *st, insdg_case *c)
{
  c->time_order = 2;
  c->substeps = 0;
  if (get_real(st, c, "time", "dt", 1, REAL_POSITIVE, &c->dt) ||
      get_real(st, c, "time", "final_time", 1, REAL_POSITIVE, &c->final_time) ||
      get_int(st, "time", "order", 0, 1, 2, &c->time_order) ||
      get_int(st, "time", "substeps", 0, 0, 1000, &c->substeps) ||
      get_real(st, c, "time", "steady_tolerance", 0, REAL_POSITIVE, &c->steady_tolerance))
    return -1;
  /* the run takes round(final_time / dt) steps: at least 1, at most 1e9 */
  const double nsteps = round(c->final_time / c->dt);
  if (nsteps < 1 || nsteps > 1e9) {
    const key_entry *f = find_entry(st, "time", "final_time");
    fail(st, f ? f->line : 0, "time", "final_time", "%g is %s (dt = %g)", c->final_time,
         nsteps < 1 ? "less than half a time step" : "more than 1e9 time steps", c->dt);
    return -1;
  }
  /* start = lower_order (default): BDF1/EXT1 first, then BDF2; exact: the history before
     t = 0 from the [exact] section, so that the first step is already of order S */
  c->start_exact = 0;
  const key_entry *e = find_entry(st, "time", "start");
  if (e) {
    if (strcmp(e->value, "exact") == 0) c->start_exact = 1;
    else if (strcmp(e->value, "lower_order") != 0) {
      fail(st, e->line, "time", "start", "unknown start '%s' (known: lower_order exact)", e->value);
      return -1;
    }
  }
  return 0;
}

const char *insdg_precond_name(insdg_precond p)
{
  static const char *const names[] = {"default", "none", "jacobi", "inverse_mass", "pmg_amg", "full_amg",
                                      "block_jacobi"};
  return (unsigned)p < sizeof names / sizeof names[0] ? names[p] : "?";
}

/* preconditioner = one of the space-separated names in allowed. */
static int read_preconditioner(parse_state *st, const char *section, const char *allowed,
                               insdg_precond *out)
{
  const key_entry *e = find_entry(st, section, "preconditioner");
  if (!e) return 0;
  for (int p = INSDG_PRECOND_NONE; p <= INSDG_PRECOND_BLOCK_JACOBI; p++)
    if (strcmp(e->value, insdg_precond_name((insdg_precond)p)) == 0 &&
        word_in_list(e->value, allowed)) {
      *out = (insdg_precond)p;
      return 0;
    }
  fail(st, e->line, section, "preconditioner", "unknown preconditioner '%s' (known: %s)",
       e->value, allowed);
  return -1;
}

/* pmg_degrees = N ... 1: decreasing, first = order, last = 1, with pmg_amg only. */
static int read_pmg_degrees(parse_state *st, const insdg_case *c, insdg_case_solver *s)
{
  const key_entry *e = find_entry(st, "pressure_solver", "pmg_degrees");
  if (!e) return 0;
  if (s->preconditioner != INSDG_PRECOND_PMG_AMG) {
    fail(st, e->line, "pressure_solver", "pmg_degrees", "needs preconditioner = pmg_amg");
    return -1;
  }
  const char *p = e->value;
  s->npmg_degrees = 0;
  while (*p) {
    char *end;
    errno = 0;
    long d = strtol(p, &end, 10);
    int bad = end == p || (*end && !isspace((unsigned char)*end)) || errno == ERANGE;
    int prev = s->npmg_degrees ? s->pmg_degrees[s->npmg_degrees - 1] : c->order + 1;
    if (bad || d < 1 || d >= prev || s->npmg_degrees == INSDG_CASE_MAX_PMG) break;
    s->pmg_degrees[s->npmg_degrees++] = (int)d;
    for (p = end; isspace((unsigned char)*p); p++) continue;
  }
  if (*p || s->npmg_degrees == 0 || s->pmg_degrees[0] != c->order ||
      s->pmg_degrees[s->npmg_degrees - 1] != 1) {
    fail(st, e->line, "pressure_solver", "pmg_degrees",
         "'%s' is not a decreasing list of degrees from order = %d down to 1", e->value,
         c->order);
    return -1;
  }
  return 0;
}

/* pmg_smoother = block_jacobi | jacobi, pmg_chebyshev_degree = 1..16, pmg_coarse = auto |
   amg: with pmg_amg only */
static int read_pmg_smoother(parse_state *st, insdg_case_solver *s)
{
  static const char *const keys[] = {"pmg_smoother", "pmg_chebyshev_degree", "pmg_coarse"};
  for (int k = 0; k < 3; k++) {
    const key_entry *e = find_entry(st, "pressure_solver", keys[k]);
    if (e && s->preconditioner != INSDG_PRECOND_PMG_AMG) {
      fail(st, e->line, "pressure_solver", keys[k], "needs preconditioner = pmg_amg");
      return -1;
    }
  }
  const key_entry *e = find_entry(st, "pressure_solver", "pmg_smoother");
  s->pmg_point_jacobi = 0;
  if (e) {
    if (strcmp(e->value, "block_jacobi") && strcmp(e->value, "jacobi")) {
      fail(st, e->line, "pressure_solver", "pmg_smoother", "unknown smoother '%s' (known: block_jacobi jacobi)",
           e->value);
      return -1;
    }
    s->pmg_point_jacobi = !strcmp(e->value, "jacobi");
  }
  e = find_entry(st, "pressure_solver", "pmg_coarse");
  s->pmg_coarse_amg = 0;
  if (e) {
    if (strcmp(e->value, "auto") && strcmp(e->value, "amg")) {
      fail(st, e->line, "pressure_solver", "pmg_coarse", "unknown coarse solve '%s' (known: auto amg)", e->value);
      return -1;
    }
    s->pmg_coarse_amg = !strcmp(e->value, "amg");
  }
  s->pmg_chebyshev_degree = 2;   /* insdg run's default: projected guesses need few, cheap cycles */
  return get_int(st, "pressure_solver", "pmg_chebyshev_degree", 0, 1, 16, &s->pmg_chebyshev_degree);
}

static int read_solver(parse_state *st, const insdg_case *c, const char *section, int pressure,
                       insdg_case_solver *s)
{
  s->tolerance = 1e-8;
  s->max_iterations = 1000;
  /* the velocity's default is chosen at start-up from lambda and the mesh (tasks/ins.c) */
  s->preconditioner = pressure ? INSDG_PRECOND_PMG_AMG : INSDG_PRECOND_DEFAULT;
  s->npmg_degrees = 0;
  const char *allowed = pressure ? "pmg_amg full_amg jacobi none" : "inverse_mass block_jacobi pmg_amg jacobi none";
  s->projection = INSDG_CASE_DEFAULT_PROJECTION;
  if (get_real(st, c, section, "tolerance", 0, REAL_FRACTION, &s->tolerance) ||
      get_int(st, section, "max_iterations", 0, 1, 1000000, &s->max_iterations) ||
      read_preconditioner(st, section, allowed, &s->preconditioner) ||
      get_int(st, section, "projection", 0, 0, INSDG_CASE_MAX_PROJECTION, &s->projection))
    return -1;
  /* a projected velocity guess often meets the tolerance at once; the pressure solve
     then pays for the velocity's unconverged part (docs/solvers.md, "Solution projection") */
  s->min_iterations = !pressure && s->projection > 0 ? (s->max_iterations < 4 ? s->max_iterations : 4) : 0;
  if (get_int(st, section, "min_iterations", 0, 0, s->max_iterations, &s->min_iterations)) return -1;
  return pressure ? read_pmg_degrees(st, c, s) || read_pmg_smoother(st, s) : 0;
}

static int read_initial(parse_state *st, insdg_case *c)
{
  if (get_expr(st, c, "initial", "u", 1, NULL, &c->initial_u) ||
      get_expr(st, c, "initial", "v", 1, NULL, &c->initial_v) ||
      get_expr(st, c, "initial", "p", 0, "0", &c->initial_p))
    return -1;
  return 0;
}

static int boundary_type(const char *text, insdg_boundary_kind *kind)
{
  static const char *const names[] = {"inflow", "wall", "outflow"};
  for (int k = 0; k < 3; k++)
    if (strcmp(text, names[k]) == 0) {
      *kind = (insdg_boundary_kind)k;
      return 0;
    }
  return -1;
}

/* The keys of one [boundary.NAME] section for its type. */
static int read_boundary_data(parse_state *st, const insdg_case *c, const char *section,
                              insdg_case_boundary *b)
{
  if (b->kind == INSDG_BOUNDARY_INFLOW) {
    if (get_expr(st, c, section, "u", 1, NULL, &b->u) ||
        get_expr(st, c, section, "v", 1, NULL, &b->v))
      return -1;
    return forbid_key(st, section, "p",
                      "not allowed on an inflow boundary (pressure is natural there)");
  }
  if (b->kind == INSDG_BOUNDARY_WALL) {
    const char *why = "not allowed on a wall (u = v = 0 there; a moving wall is type = inflow)";
    if (forbid_key(st, section, "u", why) || forbid_key(st, section, "v", why))
      return -1;
    return forbid_key(st, section, "p", why);
  }
  const char *why = "not allowed on an outflow boundary (velocity is natural there)";
  if (forbid_key(st, section, "u", why) || forbid_key(st, section, "v", why)) return -1;
  return get_expr(st, c, section, "p", 0, "0", &b->p);
}

static int read_boundary(parse_state *st, const insdg_case *c, int s, insdg_case_boundary *b)
{
  const char *section = st->sections[s].name;
  snprintf(b->name, sizeof b->name, "%s", section + sizeof boundary_prefix - 1);
  b->line = st->sections[s].line;
  int status;
  const key_entry *e = get_entry(st, section, "type", 1, &status);
  if (!e) return status;
  if (boundary_type(e->value, &b->kind) != 0) {
    fail(st, e->line, section, "type", "unknown boundary type '%s' (known: inflow wall outflow)",
         e->value);
    return -1;
  }
  snprintf(b->type, sizeof b->type, "%s", e->value);
  return read_boundary_data(st, c, section, b);
}

static int read_boundaries(parse_state *st, insdg_case *c)
{
  c->boundary = insdg_calloc((size_t)st->nsections, sizeof *c->boundary);
  for (int s = 0; s < st->nsections; s++) {
    if (!is_boundary_section(st->sections[s].name)) continue;
    if (read_boundary(st, c, s, &c->boundary[c->nboundary++]) != 0) return -1;
  }
  return 0;
}

static int read_exact(parse_state *st, insdg_case *c)
{
  if (find_section(st, "exact") < 0) return 0;
  c->has_exact = 1;
  if (get_expr(st, c, "exact", "u", 1, NULL, &c->exact_u) ||
      get_expr(st, c, "exact", "v", 1, NULL, &c->exact_v) ||
      get_expr(st, c, "exact", "p", 0, NULL, &c->exact_p))
    return -1;
  return 0;
}

/* forces = names separated by blanks, each a [boundary.NAME] of this case, no repeats. */
static int read_forces(parse_state *st, insdg_case *c)
{
  const key_entry *e = find_entry(st, "output", "forces");
  if (!e) return 0;
  c->forces_line = e->line;
  for (const char *p = e->value + strspn(e->value, " \t"); *p; p += strspn(p, " \t")) {
    size_t n = strcspn(p, " \t");
    char name[INSDG_CASE_NAME_LEN];
    snprintf(name, sizeof name, "%.*s", (int)(n < sizeof name ? n : sizeof name - 1), p);
    p += n;
    const char *problem = NULL;
    if (c->nforces == INSDG_CASE_MAX_FORCES) problem = "too many boundaries";
    else if (n >= sizeof name || !insdg_case_find_boundary(c, name))
      problem = "has no [boundary.NAME] section";
    for (int i = 0; !problem && i < c->nforces; i++)
      if (strcmp(c->forces[i], name) == 0) problem = "is listed twice";
    if (problem) {
      fail(st, e->line, "output", "forces", "'%s' %s", name, problem);
      return -1;
    }
    memcpy(c->forces[c->nforces++], name, sizeof name);
  }
  return 0;
}

static int read_output(parse_state *st, insdg_case *c)
{
  c->checkpoints_kept = INSDG_CASE_DEFAULT_CHECKPOINTS_KEPT;
  if (get_real(st, c, "output", "interval", 0, REAL_NONNEGATIVE, &c->output_interval) ||
      get_int(st, "output", "checkpoint_interval_steps", 0, 0, INT_MAX,
              &c->checkpoint_interval_steps) ||
      get_real(st, c, "output", "checkpoint_interval_seconds", 0, REAL_NONNEGATIVE,
               &c->checkpoint_interval_seconds) ||
      get_int(st, "output", "checkpoints_kept", 0, 1, 1000000, &c->checkpoints_kept) ||
      read_forces(st, c))
    return -1;
  return 0;
}

/* One coordinate of a probe: the constant expression text[0..n) */
static int probe_coordinate(parse_state *st, const insdg_case *c, const key_entry *e, const char *text, size_t n,
                            double *out)
{
  char buf[1024];
  snprintf(buf, sizeof buf, "%.*s", (int)(n < sizeof buf ? n : sizeof buf - 1), text);
  const key_entry part = {e->section, e->key, buf, e->line};
  if (eval_constant(st, c, &part, "probes", out) != 0) return -1;
  if (!isfinite(*out)) {
    fail(st, e->line, "probes", e->key, "'%s' is %g, must be finite", buf, *out);
    return -1;
  }
  return 0;
}

/* NAME = x, y: two constant expressions separated by the one comma outside parentheses
   (so that atan2(1, 2) stays one coordinate) */
static int read_probe(parse_state *st, const insdg_case *c, const key_entry *e, insdg_case_probe *p)
{
  const char *comma = NULL;
  int depth = 0, commas = 0;
  for (const char *q = e->value; *q; q++) {
    depth += *q == '(' ? 1 : *q == ')' ? -1 : 0;
    if (*q == ',' && depth == 0) comma = q, commas++;
  }
  if (commas != 1) {
    fail(st, e->line, "probes", e->key, "'%s' is not a point 'x, y' (two constant expressions separated by a comma)",
         e->value);
    return -1;
  }
  if (strlen(e->key) >= sizeof p->name) {
    fail(st, e->line, "probes", e->key, "name too long");
    return -1;
  }
  snprintf(p->name, sizeof p->name, "%s", e->key);
  p->line = e->line;
  return probe_coordinate(st, c, e, e->value, (size_t)(comma - e->value), &p->x) ||
         probe_coordinate(st, c, e, comma + 1, strlen(comma + 1), &p->y);
}

/* [probes]: interval, and every other key a named point, in file order */
static int read_probes(parse_state *st, insdg_case *c)
{
  const int s = find_section(st, "probes");
  if (s < 0) return 0;
  if (get_real(st, c, "probes", "interval", 0, REAL_NONNEGATIVE, &c->probe_interval)) return -1;
  c->probes = insdg_calloc((size_t)st->nentries + 1, sizeof *c->probes);
  for (int i = 0; i < st->nentries; i++) {
    const key_entry *e = &st->entries[i];
    if (e->section != s || strcmp(e->key, "interval") == 0) continue;
    if (read_probe(st, c, e, &c->probes[c->nprobes]) != 0) return -1;
    c->nprobes++;
  }
  if (c->nprobes == 0) {
    fail(st, st->sections[s].line, "probes", NULL, "no probe (NAME = x, y) in the section");
    return -1;
  }
  return 0;
}

/* [statistics] start = the window's start (default 0) */
static int read_statistics(parse_state *st, insdg_case *c)
{
  const int s = find_section(st, "statistics");
  if (s < 0) return 0;
  c->has_statistics = 1;
  c->statistics_line = st->sections[s].line;
  if (get_real(st, c, "statistics", "start", 0, REAL_NONNEGATIVE, &c->statistics_start)) return -1;
  if (c->statistics_start > c->final_time) {
    const key_entry *e = find_entry(st, "statistics", "start");
    fail(st, e->line, "statistics", "start", "%g is after [time] final_time = %g: the window would be empty",
         c->statistics_start, c->final_time);
    return -1;
  }
  return 0;
}

/* The second pass, in dependency order. */
static int interpret(parse_state *st, insdg_case *c)
{
  if (read_case_section(st, c) || read_constants(st, c) || read_physics(st, c) ||
      read_time(st, c) || read_solver(st, c, "velocity_solver", 0, &c->velocity) ||
      read_solver(st, c, "pressure_solver", 1, &c->pressure) || read_initial(st, c) ||
      read_boundaries(st, c) || read_exact(st, c) || read_output(st, c) || read_probes(st, c) ||
      read_statistics(st, c))
    return -1;
  if (c->start_exact && !c->has_exact) {
    fail(st, find_entry(st, "time", "start")->line, "time", "start", "start = exact needs an [exact] section");
    return -1;
  }
  return 0;
}

static void set_case_dir(insdg_case *c)
{
  const char *slash = strrchr(c->path, '/');
  size_t n = slash ? (size_t)(slash - c->path) : 0;
  if (slash == c->path) n = 1;   /* "/case.ini": the root */
  memcpy(c->dir, c->path, n);
  c->dir[n] = '\0';
}

int insdg_case_read(const char *path, insdg_case **out, char *err, size_t errlen)
{
  *out = NULL;
  if (errlen) err[0] = '\0';
  parse_state st = {.path = path, .current = -1, .err = err, .errlen = errlen};
  insdg_case *c = insdg_calloc(1, sizeof *c);
  if (strlen(path) >= sizeof c->path) {
    fail(&st, -1, NULL, NULL, "path of the case file too long");
  } else {
    memcpy(c->path, path, strlen(path) + 1);
    set_case_dir(c);
    if (read_entries(&st) == 0) interpret(&st, c);
  }
  parse_state_free(&st);
  if (st.failed) {
    if (errlen) make_one_line(err);
    insdg_case_destroy(c);
    return 1;
  }
  *out = c;
  return 0;
}

/* ==== after reading ==================================================================== */

const insdg_case_boundary *insdg_case_find_boundary(const insdg_case *c, const char *name)
{
  for (int i = 0; i < c->nboundary; i++)
    if (strcmp(c->boundary[i].name, name) == 0) return &c->boundary[i];
  return NULL;
}

static int name_in(const char *name, const char *const *names, int n)
{
  for (int i = 0; i < n; i++)
    if (strcmp(names[i], name) == 0) return 1;
  return 0;
}

/* "a, b, c" (cut to len) */
static void join_names(const char *const *names, int n, char *buf, size_t len)
{
  buf[0] = '\0';
  for (int i = 0; i < n; i++) {
    size_t used = strlen(buf);
    snprintf(buf + used, len - used, "%s%s", i ? ", " : "", names[i]);
  }
}

int insdg_case_check_boundaries(const insdg_case *c, const char *const *mesh_names,
                                int nnames, char *err, size_t errlen)
{
  parse_state st = {.path = c->path, .err = err, .errlen = errlen};
  char section[sizeof boundary_prefix + INSDG_CASE_NAME_LEN];
  char known[256];
  join_names(mesh_names, nnames, known, sizeof known);
  for (int i = 0; i < nnames && !st.failed; i++) {
    if (insdg_case_find_boundary(c, mesh_names[i])) continue;
    snprintf(section, sizeof section, "%s%s", boundary_prefix, mesh_names[i]);
    fail(&st, 0, section, NULL, "missing section for the mesh boundary '%s'", mesh_names[i]);
  }
  for (int i = 0; i < c->nboundary && !st.failed; i++) {
    if (name_in(c->boundary[i].name, mesh_names, nnames)) continue;
    snprintf(section, sizeof section, "%s%s", boundary_prefix, c->boundary[i].name);
    fail(&st, c->boundary[i].line, section, NULL,
         "the mesh has no boundary of this name (mesh boundaries: %s)", known);
  }
  for (int i = 0; i < c->nforces && !st.failed; i++)
    if (!name_in(c->forces[i], mesh_names, nnames))
      fail(&st, c->forces_line, "output", "forces",
           "'%s' is not a boundary of the mesh (mesh boundaries: %s)", c->forces[i], known);
  if (st.failed && errlen) make_one_line(err);
  return st.failed;
}

int insdg_case_has_outflow(const insdg_case *c)
{
  for (int i = 0; i < c->nboundary; i++)
    if (c->boundary[i].kind == INSDG_BOUNDARY_OUTFLOW) return 1;
  return 0;
}

static void print_solver(const char *what, const insdg_case_solver *s, FILE *f)
{
  fprintf(f, "%s solver: PCG, tolerance %g, at most %d iterations, preconditioner %s", what,
          s->tolerance, s->max_iterations,
          s->preconditioner == INSDG_PRECOND_DEFAULT ? "inverse_mass, block_jacobi or pmg_amg (chosen at start-up)"
                                                     : insdg_precond_name(s->preconditioner));
  if (s->projection > 0) fprintf(f, ", projection onto the last %d solutions", s->projection);
  if (s->min_iterations > 0) fprintf(f, ", at least %d iterations", s->min_iterations);
  for (int i = 0; i < s->npmg_degrees; i++)
    fprintf(f, "%s%d", i ? " " : ", degrees ", s->pmg_degrees[i]);
  if (s->preconditioner == INSDG_PRECOND_PMG_AMG)
    fprintf(f, ", Chebyshev(%d) smoothing with %s, coarse solve %s", s->pmg_chebyshev_degree,
            s->pmg_point_jacobi ? "the point diagonal" : "element-block Jacobi",
            s->pmg_coarse_amg ? "AMG" : "auto (banded Cholesky or AMG)");
  fprintf(f, "\n");
}

static const char *text_or(const insdg_expr *e, const char *absent)
{
  return e ? insdg_expr_text(e) : absent;
}

void insdg_case_print(const insdg_case *c, FILE *f)
{
  fprintf(f, "case %s (%s)\n", c->name, c->path);
  fprintf(f, "mesh: %s, order N = %d\n", c->mesh, c->order);
  fprintf(f, "output: %s, every %g (0: final only), checkpoints every %d steps / %g s, %d kept\n",
          c->output, c->output_interval, c->checkpoint_interval_steps,
          c->checkpoint_interval_seconds, c->checkpoints_kept);
  for (int i = 0; i < c->nconstants; i++)
    fprintf(f, "constant %s = %.17g\n", c->constants[i].name, c->constants[i].value);
  fprintf(f, "nu = %.17g\n", c->nu);
  fprintf(f, "time: dt = %g, final time %g, BDF/EXT order S = %d, substeps Ns = %d, start %s\n", c->dt,
          c->final_time, c->time_order, c->substeps, c->start_exact ? "exact" : "lower_order");
  print_solver("velocity", &c->velocity, f);
  print_solver("pressure", &c->pressure, f);
  fprintf(f, "initial: u = %s, v = %s, p = %s\n", text_or(c->initial_u, "-"),
          text_or(c->initial_v, "-"), text_or(c->initial_p, "-"));
  for (int i = 0; i < c->nboundary; i++) {
    const insdg_case_boundary *b = &c->boundary[i];
    fprintf(f, "boundary %s: %s", b->name, b->type);
    if (b->u) fprintf(f, ", u = %s, v = %s", text_or(b->u, "-"), text_or(b->v, "-"));
    if (b->p) fprintf(f, ", p = %s", insdg_expr_text(b->p));
    fprintf(f, "\n");
  }
  fprintf(f, "pressure: %s\n", insdg_case_has_outflow(c) ? "Dirichlet on outflow" : "pure Neumann");
  if (c->has_exact)
    fprintf(f, "exact: u = %s, v = %s, p = %s\n", text_or(c->exact_u, "-"),
            text_or(c->exact_v, "-"), text_or(c->exact_p, "(not given)"));
  for (int i = 0; i < c->nforces; i++) fprintf(f, "forces on: %s\n", c->forces[i]);
  if (c->steady_tolerance > 0)
    fprintf(f, "steady stop: relative velocity change per unit time below %g\n", c->steady_tolerance);
  for (int i = 0; i < c->nprobes; i++)
    fprintf(f, "probe %s at (%.17g, %.17g)\n", c->probes[i].name, c->probes[i].x, c->probes[i].y);
  if (c->nprobes) fprintf(f, "probes sampled every %g (0: every step)\n", c->probe_interval);
  if (c->has_statistics) fprintf(f, "statistics from t = %g\n", c->statistics_start);
}

void insdg_case_destroy(insdg_case *c)
{
  if (!c) return;
  expr_free(c->initial_u);
  expr_free(c->initial_v);
  expr_free(c->initial_p);
  for (int i = 0; i < c->nboundary; i++) {
    expr_free(c->boundary[i].u);
    expr_free(c->boundary[i].v);
    expr_free(c->boundary[i].p);
  }
  expr_free(c->exact_u);
  expr_free(c->exact_v);
  expr_free(c->exact_p);
  free(c->boundary);
  free(c->constants);
  free(c->probes);
  free(c);
}
