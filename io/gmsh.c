/* gmsh.c -- reader for Gmsh ASCII meshes, formats 2.2 and 4.1 (see gmsh.h).
 *
 * Role: turn a .msh file into the flat arrays of insdg_gmsh, or into one error line
 * "<path>:<line>: <what>". The file is read line by line with getline(); every line is
 * split into whitespace-separated tokens (a double-quoted string is one token, quotes
 * removed) and every token is converted with a full-token check, so nothing is ever
 * read past the end of a line and a malformed number is caught where it stands.
 *
 * Invariants:
 *  - Counts announced by the file are never trusted for allocation: arrays grow as
 *    records are actually read, so a huge count in a truncated file is an
 *    "unexpected end of file" error, not an allocation failure.
 *  - Nodes are numbered 0..nnodes-1 in file order; a sorted (tag, index) table maps the
 *    (possibly sparse or unordered) Gmsh node tags to those indices. $Nodes must come
 *    before $Elements, and in 4.1 $Entities before $Elements, as Gmsh writes them.
 *  - On any error everything allocated so far is freed and *out is zeroed; on success
 *    only the arrays of insdg_gmsh remain (released by insdg_gmsh_free).
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "gmsh.h"
#include "error.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

/* ---- growable arrays ------------------------------------------------------------ */

/* Raise *cap to at least need (doubling); returns 1 if the arrays must be resized. */
static int reserve(int *cap, int need)
{
  if (need <= *cap) return 0;
  int newcap = *cap > INT_MAX / 2 ? INT_MAX : 2 * *cap;
  if (newcap < 16) newcap = 16;
  if (newcap < need) newcap = need;
  *cap = newcap;
  return 1;
}

/* realloc to cap elements of elsize bytes, never NULL. */
static void *resize(void *p, int cap, size_t elsize)
{
  void *q = realloc(p, (size_t)cap * elsize);
  if (!q) insdg_internal_error(__FILE__, __LINE__, "out of memory");
  return q;
}

/* ---- the line tokenizer --------------------------------------------------------- */

typedef struct {
  FILE *file;
  const char *path;
  char *buf;        /* current line (getline buffer), tokens point into it */
  size_t bufcap;
  long lineno;      /* number of the current line, 1-based; 0 before the first */
  char **tok;       /* tokens of the current line */
  int ntok, tokcap;
  char *err;        /* the caller's message buffer */
  size_t errlen;
} lexer;

/* Write "<path>:<line>: <what>" into the message buffer; returns -1. */
static int fail_at(lexer *lx, long line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail_at(lexer *lx, long line, const char *fmt, ...)
{
  if (!lx->err || lx->errlen == 0) return -1;
  int n = snprintf(lx->err, lx->errlen, "%s:%ld: ", lx->path, line < 1 ? 1 : line);
  if (n >= 0 && (size_t)n < lx->errlen) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(lx->err + n, lx->errlen - (size_t)n, fmt, ap);
    va_end(ap);
  }
  return -1;
}

#define FAIL(lx, ...) fail_at((lx), (lx)->lineno, __VA_ARGS__)

/* A token made printable and short, for quoting in a message. */
static const char *shown(const char *tok, char out[40])
{
  size_t n = 0;
  for (; tok[n] && n < 32; n++)
    out[n] = (tok[n] >= 32 && tok[n] < 127) ? tok[n] : '?';
  if (tok[n]) {
    memcpy(out + n, "...", 3);
    n += 3;
  }
  out[n] = '\0';
  return out;
}

static int is_blank(char c)
{
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' || c == '\n';
}

/* Read the next physical line into lx->buf, trailing whitespace removed.
   Returns 1, 0 at end of file, -1 on a read error or a NUL byte. */
static int next_raw(lexer *lx)
{
  errno = 0;
  ssize_t len = getline(&lx->buf, &lx->bufcap, lx->file);
  if (len < 0) {
    if (ferror(lx->file))
      return fail_at(lx, lx->lineno + 1, "read error: %s", strerror(errno ? errno : EIO));
    return 0;
  }
  lx->lineno++;
  if ((size_t)len != strlen(lx->buf))
    return FAIL(lx, "NUL byte in the line (a binary file?)");
  while (len > 0 && is_blank(lx->buf[len - 1])) lx->buf[--len] = '\0';
  return 1;
}

static void push_token(lexer *lx, char *t)
{
  if (reserve(&lx->tokcap, lx->ntok + 1))
    lx->tok = resize(lx->tok, lx->tokcap, sizeof(char *));
  lx->tok[lx->ntok++] = t;
}

/* Split lx->buf in place into tokens. Returns 0, or -1 on an unterminated quote. */
static int tokenize(lexer *lx)
{
  char *c = lx->buf;
  lx->ntok = 0;
  for (;;) {
    while (*c && is_blank(*c)) c++;
    if (!*c) return 0;
    if (*c == '"') {
      char *close = strchr(c + 1, '"');
      if (!close) return FAIL(lx, "unterminated quoted string");
      push_token(lx, c + 1);
      *close = '\0';
      c = close + 1;
      continue;
    }
    push_token(lx, c);
    while (*c && !is_blank(*c)) c++;
    if (*c) *c++ = '\0';
  }
}

/* Next non-blank line, tokenized. Returns 1, 0 at end of file, -1 on error. */
static int next_line(lexer *lx)
{
  for (;;) {
    int got = next_raw(lx);
    if (got <= 0) return got;
    if (tokenize(lx) < 0) return -1;
    if (lx->ntok > 0) return 1;
  }
}

/* Token i as an integer in [lo, hi]; what names the field for messages. */
static int tok_int(lexer *lx, int i, long lo, long hi, const char *what, int *val)
{
  char buf[40];
  const char *t = lx->tok[i];
  char *end;
  errno = 0;
  long v = strtol(t, &end, 10);
  if (end == t || *end)
    return FAIL(lx, "malformed number '%s' (expected an integer %s)", shown(t, buf), what);
  if (errno == ERANGE || v < lo || v > hi)
    return FAIL(lx, "%s %s out of range [%ld, %ld]", what, shown(t, buf), lo, hi);
  *val = (int)v;
  return 0;
}

/* Token i as a finite real number. */
static int tok_real(lexer *lx, int i, double *val)
{
  char buf[40];
  const char *t = lx->tok[i];
  char *end;
  errno = 0;
  double v = strtod(t, &end);
  if (end == t || *end || !isfinite(v))
    return FAIL(lx, "malformed number '%s' (expected a real number)", shown(t, buf));
  *val = v;
  return 0;
}

/* Require exactly n tokens on the current line. */
static int want_ntok(lexer *lx, int n, const char *what)
{
  if (lx->ntok == n) return 0;
  return FAIL(lx, "expected %d number%s (%s), found %d", n, n == 1 ? "" : "s", what,
              lx->ntok);
}

/* ---- the reader state ----------------------------------------------------------- */

typedef struct {
  int tag, index;
} node_key;

typedef struct {
  int dim, tag, phys;   /* phys: first physical tag, 0 if none */
} entity;

typedef struct {
  lexer lx;
  insdg_gmsh *m;
  int version;                    /* 22 or 41 */
  int cap_nodes, cap_tri, cap_line, cap_phys, cap_ents;   /* allocated lengths */
  double *z;                      /* [nnodes] z coordinate, checked after $Nodes */
  int *node_line;                 /* [nnodes] file line of each node */
  node_key *keys;                 /* [nnodes] sorted by tag once $Nodes is read */
  entity *ents;                   /* 4.1 $Entities */
  int nents;
  int last_phys;                  /* index of the last physical looked up, -1 if none */
  int seen_names, seen_entities, seen_nodes, seen_elements;
} reader;

/* Index into m->phys of (dim, tag), added with its number as name if new. */
static int add_phys(reader *r, int dim, int tag)
{
  insdg_gmsh *m = r->m;
  if (r->last_phys >= 0 && m->phys[r->last_phys].dim == dim &&
      m->phys[r->last_phys].tag == tag)
    return r->last_phys;
  for (int i = 0; i < m->nphys; i++)
    if (m->phys[i].dim == dim && m->phys[i].tag == tag) return r->last_phys = i;
  if (reserve(&r->cap_phys, m->nphys + 1))
    m->phys = resize(m->phys, r->cap_phys, sizeof(insdg_gmsh_physical));
  insdg_gmsh_physical *p = &m->phys[m->nphys];
  p->dim = dim;
  p->tag = tag;
  snprintf(p->name, sizeof p->name, "%d", tag);
  return r->last_phys = m->nphys++;
}

static int entity_phys(const reader *r, int dim, int tag)
{
  for (int i = 0; i < r->nents; i++)
    if (r->ents[i].dim == dim && r->ents[i].tag == tag) return r->ents[i].phys;
  return 0;
}

static int cmp_key(const void *a, const void *b)
{
  const node_key *ka = a, *kb = b;
  if (ka->tag != kb->tag) return ka->tag < kb->tag ? -1 : 1;
  return ka->index < kb->index ? -1 : ka->index > kb->index;
}

/* 0-based node index of a Gmsh node tag, or -1. */
static int node_index(const reader *r, long tag)
{
  int lo = 0, hi = r->m->nnodes - 1;
  while (lo <= hi) {
    int mid = lo + (hi - lo) / 2;
    if (r->keys[mid].tag == tag) return r->keys[mid].index;
    if (r->keys[mid].tag < tag) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/* ---- element types -------------------------------------------------------------- */

static const char *type_name(int type)
{
  switch (type) {
  case 1: return "2-node line";
  case 2: return "3-node triangle";
  case 3: return "4-node quadrangle";
  case 4: return "4-node tetrahedron";
  case 5: return "8-node hexahedron";
  case 6: return "6-node prism";
  case 7: return "5-node pyramid";
  case 8: return "3-node second order line";
  case 9: return "6-node second order triangle";
  case 10: return "9-node second order quadrangle";
  case 11: return "10-node second order tetrahedron";
  case 12: return "27-node second order hexahedron";
  case 13: return "18-node second order prism";
  case 14: return "14-node second order pyramid";
  case 15: return "1-node point";
  case 16: return "8-node second order quadrangle";
  case 17: return "20-node second order hexahedron";
  case 18: return "15-node second order prism";
  case 19: return "13-node second order pyramid";
  case 20: return "9-node third order incomplete triangle";
  case 21: return "10-node third order triangle";
  case 22: return "12-node fourth order incomplete triangle";
  case 23: return "15-node fourth order triangle";
  case 24: return "15-node fifth order incomplete triangle";
  case 25: return "21-node fifth order triangle";
  case 26: return "4-node third order line";
  case 27: return "5-node fourth order line";
  case 28: return "6-node fifth order line";
  case 42: return "28-node sixth order triangle";
  case 43: return "36-node seventh order triangle";
  case 44: return "45-node eighth order triangle";
  case 45: return "55-node ninth order triangle";
  case 46: return "66-node tenth order triangle";
  case 62: return "7-node sixth order line";
  case 63: return "8-node seventh order line";
  case 64: return "9-node eighth order line";
  case 65: return "10-node ninth order line";
  case 66: return "11-node tenth order line";
  default: return NULL;
  }
}

/* Order of the Lagrange lines and complete triangles insdg reads (Gmsh's types 1, 8, 26-28,
   62-66 and 2, 9, 21, 23, 25, 42-46), 0 for any other type. */
static int type_order(int type)
{
  switch (type) {
  case 1: case 2: return 1;
  case 8: case 9: return 2;
  case 26: case 21: return 3;
  case 27: case 23: return 4;
  case 28: case 25: return 5;
  case 62: case 42: return 6;
  case 63: case 43: return 7;
  case 64: case 44: return 8;
  case 65: case 45: return 9;
  case 66: case 46: return 10;
  default: return 0;
  }
}

static int type_dim(int type)
{
  if (type_order(type) == 0) return 0;
  return type == 1 || type == 8 || (type >= 26 && type <= 28) || type >= 62 ? 1 : 2;
}

/* Nodes of the element types insdg keeps (or skips), 0 for any other type. */
static int type_nodes(int type)
{
  if (type == 15) return 1;
  const int q = type_order(type);
  if (q == 0) return 0;
  return type_dim(type) == 1 ? q + 1 : (q + 1) * (q + 2) / 2;
}

static int fail_type(lexer *lx, int tag, int type)
{
  const char *name = type_name(type);
  char what[64] = "";
  if (name) snprintf(what, sizeof what, " (%s)", name);
  return FAIL(lx,
              "element %d: unsupported element type %d%s; insdg reads triangles of order "
              "1 to 10 (3 to 66 nodes) and boundary lines",
              tag, type, what);
}

/* ---- section framing ------------------------------------------------------------ */

/* Next data line of a section that expects `expected` records of kind `what`, `done`
   read so far (what == NULL: the section's header line). End of file or a '$' line is
   an error naming the section. */
static int next_record(reader *r, const char *section, const char *what, int expected,
                       int done)
{
  lexer *lx = &r->lx;
  char buf[40];
  int got = next_line(lx);
  if (got < 0) return -1;
  const char *found = got == 0               ? "end of file"
                      : lx->tok[0][0] == '$' ? shown(lx->tok[0], buf)
                                             : NULL;
  if (!found) return 0;
  if (!what)
    return FAIL(lx, "unexpected %s in %s (expected its header line)", found, section);
  return FAIL(lx, "unexpected %s in %s (expected %d %s, read %d)", found, section, expected,
              what, done);
}

/* The line closing a section: exactly the token end (e.g. "$EndNodes"). */
static int expect_end(reader *r, const char *section, const char *end)
{
  lexer *lx = &r->lx;
  int got = next_line(lx);
  if (got < 0) return -1;
  if (got == 0) return FAIL(lx, "unexpected end of file in %s (no %s)", section, end);
  if (lx->ntok != 1 || strcmp(lx->tok[0], end) != 0) {
    char buf[40];
    int counted = lx->tok[0][0] != '$' && strcmp(section, "$MeshFormat") != 0;
    return FAIL(lx, "expected %s, found '%s'%s", end, shown(lx->tok[0], buf),
                counted ? " (more records than the section header announced?)" : "");
  }
  return 0;
}

/* Skip an unknown section $Name up to its $EndName, without tokenizing its contents.
   head points into the line buffer, so it is copied before the next line is read. */
static int skip_section(reader *r, const char *head)
{
  lexer *lx = &r->lx;
  char name[80], end[84], buf[40];
  long start = lx->lineno;
  if (strlen(head) >= sizeof name - 4)
    return FAIL(lx, "section name '%s' too long", shown(head, buf));
  snprintf(name, sizeof name, "%s", head);
  snprintf(end, sizeof end, "$End%s", name + 1);
  size_t endlen = strlen(end);
  for (;;) {
    int got = next_raw(lx);
    if (got < 0) return -1;
    if (got == 0)
      return FAIL(lx, "unexpected end of file in %s (opened at line %ld, no %s)",
                  shown(name, buf), start, end);
    const char *c = lx->buf;
    while (*c && is_blank(*c)) c++;
    if (strncmp(c, end, endlen) == 0 && (c[endlen] == '\0' || is_blank(c[endlen])))
      return 0;
  }
}

/* ---- $MeshFormat ---------------------------------------------------------------- */

static int read_format(reader *r)
{
  lexer *lx = &r->lx;
  char buf[40];
  int got = next_line(lx);
  if (got < 0) return -1;
  if (got > 0 && !strncmp(lx->tok[0], "\xEF\xBB\xBF", 3)) lx->tok[0] += 3; /* UTF-8 BOM */
  if (got == 0 || strcmp(lx->tok[0], "$MeshFormat") != 0)
    return FAIL(lx, "not a Gmsh mesh: the file does not start with $MeshFormat");
  got = next_line(lx);
  if (got < 0) return -1;
  if (got == 0) return FAIL(lx, "unexpected end of file in $MeshFormat");
  if (lx->ntok != 3) return want_ntok(lx, 3, "version file-type data-size");
  double version = 0;
  int filetype, datasize;
  if (tok_real(lx, 0, &version) < 0) return -1;
  if (fabs(version - 2.2) < 1e-9) r->version = 22;
  else if (fabs(version - 4.1) < 1e-9) r->version = 41;
  else
    return FAIL(lx, "unsupported Gmsh format version %s; insdg reads ASCII 2.2 and 4.1 "
                    "(gmsh -format msh41)",
                shown(lx->tok[0], buf));
  if (tok_int(lx, 1, INT_MIN, INT_MAX, "file-type", &filetype) < 0) return -1;
  if (filetype == 1)
    return FAIL(lx, "binary Gmsh file (file-type 1); insdg reads ASCII meshes only "
                    "(write without -bin)");
  if (filetype != 0) return FAIL(lx, "invalid file-type %d (0 is ASCII)", filetype);
  if (tok_int(lx, 2, INT_MIN, INT_MAX, "data-size", &datasize) < 0) return -1;
  return expect_end(r, "$MeshFormat", "$EndMeshFormat");
}

/* ---- $PhysicalNames ------------------------------------------------------------- */

static int read_physical_names(reader *r)
{
  lexer *lx = &r->lx;
  int count;
  if (next_record(r, "$PhysicalNames", NULL, 0, 0) < 0) return -1;
  if (want_ntok(lx, 1, "number of physical names") < 0) return -1;
  if (tok_int(lx, 0, 0, INT_MAX, "number of physical names", &count) < 0) return -1;
  for (int k = 0; k < count; k++) {
    int dim, tag;
    if (next_record(r, "$PhysicalNames", "names", count, k) < 0) return -1;
    if (lx->ntok != 3)
      return FAIL(lx, "expected 'dim tag \"name\"', found %d fields", lx->ntok);
    if (tok_int(lx, 0, 0, 3, "physical dimension", &dim) < 0) return -1;
    if (tok_int(lx, 1, INT_MIN, INT_MAX, "physical tag", &tag) < 0) return -1;
    const char *name = lx->tok[2];
    if (strlen(name) >= sizeof r->m->phys[0].name)
      return FAIL(lx, "physical name longer than %zu characters",
                  sizeof r->m->phys[0].name - 1);
    int index = add_phys(r, dim, tag);   /* may move r->m->phys */
    insdg_gmsh_physical *p = &r->m->phys[index];
    if (name[0]) snprintf(p->name, sizeof p->name, "%s", name);
  }
  return expect_end(r, "$PhysicalNames", "$EndPhysicalNames");
}

/* ---- $Entities (4.1) ------------------------------------------------------------ */

/* One entity line of dimension dim: points "tag x y z nphys phys...", others
   "tag box(6) nphys phys... nbound bound...". */
static int read_entity(reader *r, int dim)
{
  lexer *lx = &r->lx;
  int ncoord = dim == 0 ? 3 : 6;
  int tag, nphys, nbound = 0, phys = 0;
  if (lx->ntok < ncoord + 2)
    return FAIL(lx, "entity line too short (%d fields)", lx->ntok);
  if (tok_int(lx, 0, INT_MIN, INT_MAX, "entity tag", &tag) < 0) return -1;
  for (int i = 1; i <= ncoord; i++) {
    double v;
    if (tok_real(lx, i, &v) < 0) return -1;
  }
  if (tok_int(lx, ncoord + 1, 0, lx->ntok - ncoord - 2, "number of physical tags", &nphys) <
      0)
    return -1;
  int after = ncoord + 2 + nphys;   /* first token after the physical tags */
  for (int i = ncoord + 2; i < after; i++) {
    int v;
    if (tok_int(lx, i, INT_MIN, INT_MAX, "physical tag", &v) < 0) return -1;
    if (i == ncoord + 2) phys = v;
  }
  if (dim > 0) {
    if (after >= lx->ntok) return FAIL(lx, "entity line lacks its bounding entities");
    if (tok_int(lx, after, 0, lx->ntok - after - 1, "number of bounding entities",
                &nbound) < 0)
      return -1;
    for (int i = after + 1; i < lx->ntok; i++) {
      int v;
      if (tok_int(lx, i, INT_MIN, INT_MAX, "bounding entity tag", &v) < 0) return -1;
    }
    after += 1 + nbound;
  }
  if (after != lx->ntok)
    return FAIL(lx, "entity line has %d extra fields", lx->ntok - after);
  if (reserve(&r->cap_ents, r->nents + 1))
    r->ents = resize(r->ents, r->cap_ents, sizeof(entity));
  r->ents[r->nents++] = (entity){dim, tag, phys};
  return 0;
}

static int read_entities(reader *r)
{
  lexer *lx = &r->lx;
  int count[4], total = 0, done = 0;
  if (r->seen_elements) return FAIL(lx, "$Entities after $Elements");
  if (next_record(r, "$Entities", NULL, 0, 0) < 0) return -1;
  if (want_ntok(lx, 4, "numbers of points, curves, surfaces, volumes") < 0) return -1;
  for (int d = 0; d < 4; d++) {
    if (tok_int(lx, d, 0, INT_MAX, "entity count", &count[d]) < 0) return -1;
    if (count[d] > INT_MAX - total) return FAIL(lx, "entity counts too large");
    total += count[d];
  }
  for (int d = 0; d < 4; d++)
    for (int k = 0; k < count[d]; k++, done++) {
      if (next_record(r, "$Entities", "entities", total, done) < 0) return -1;
      if (read_entity(r, d) < 0) return -1;
    }
  return expect_end(r, "$Entities", "$EndEntities");
}

/* ---- $Nodes --------------------------------------------------------------------- */

static void push_node(reader *r, int tag, double x, double y, double z)
{
  insdg_gmsh *m = r->m;
  int n = m->nnodes;
  if (reserve(&r->cap_nodes, n + 1)) {
    m->x = resize(m->x, r->cap_nodes, sizeof(double));
    m->y = resize(m->y, r->cap_nodes, sizeof(double));
    r->z = resize(r->z, r->cap_nodes, sizeof(double));
    r->node_line = resize(r->node_line, r->cap_nodes, sizeof(int));
    r->keys = resize(r->keys, r->cap_nodes, sizeof(node_key));
  }
  m->x[n] = x;
  m->y[n] = y;
  r->z[n] = z;
  r->node_line[n] = r->lx.lineno > INT_MAX ? INT_MAX : (int)r->lx.lineno;
  r->keys[n] = (node_key){tag, n};
  m->nnodes = n + 1;
}

/* Largest coordinate magnitude accepted: beyond it the geometry (areas ~ x^2, Jacobians)
   loses all precision, and such a value is a unit or export mistake, not a mesh. */
#define GMSH_MAX_COORD 1e15

/* Coordinate `axis` (0, 1, 2 for x, y, z) of node `tag` from token i: a real number,
   finite and at most GMSH_MAX_COORD in magnitude. */
static int tok_coord(reader *r, int tag, int axis, int i, double *val)
{
  lexer *lx = &r->lx;
  const char name = "xyz"[axis];
  char buf[40];
  const char *t = lx->tok[i];
  char *end;
  errno = 0;
  double v = strtod(t, &end);
  if (end == t || *end)
    return FAIL(lx, "malformed number '%s' (expected a real number)", shown(t, buf));
  if (isnan(v) || (isinf(v) && errno != ERANGE))
    return FAIL(lx, "node %d: %c = %s is not a finite number", tag, name, shown(t, buf));
  if (!(fabs(v) <= GMSH_MAX_COORD))   /* also an overflow such as 1e400 */
    return FAIL(lx, "node %d: %c = %s is too large (|%c| must be at most %g)", tag, name,
                shown(t, buf), name, GMSH_MAX_COORD);
  *val = v;
  return 0;
}

/* x y z of node tag from tokens first..first+2 of the current line. */
static int read_xyz(reader *r, int tag, int first, double xyz[3])
{
  for (int i = 0; i < 3; i++)
    if (tok_coord(r, tag, i, first + i, &xyz[i]) < 0) return -1;
  return 0;
}

static int read_nodes22(reader *r, int count)
{
  lexer *lx = &r->lx;
  for (int k = 0; k < count; k++) {
    int tag;
    double xyz[3];
    if (next_record(r, "$Nodes", "nodes", count, k) < 0) return -1;
    if (want_ntok(lx, 4, "node tag x y z") < 0) return -1;
    if (tok_int(lx, 0, 1, INT_MAX, "node tag", &tag) < 0) return -1;
    if (read_xyz(r, tag, 1, xyz) < 0) return -1;
    push_node(r, tag, xyz[0], xyz[1], xyz[2]);
  }
  return 0;
}

/* One 4.1 node block: n tag lines, then n coordinate lines. */
static int read_node_block41(reader *r, int total, int n, int ncoord)
{
  lexer *lx = &r->lx;
  int first = r->m->nnodes;
  int *tags = NULL;
  int cap = 0, status = 0;
  for (int k = 0; k < n && status == 0; k++) {
    status = next_record(r, "$Nodes", "nodes", total, first);
    if (status == 0) status = want_ntok(lx, 1, "node tag");
    if (reserve(&cap, k + 1)) tags = resize(tags, cap, sizeof(int));
    if (status == 0) status = tok_int(lx, 0, 1, INT_MAX, "node tag", &tags[k]);
  }
  for (int k = 0; k < n && status == 0; k++) {
    double xyz[3];
    status = next_record(r, "$Nodes", "nodes", total, first + k);
    if (status == 0 && lx->ntok != ncoord)
      status = want_ntok(lx, ncoord, "node coordinates");
    if (status == 0) status = read_xyz(r, tags[k], 0, xyz);
    for (int i = 3; i < ncoord && status == 0; i++) {
      double u;
      status = tok_real(lx, i, &u);
    }
    if (status == 0) push_node(r, tags[k], xyz[0], xyz[1], xyz[2]);
  }
  free(tags);
  return status;
}

static int read_nodes41(reader *r, int nblocks, int total)
{
  lexer *lx = &r->lx;
  for (int b = 0; b < nblocks; b++) {
    int dim, tag, parametric, n;
    if (next_record(r, "$Nodes", "nodes", total, r->m->nnodes) < 0) return -1;
    if (want_ntok(lx, 4, "entity-dim entity-tag parametric count") < 0) return -1;
    if (tok_int(lx, 0, 0, 3, "entity dimension", &dim) < 0) return -1;
    if (tok_int(lx, 1, INT_MIN, INT_MAX, "entity tag", &tag) < 0) return -1;
    if (tok_int(lx, 2, 0, 1, "parametric flag", &parametric) < 0) return -1;
    if (tok_int(lx, 3, 0, INT_MAX, "number of nodes in block", &n) < 0) return -1;
    if (n > total - r->m->nnodes)
      return FAIL(lx, "node block of %d nodes exceeds the %d nodes announced in the "
                      "$Nodes header (%d already read)",
                  n, total, r->m->nnodes);
    if (read_node_block41(r, total, n, 3 + (parametric ? dim : 0)) < 0) return -1;
  }
  if (r->m->nnodes != total)
    return fail_at(lx, lx->lineno + 1,
                   "$Nodes header announces %d nodes, its blocks hold %d", total,
                   r->m->nnodes);
  return 0;
}

/* Gmsh tag of the node of index i (a linear search: for error messages only). */
static int node_tag(const reader *r, int i)
{
  for (int k = 0; k < r->m->nnodes; k++)
    if (r->keys[k].index == i) return r->keys[k].tag;
  return -1;
}

/* After $Nodes: sort the tag table, reject duplicate tags, a mesh whose nodes are all
   at one point, and z != 0. */
static int finish_nodes(reader *r)
{
  insdg_gmsh *m = r->m;
  lexer *lx = &r->lx;
  if (m->nnodes > 0) qsort(r->keys, (size_t)m->nnodes, sizeof(node_key), cmp_key);   /* keys NULL when none */
  for (int i = 1; i < m->nnodes; i++)
    if (r->keys[i].tag == r->keys[i - 1].tag)
      return fail_at(lx, r->node_line[r->keys[i].index],
                     "node tag %d defined twice (first at line %d)", r->keys[i].tag,
                     r->node_line[r->keys[i - 1].index]);
  double xmin = 0, xmax = 0, ymin = 0, ymax = 0;
  for (int i = 0; i < m->nnodes; i++) {
    if (i == 0 || m->x[i] < xmin) xmin = m->x[i];
    if (i == 0 || m->x[i] > xmax) xmax = m->x[i];
    if (i == 0 || m->y[i] < ymin) ymin = m->y[i];
    if (i == 0 || m->y[i] > ymax) ymax = m->y[i];
  }
  double size = fmax(xmax - xmin, ymax - ymin);
  if (m->nnodes >= 2 && size == 0)
    return fail_at(lx, r->node_line[0],
                   "node %d: all %d nodes of the mesh are at the same point (%g, %g)",
                   node_tag(r, 0), m->nnodes, m->x[0], m->y[0]);
  for (int i = 0; i < m->nnodes; i++)
    if (!(fabs(r->z[i]) <= 1e-12 * size))
      return fail_at(lx, r->node_line[i],
                     "node %d: z = %g is not 0; insdg reads 2D meshes in the plane "
                     "z = 0 (a 3D mesh?)",
                     node_tag(r, i), r->z[i]);
  return 0;
}

static int read_nodes(reader *r)
{
  lexer *lx = &r->lx;
  int total, nblocks = 0;
  if (r->seen_nodes) return FAIL(lx, "second $Nodes section");
  r->seen_nodes = 1;
  if (next_record(r, "$Nodes", NULL, 0, 0) < 0) return -1;
  if (r->version == 22) {
    if (want_ntok(lx, 1, "number of nodes") < 0) return -1;
    if (tok_int(lx, 0, 0, INT_MAX, "number of nodes", &total) < 0) return -1;
    if (read_nodes22(r, total) < 0) return -1;
  } else {
    int mintag, maxtag;
    if (want_ntok(lx, 4, "blocks nodes min-tag max-tag") < 0) return -1;
    if (tok_int(lx, 0, 0, INT_MAX, "number of node blocks", &nblocks) < 0) return -1;
    if (tok_int(lx, 1, 0, INT_MAX, "number of nodes", &total) < 0) return -1;
    if (tok_int(lx, 2, 0, INT_MAX, "minimum node tag", &mintag) < 0) return -1;
    if (tok_int(lx, 3, 0, INT_MAX, "maximum node tag", &maxtag) < 0) return -1;
    if (read_nodes41(r, nblocks, total) < 0) return -1;
  }
  if (expect_end(r, "$Nodes", "$EndNodes") < 0) return -1;
  return finish_nodes(r);
}

/* ---- $Elements ------------------------------------------------------------------ */

/* Map the n node-tag tokens starting at first to node indices. */
static int element_nodes(reader *r, int tag, int first, int n, int *idx)
{
  lexer *lx = &r->lx;
  for (int i = 0; i < n; i++) {
    char buf[40];
    const char *t = lx->tok[first + i];
    char *end;
    errno = 0;
    long v = strtol(t, &end, 10);
    if (end == t || *end)
      return FAIL(lx, "element %d: malformed node tag '%s'", tag, shown(t, buf));
    idx[i] = errno == ERANGE ? -1 : node_index(r, v);
    if (idx[i] < 0)
      return FAIL(lx, "element %d: node tag %s does not exist in $Nodes", tag,
                  shown(t, buf));
  }
  return 0;
}

/* Keep a parsed element: triangles always, lines only with a physical group. A
   high-order triangle keeps its vertices in tri and its edge nodes in tri_edge (Gmsh's
   order: the q - 1 nodes of edge 0-1, of 1-2, of 2-0, each from its first vertex); its
   interior nodes are not used (mesh.c blends the interior from the edges). A boundary
   line keeps its two end nodes: its edge nodes are those of the triangle it bounds.
   All triangles of a mesh must have one order. */
static int store_element(reader *r, int tag, int type, int entity, int phys,
                         const int *idx)
{
  insdg_gmsh *m = r->m;
  int line = r->lx.lineno > INT_MAX ? INT_MAX : (int)r->lx.lineno;
  if (type_dim(type) == 2) {
    const int q = type_order(type), ne = 3 * (q - 1);
    if (m->ntri > 0 && q != m->tri_order)
      return FAIL(&r->lx, "element %d: a triangle of order %d (%s) in a mesh whose triangles are of order %d",
                  tag, q, type_name(type), m->tri_order);
    m->tri_order = q;
    int n = m->ntri;
    if (reserve(&r->cap_tri, n + 1)) {
      m->tri = resize(m->tri, r->cap_tri, 3 * sizeof(int));
      m->tri_tag = resize(m->tri_tag, r->cap_tri, sizeof(int));
      m->tri_entity = resize(m->tri_entity, r->cap_tri, sizeof(int));
      m->tri_line = resize(m->tri_line, r->cap_tri, sizeof(int));
      if (ne > 0) m->tri_edge = resize(m->tri_edge, r->cap_tri, (size_t)ne * sizeof(int));
    }
    memcpy(&m->tri[3 * n], idx, 3 * sizeof(int));
    if (ne > 0) memcpy(&m->tri_edge[(size_t)ne * n], idx + 3, (size_t)ne * sizeof(int));
    m->tri_tag[n] = tag;
    m->tri_entity[n] = entity;
    m->tri_line[n] = line;
    m->ntri = n + 1;
    if (phys != 0) add_phys(r, 2, phys);
  } else if (type_dim(type) == 1 && phys != 0) {
    int n = m->nline;
    if (reserve(&r->cap_line, n + 1)) {
      m->line = resize(m->line, r->cap_line, 2 * sizeof(int));
      m->line_phys = resize(m->line_phys, r->cap_line, sizeof(int));
      m->line_line = resize(m->line_line, r->cap_line, sizeof(int));
    }
    memcpy(&m->line[2 * n], idx, 2 * sizeof(int));
    m->line_phys[n] = phys;
    m->line_line[n] = line;
    m->nline = n + 1;
    add_phys(r, 1, phys);
  }
  return 0;
}

/* 2.2 element line: tag type ntags tags... nodes... (gcc 12 at -O3 warns that phys and
   entity, both initialised, "may be used uninitialized" once store_element is inlined) */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
static int read_element22(reader *r)
{
  lexer *lx = &r->lx;
  int tag, type, ntags, phys = 0, entity = 0, idx[66];
  if (lx->ntok < 3) return FAIL(lx, "element line too short (%d fields)", lx->ntok);
  if (tok_int(lx, 0, 1, INT_MAX, "element tag", &tag) < 0) return -1;
  if (tok_int(lx, 1, INT_MIN, INT_MAX, "element type", &type) < 0) return -1;
  int nn = type_nodes(type);
  if (nn == 0) return fail_type(lx, tag, type);
  if (tok_int(lx, 2, 0, lx->ntok, "number of tags", &ntags) < 0) return -1;
  if (lx->ntok != 3 + ntags + nn)
    return FAIL(lx,
                "element %d: expected %d fields (tag, type, %d tags, %d nodes), found %d",
                tag, 3 + ntags + nn, ntags, nn, lx->ntok);
  for (int i = 0; i < ntags; i++) {
    int v;
    if (tok_int(lx, 3 + i, INT_MIN, INT_MAX, "physical or entity tag", &v) < 0) return -1;
    if (i == 0) phys = v;
    if (i == 1) entity = v;
  }
  if (element_nodes(r, tag, 3 + ntags, nn, idx) < 0) return -1;
  return store_element(r, tag, type, entity, phys, idx);
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

static int read_elements22(reader *r, int total)
{
  for (int k = 0; k < total; k++) {
    if (next_record(r, "$Elements", "elements", total, k) < 0) return -1;
    if (read_element22(r) < 0) return -1;
  }
  return 0;
}

/* One 4.1 element block of n elements of a kept type on entity (dim, etag). */
static int read_element_block41(reader *r, int total, int done, int n, int type,
                                int etag, int phys)
{
  lexer *lx = &r->lx;
  int nn = type_nodes(type);
  for (int k = 0; k < n; k++) {
    int tag, idx[66];
    if (next_record(r, "$Elements", "elements", total, done + k) < 0) return -1;
    if (tok_int(lx, 0, 1, INT_MAX, "element tag", &tag) < 0) return -1;
    if (lx->ntok != 1 + nn)
      return FAIL(lx, "element %d: expected %d fields (tag and %d nodes of a %s), found %d",
                  tag, 1 + nn, nn, type_name(type), lx->ntok);
    if (element_nodes(r, tag, 1, nn, idx) < 0) return -1;
    if (store_element(r, tag, type, etag, phys, idx) < 0) return -1;
  }
  return 0;
}

/* A block of an unsupported type: report it at its first element. */
static int fail_block_type(reader *r, int total, int done, int type)
{
  lexer *lx = &r->lx;
  int tag;
  if (next_record(r, "$Elements", "elements", total, done) < 0) return -1;
  if (tok_int(lx, 0, 1, INT_MAX, "element tag", &tag) < 0) return -1;
  return fail_type(lx, tag, type);
}

static int read_elements41(reader *r, int nblocks, int total)
{
  lexer *lx = &r->lx;
  int done = 0;
  for (int b = 0; b < nblocks; b++) {
    int dim, etag, type, n;
    if (next_record(r, "$Elements", "elements", total, done) < 0) return -1;
    if (want_ntok(lx, 4, "entity-dim entity-tag type count") < 0) return -1;
    if (tok_int(lx, 0, 0, 3, "entity dimension", &dim) < 0) return -1;
    if (tok_int(lx, 1, INT_MIN, INT_MAX, "entity tag", &etag) < 0) return -1;
    if (tok_int(lx, 2, INT_MIN, INT_MAX, "element type", &type) < 0) return -1;
    if (tok_int(lx, 3, 0, INT_MAX, "number of elements in block", &n) < 0) return -1;
    if (n > total - done)
      return FAIL(lx, "element block of %d elements exceeds the %d elements announced "
                      "in the $Elements header (%d already read)",
                  n, total, done);
    if (n == 0) continue;
    if (type_nodes(type) == 0) return fail_block_type(r, total, done, type);
    if (dim != type_dim(type))
      return FAIL(lx, "block of %ss on an entity of dimension %d", type_name(type), dim);
    int phys = entity_phys(r, dim, etag);
    if (read_element_block41(r, total, done, n, type, etag, phys) < 0) return -1;
    done += n;
  }
  if (done != total)
    return fail_at(lx, lx->lineno + 1,
                   "$Elements header announces %d elements, its blocks hold %d", total,
                   done);
  return 0;
}

static int read_elements(reader *r)
{
  lexer *lx = &r->lx;
  int total;
  if (r->seen_elements) return FAIL(lx, "second $Elements section");
  if (!r->seen_nodes) return FAIL(lx, "$Elements before $Nodes");
  r->seen_elements = 1;
  if (next_record(r, "$Elements", NULL, 0, 0) < 0) return -1;
  if (r->version == 22) {
    if (want_ntok(lx, 1, "number of elements") < 0) return -1;
    if (tok_int(lx, 0, 0, INT_MAX, "number of elements", &total) < 0) return -1;
    if (read_elements22(r, total) < 0) return -1;
  } else {
    int nblocks, mintag, maxtag;
    if (want_ntok(lx, 4, "blocks elements min-tag max-tag") < 0) return -1;
    if (tok_int(lx, 0, 0, INT_MAX, "number of element blocks", &nblocks) < 0) return -1;
    if (tok_int(lx, 1, 0, INT_MAX, "number of elements", &total) < 0) return -1;
    if (tok_int(lx, 2, 0, INT_MAX, "minimum element tag", &mintag) < 0) return -1;
    if (tok_int(lx, 3, 0, INT_MAX, "maximum element tag", &maxtag) < 0) return -1;
    if (read_elements41(r, nblocks, total) < 0) return -1;
  }
  return expect_end(r, "$Elements", "$EndElements");
}

/* ---- the file ------------------------------------------------------------------- */

static int read_section(reader *r)
{
  lexer *lx = &r->lx;
  char buf[40];
  const char *head = lx->tok[0];
  if (head[0] != '$')
    return FAIL(lx, "expected a section header such as $Nodes, found '%s'",
                shown(head, buf));
  if (lx->ntok != 1)
    return FAIL(lx, "section header %s followed by text", shown(head, buf));
  if (!strcmp(head, "$MeshFormat")) return FAIL(lx, "second $MeshFormat section");
  if (!strcmp(head, "$PhysicalNames")) {
    if (r->seen_names) return FAIL(lx, "second $PhysicalNames section");
    r->seen_names = 1;
    return read_physical_names(r);
  }
  if (!strcmp(head, "$Entities") && r->version == 41) {
    if (r->seen_entities) return FAIL(lx, "second $Entities section");
    r->seen_entities = 1;
    return read_entities(r);
  }
  if (!strcmp(head, "$Nodes")) return read_nodes(r);
  if (!strcmp(head, "$Elements")) return read_elements(r);
  if (!strncmp(head, "$End", 4))
    return FAIL(lx, "%s without its section", shown(head, buf));
  return skip_section(r, head);
}

static int read_file(reader *r)
{
  lexer *lx = &r->lx;
  if (read_format(r) < 0) return -1;
  for (;;) {
    int got = next_line(lx);
    if (got < 0) return -1;
    if (got == 0) break;
    if (read_section(r) < 0) return -1;
  }
  if (!r->seen_nodes) return FAIL(lx, "no $Nodes section in the file");
  if (!r->seen_elements) return FAIL(lx, "no $Elements section in the file");
  return 0;
}

static void free_reader(reader *r)
{
  free(r->lx.buf);
  free(r->lx.tok);
  free(r->z);
  free(r->node_line);
  free(r->keys);
  free(r->ents);
}

int insdg_gmsh_read(const char *path, insdg_gmsh *out, char *err, size_t errlen)
{
  memset(out, 0, sizeof *out);
  if (err && errlen) err[0] = '\0';
  struct stat st;
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
    if (err && errlen) snprintf(err, errlen, "%s: cannot read the mesh: not a regular file (a directory?)", path);
    return -1;
  }
  FILE *file = fopen(path, "r");
  if (!file) {
    if (err && errlen) snprintf(err, errlen, "%s: cannot open the mesh file: %s", path, strerror(errno));
    return -1;
  }
  reader r;
  memset(&r, 0, sizeof r);
  r.lx.file = file;
  r.lx.path = path;
  r.lx.err = err;
  r.lx.errlen = errlen;
  r.m = out;
  r.last_phys = -1;
  snprintf(out->path, sizeof out->path, "%s", path);
  int status = read_file(&r);
  free_reader(&r);
  fclose(file);
  if (status != 0) {
    insdg_gmsh_free(out);
    return -1;
  }
  return 0;
}

int insdg_mesh_read(const char *path, insdg_mesh **out, char *err, size_t errlen)
{
  insdg_gmsh g;
  *out = NULL;
  if (insdg_gmsh_read(path, &g, err, errlen)) return 1;
  const int status = insdg_mesh_from_gmsh(&g, out, err, errlen);
  insdg_gmsh_free(&g);
  return status;
}
