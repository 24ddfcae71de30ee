/* test_gmsh.c -- unit test of the Gmsh reader (io/gmsh.c).
 *
 * Usage: test_gmsh MESHDIR (tests/meshes). Checks that square22.msh and square41.msh, the
 * same mesh in the two formats, read to the same nodes, triangles (compared by their
 * coordinates, orientation included), physical names and boundary segments per name;
 * that the recorded file lines point at the element definitions; that hole41.msh has
 * the expected counts and area; that small hand-written files exercise sparse node
 * tags, quoted names with spaces, CRLF, skipped sections; that broken files fail
 * with one line "<path>:<line>: <what>" and a zeroed result; and that absurd coordinates
 * (non-finite, |x| > 1e15, all nodes at one point) and duplicated triangles (mesh.c)
 * are reported with the node or element tags.
 * Exit status: 0 if every check passed, 1 otherwise.
 */
#include "error.h"
#include "gmsh.h"
#include "mesh.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int nfail = 0;

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      nfail++;                                                                 \
    }                                                                          \
  } while (0)

static const char *meshdir;

static const char *mesh_path(const char *name)
{
  static char path[1024];
  snprintf(path, sizeof path, "%s/%s", meshdir, name);
  return path;
}

/* Read a mesh that must be valid; exits on failure (nothing else can be checked). */
static void read_ok(const char *path, insdg_gmsh *m)
{
  char err[INSDG_ERRMSG_LEN];
  if (insdg_gmsh_read(path, m, err, sizeof err) != 0) {
    fprintf(stderr, "unexpected error reading %s: %s\n", path, err);
    exit(1);
  }
}

/* ---- comparing meshes by coordinates ------------------------------------------------ */

typedef struct {
  double c[6];   /* vertex coordinates, rotated so the lexicographically least is first */
} tri_xy;

static int cmp_doubles(const double *a, const double *b, int n)
{
  for (int i = 0; i < n; i++)
    if (fabs(a[i] - b[i]) > 1e-12) return a[i] < b[i] ? -1 : 1;
  return 0;
}

static int cmp_tri_xy(const void *a, const void *b)
{
  return cmp_doubles(((const tri_xy *)a)->c, ((const tri_xy *)b)->c, 6);
}

/* Triangles of m as coordinate triples (orientation kept), sorted. */
static tri_xy *triangles_by_xy(const insdg_gmsh *m)
{
  tri_xy *t = insdg_malloc(sizeof(tri_xy) * (size_t)m->ntri);
  for (int e = 0; e < m->ntri; e++) {
    double p[3][2];
    for (int v = 0; v < 3; v++) {
      p[v][0] = m->x[m->tri[3 * e + v]];
      p[v][1] = m->y[m->tri[3 * e + v]];
    }
    int first = 0;
    for (int v = 1; v < 3; v++)
      if (cmp_doubles(p[v], p[first], 2) < 0) first = v;
    for (int v = 0; v < 3; v++) {
      t[e].c[2 * v] = p[(first + v) % 3][0];
      t[e].c[2 * v + 1] = p[(first + v) % 3][1];
    }
  }
  qsort(t, (size_t)m->ntri, sizeof(tri_xy), cmp_tri_xy);
  return t;
}

/* Boundary segments of the physical curve called name, as sorted coordinate pairs
   (each pair with its smaller endpoint first); returns the count. */
static int segments_named(const insdg_gmsh *m, const char *name, tri_xy *out)
{
  int n = 0;
  for (int l = 0; l < m->nline; l++) {
    const char *phys = insdg_gmsh_physical_name(m, 1, m->line_phys[l]);
    if (!phys || strcmp(phys, name) != 0) continue;
    double a[2] = {m->x[m->line[2 * l]], m->y[m->line[2 * l]]};
    double b[2] = {m->x[m->line[2 * l + 1]], m->y[m->line[2 * l + 1]]};
    int swap = cmp_doubles(b, a, 2) < 0;
    memset(&out[n], 0, sizeof out[n]);
    memcpy(out[n].c, swap ? b : a, sizeof a);
    memcpy(out[n].c + 2, swap ? a : b, sizeof b);
    n++;
  }
  qsort(out, (size_t)n, sizeof(tri_xy), cmp_tri_xy);
  return n;
}

static double total_area(const insdg_gmsh *m)
{
  double area = 0;
  for (int e = 0; e < m->ntri; e++) {
    const int *v = &m->tri[3 * e];
    area += 0.5 * ((m->x[v[1]] - m->x[v[0]]) * (m->y[v[2]] - m->y[v[0]]) -
                   (m->y[v[1]] - m->y[v[0]]) * (m->x[v[2]] - m->x[v[0]]));
  }
  return area;
}

/* ---- recorded line numbers --------------------------------------------------------- */

/* Does line `lineno` of the file start with the element tag `tag`? */
static int line_starts_with_tag(const char *path, int lineno, int tag)
{
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  char buf[512];
  int n = 0, ok = 0;
  while (fgets(buf, sizeof buf, f))
    if (++n == lineno) {
      ok = atoi(buf) == tag;
      break;
    }
  fclose(f);
  return ok;
}

static void check_lines(const insdg_gmsh *m, const char *path)
{
  for (int e = 0; e < m->ntri; e++)
    CHECK(line_starts_with_tag(path, m->tri_line[e], m->tri_tag[e]));
  for (int l = 0; l < m->nline; l++) CHECK(m->line_line[l] > 0);
}

/* ---- the two squares ---------------------------------------------------------------- */

static void check_square(const insdg_gmsh *m, const char *path)
{
  static const char *const sides[4] = {"bottom", "right", "top", "left"};
  CHECK(m->nnodes == 30);
  CHECK(m->ntri == 42);
  CHECK(m->nline == 16);
  CHECK(fabs(total_area(m) - 1.0) < 1e-12);
  CHECK(strcmp(m->path, path) == 0);
  for (int s = 0; s < 4; s++) {
    const char *name = insdg_gmsh_physical_name(m, 1, s + 1);
    CHECK(name && strcmp(name, sides[s]) == 0);
  }
  const char *fluid = insdg_gmsh_physical_name(m, 2, 5);
  CHECK(fluid && strcmp(fluid, "fluid") == 0);
  CHECK(insdg_gmsh_physical_name(m, 2, 1) == NULL);
  for (int e = 0; e < m->ntri; e++) CHECK(m->tri_entity[e] == 1);
  for (int e = 0; e < 3 * m->ntri; e++) CHECK(m->tri[e] >= 0 && m->tri[e] < m->nnodes);
  for (int l = 0; l < m->nline; l++) {
    const int a = m->line[2 * l], b = m->line[2 * l + 1];
    const int side = m->line_phys[l] - 1;
    CHECK(side >= 0 && side < 4);
    if (side == 0) CHECK(m->y[a] == 0 && m->y[b] == 0);
    if (side == 1) CHECK(m->x[a] == 1 && m->x[b] == 1);
    if (side == 2) CHECK(m->y[a] == 1 && m->y[b] == 1);
    if (side == 3) CHECK(m->x[a] == 0 && m->x[b] == 0);
  }
  check_lines(m, path);
}

static void test_squares_agree(void)
{
  static const char *const names[4] = {"bottom", "right", "top", "left"};
  insdg_gmsh a, b;
  char path22[1024], path41[1024];
  snprintf(path22, sizeof path22, "%s", mesh_path("square22.msh"));
  snprintf(path41, sizeof path41, "%s", mesh_path("square41.msh"));
  read_ok(path22, &a);
  read_ok(path41, &b);
  check_square(&a, path22);
  check_square(&b, path41);
  CHECK(a.nnodes == b.nnodes && a.ntri == b.ntri && a.nline == b.nline);
  CHECK(a.nphys == 5 && b.nphys == 5);
  if (a.ntri == b.ntri) {
    tri_xy *ta = triangles_by_xy(&a), *tb = triangles_by_xy(&b);
    for (int e = 0; e < a.ntri; e++) CHECK(cmp_tri_xy(&ta[e], &tb[e]) == 0);
    free(ta);
    free(tb);
  }
  tri_xy *sa = insdg_malloc(sizeof(tri_xy) * (size_t)(a.nline + 1));
  tri_xy *sb = insdg_malloc(sizeof(tri_xy) * (size_t)(b.nline + 1));
  for (int s = 0; s < 4; s++) {
    int na = segments_named(&a, names[s], sa), nb = segments_named(&b, names[s], sb);
    CHECK(na == 4 && nb == 4);
    for (int i = 0; i < na && i < nb; i++) CHECK(cmp_tri_xy(&sa[i], &sb[i]) == 0);
  }
  free(sa);
  free(sb);
  insdg_gmsh_free(&a);
  insdg_gmsh_free(&b);
  CHECK(a.x == NULL && a.ntri == 0 && a.phys == NULL);
}

static void test_hole(void)
{
  insdg_gmsh m;
  const char *path = mesh_path("hole41.msh");
  read_ok(path, &m);
  CHECK(m.nnodes == 144);
  CHECK(m.ntri == 236);
  CHECK(m.nline == 52);
  CHECK(m.nphys == 3);
  const char *outer = insdg_gmsh_physical_name(&m, 1, 1);
  const char *wall = insdg_gmsh_physical_name(&m, 1, 2);
  const char *fluid = insdg_gmsh_physical_name(&m, 2, 3);
  CHECK(outer && strcmp(outer, "outer") == 0);
  CHECK(wall && strcmp(wall, "wall") == 0);
  CHECK(fluid && strcmp(fluid, "fluid") == 0);
  int nouter = 0, nwall = 0;
  for (int l = 0; l < m.nline; l++) {
    const int a = m.line[2 * l], b = m.line[2 * l + 1];
    if (m.line_phys[l] == 1) {
      nouter++;
      CHECK(fmax(fabs(m.x[a]), fabs(m.y[a])) > 1 - 1e-12);
    } else {
      nwall++;
      CHECK(m.line_phys[l] == 2);
      CHECK(fabs(hypot(m.x[b], m.y[b]) - 0.4) < 1e-9);
    }
  }
  CHECK(nouter > 0 && nwall > 0 && nouter + nwall == 52);
  const double area = total_area(&m), disc = 4 - 3.14159265358979323846 * 0.16;
  CHECK(area > disc && area < disc + 0.02);   /* the wall is an inscribed polygon */
  check_lines(&m, path);
  insdg_gmsh_free(&m);
}

/* ---- hand-written files ------------------------------------------------------------- */

#define HEAD22 "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n"
#define NODES22 "$Nodes\n3\n1 0 0 0\n2 1 0 0\n3 0 1 0\n$EndNodes\n"

static char tmp_path[64];

static const char *write_temp(const char *text)
{
  snprintf(tmp_path, sizeof tmp_path, "/tmp/insdg_test_gmsh_XXXXXX");
  int fd = mkstemp(tmp_path);
  if (fd < 0) {
    perror("mkstemp");
    exit(1);
  }
  FILE *f = fdopen(fd, "w");
  fputs(text, f);
  fclose(f);
  return tmp_path;
}

/* text with every "\n" replaced by "  \r\n" (trailing blanks and CRLF) */
static char *crlf(const char *text)
{
  char *out = insdg_malloc(4 * strlen(text) + 1), *o = out;
  for (; *text; text++) {
    if (*text == '\n') {
      memcpy(o, "  \r", 3);
      o += 3;
    }
    *o++ = *text;
  }
  *o = '\0';
  return out;
}

/* Sparse, unordered node tags; two entity blocks; a name with spaces; a section to skip
   whose contents would not tokenize. */
static const char sparse41[] =
    "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n"
    "$PhysicalNames\n2\n1 7 \"no slip wall\"\n2 9 \"fluid\"\n$EndPhysicalNames\n"
    "$Entities\n0 1 1 0\n3 0 0 0 1 1 0 1 7 2 1 -2\n5 0 0 0 1 1 0 1 9 1 3\n$EndEntities\n"
    "$Nodes\n2 4 10 400\n2 5 0 2\n400\n10\n1 1 0\n0 0 0\n1 3 0 2\n20\n30\n1 0 0\n0 1 0\n"
    "$EndNodes\n"
    "$Elements\n3 4 1 9\n0 3 15 1\n1 10\n1 3 1 1\n7 10 400\n2 5 2 2\n9 10 20 400\n"
    "8 10 400 30\n$EndElements\n"
    "$Periodic\ngarbage \"unterminated\n$EndPeriodic\n";

static void check_sparse(const insdg_gmsh *m, const char *path)
{
  CHECK(m->nnodes == 4 && m->ntri == 2 && m->nline == 1 && m->nphys == 2);
  if (m->nnodes != 4 || m->ntri != 2 || m->nline != 1) return;
  CHECK(m->x[0] == 1 && m->y[0] == 1 && m->x[1] == 0 && m->y[1] == 0);
  CHECK(m->x[2] == 1 && m->y[2] == 0 && m->x[3] == 0 && m->y[3] == 1);
  CHECK(m->tri[0] == 1 && m->tri[1] == 2 && m->tri[2] == 0);
  CHECK(m->tri[3] == 1 && m->tri[4] == 0 && m->tri[5] == 3);
  CHECK(m->tri_tag[0] == 9 && m->tri_tag[1] == 8);
  CHECK(m->tri_entity[0] == 5 && m->tri_entity[1] == 5);
  CHECK(m->line[0] == 1 && m->line[1] == 0 && m->line_phys[0] == 7);
  CHECK(fabs(total_area(m) - 1.0) < 1e-15);
  const char *wall = insdg_gmsh_physical_name(m, 1, 7);
  CHECK(wall && strcmp(wall, "no slip wall") == 0);
  check_lines(m, path);
}

static void test_handwritten(void)
{
  insdg_gmsh m;
  const char *path = write_temp(sparse41);
  read_ok(path, &m);
  check_sparse(&m, path);
  insdg_gmsh_free(&m);
  unlink(path);

  char *dos = crlf(sparse41);
  path = write_temp(dos);
  read_ok(path, &m);
  check_sparse(&m, path);
  insdg_gmsh_free(&m);
  unlink(path);
  free(dos);

  /* 2.2: an unnamed physical line, an element without physical group, sparse tags */
  path = write_temp(HEAD22 "$NodeData\n1\n\"x\"\n$EndNodeData\n"
                    "$Nodes\n3\n5 0 0 0\n3 1 0 0\n9 0 1 0\n$EndNodes\n"
                    "$Elements\n4\n1 15 2 0 1 5\n2 1 2 0 7 5 3\n3 1 2 11 7 3 9\n"
                    "4 2 2 0 6 5 3 9\n$EndElements\n");
  read_ok(path, &m);
  CHECK(m.nnodes == 3 && m.ntri == 1 && m.nline == 1 && m.nphys == 1);
  if (m.ntri == 1 && m.nline == 1) {
    CHECK(m.tri[0] == 0 && m.tri[1] == 1 && m.tri[2] == 2 && m.tri_entity[0] == 6);
    CHECK(m.tri_line[0] == 19 && m.line_line[0] == 18);
    CHECK(m.line[0] == 1 && m.line[1] == 2 && m.line_phys[0] == 11);
    const char *name = insdg_gmsh_physical_name(&m, 1, 11);
    CHECK(name && strcmp(name, "11") == 0);
  }
  insdg_gmsh_free(&m);
  unlink(path);
}

/* ---- errors ------------------------------------------------------------------------- */

/* Reading path must fail with one line "<path>:<line>: ...what..." and a zeroed *out. */
static void expect_error_at(const char *path, int line, const char *what)
{
  insdg_gmsh m;
  char err[INSDG_ERRMSG_LEN], prefix[1100];
  memset(&m, 0x5a, sizeof m);
  int status = insdg_gmsh_read(path, &m, err, sizeof err);
  CHECK(status != 0);
  if (status == 0) {
    fprintf(stderr, "  %s was read without error, expected '%s'\n", path, what);
    insdg_gmsh_free(&m);
    return;
  }
  if (line > 0) snprintf(prefix, sizeof prefix, "%s:%d: ", path, line);
  else snprintf(prefix, sizeof prefix, "%s: ", path);
  int ok = strncmp(err, prefix, strlen(prefix)) == 0 && strstr(err, what) != NULL &&
           strchr(err, '\n') == NULL;
  if (!ok) fprintf(stderr, "  message '%s'\n  expected '%s...%s'\n", err, prefix, what);
  CHECK(ok);
  CHECK(m.x == NULL && m.y == NULL && m.tri == NULL && m.line == NULL && m.phys == NULL);
  CHECK(m.nnodes == 0 && m.ntri == 0 && m.nline == 0 && m.nphys == 0);
}

static void expect_text_error(const char *text, int line, const char *what)
{
  const char *path = write_temp(text);
  expect_error_at(path, line, what);
  unlink(path);
}

static void test_errors(void)
{
  expect_error_at(mesh_path("bad_truncated.msh"), 122,
                  "unexpected end of file in $Elements (expected 58 elements, read 20)");
  expect_error_at(mesh_path("bad_elemtype.msh"), 70,
                  "element 24: unsupported element type 3 (4-node quadrangle)");
  expect_error_at(mesh_path("bad_version.msh"), 2, "version 3.0");
  expect_error_at(mesh_path("bad_number.msh"), 19, "malformed number '0.5x'");
  expect_error_at(mesh_path("does_not_exist.msh"), 0, "No such file");

  expect_text_error("", 1, "does not start with $MeshFormat");
  expect_text_error("$MeshFormat\n4.1 1 8\n$EndMeshFormat\n", 2, "binary");
  expect_text_error(HEAD22 NODES22, 9, "no $Elements");
  expect_text_error(HEAD22 "$Elements\n0\n$EndElements\n", 4, "$Elements before $Nodes");
  expect_text_error(HEAD22 "$Nodes\n3\n1 0 0 0\n2 1 0 0.5\n3 0 1 0\n$EndNodes\n", 7,
                    "node 2: z = 0.5 is not 0");
  expect_text_error(HEAD22 "$Nodes\n3\n1 0 0 0\n2 1 0 0\n$EndNodes\n", 8,
                    "unexpected $EndNodes in $Nodes (expected 3 nodes, read 2)");
  expect_text_error(HEAD22 "$Nodes\n1\n1 0 0 0\n2 1 0 0\n$EndNodes\n", 7,
                    "expected $EndNodes");
  expect_text_error(HEAD22 "$Nodes\n2\n4 0 0 0\n4 1 0 0\n$EndNodes\n", 7,
                    "node tag 4 defined twice (first at line 6)");
  expect_text_error(HEAD22 NODES22 "$Elements\n1\n7 2 2 0 1 1 2 99\n$EndElements\n", 12,
                    "element 7: node tag 99 does not exist");
  expect_text_error(HEAD22 NODES22 "$Elements\n1\n7 2 2 0 1 1 2\n$EndElements\n", 12,
                    "element 7: expected 8 fields");
  expect_text_error(HEAD22 NODES22 "$Elements\n1\n7 20 2 0 1 1 2 3 1 2 3 1 2 3\n$EndElements\n",
                    12, "unsupported element type 20 (9-node third order incomplete triangle)");
  expect_text_error(HEAD22 NODES22 "$Elements\n2\n7 2 2 0 1 1 2 3\n8 9 2 0 1 1 2 3 1 2 3\n$EndElements\n",
                    13, "element 8: a triangle of order 2 (6-node second order triangle) in a mesh whose "
                        "triangles are of order 1");
  expect_text_error(HEAD22 "$PhysicalNames\n1\n1 2 \"open\n$EndPhysicalNames\n", 6,
                    "unterminated quoted string");
  expect_text_error(HEAD22 "$Comments\nno end\n", 5, "unexpected end of file in $Comments");
  expect_text_error("$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n1 3 1 3\n2 1 0 2\n1\n2\n"
                    "0 0 0\n1 0 0\n$EndNodes\n",
                    11, "$Nodes header announces 3 nodes, its blocks hold 2");
  expect_text_error("$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n1 1 1 1\n2 1 0 1\n1\n"
                    "0 0 0\n$EndNodes\n$Elements\n1 1 1 1\n2 1 3 1\n5 1 1 1 1\n"
                    "$EndElements\n",
                    13, "element 5: unsupported element type 3 (4-node quadrangle)");
}

/* Coordinates a mesh cannot have: reported by the reader as "node <tag>: ...". */
static void test_coordinate_errors(void)
{
  expect_error_at(mesh_path("bad_nan_coord.msh"), 35, "node 22: y = nan is not a finite number");
  expect_error_at(mesh_path("bad_huge_coord.msh"), 35,
                  "node 22: x = 4.308090314147045e+20 is too large (|x| must be at most 1e+15)");
  expect_text_error(HEAD22 "$Nodes\n3\n1 0 0 0\n2 -inf 0 0\n3 0 1 0\n$EndNodes\n", 7,
                    "node 2: x = -inf is not a finite number");
  expect_text_error(HEAD22 "$Nodes\n3\n1 0 0 0\n2 1 0 0\n3 0 1 NaN\n$EndNodes\n", 8,
                    "node 3: z = NaN is not a finite number");
  expect_text_error(HEAD22 "$Nodes\n3\n1 0 0 0\n2 1 0 0\n3 0 -1e400 0\n$EndNodes\n", 8,
                    "node 3: y = -1e400 is too large");
  expect_text_error(HEAD22 "$Nodes\n3\n1 0 0 0\n2 1.000001e15 0 0\n3 0 1 0\n$EndNodes\n", 7,
                    "node 2: x = 1.000001e15 is too large");
  /* 4.1: the tags come before the coordinates, the message still names the node */
  expect_text_error("$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n1 2 4 5\n2 1 0 2\n4\n5\n"
                    "0 0 0\n0 nan 0\n$EndNodes\n",
                    10, "node 5: y = nan is not a finite number");
  expect_text_error(HEAD22 "$Nodes\n3\n4 0.5 2 0\n2 0.5 2 0\n3 0.5 2 0\n$EndNodes\n", 6,
                    "node 4: all 3 nodes of the mesh are at the same point (0.5, 2)");
  /* the limits themselves are accepted */
  insdg_gmsh m;
  const char *path = write_temp(HEAD22 "$Nodes\n3\n1 -1e15 0 0\n2 1e15 0 0\n3 0 1e15 0\n"
                                "$EndNodes\n$Elements\n1\n7 2 2 0 1 1 2 3\n$EndElements\n");
  read_ok(path, &m);
  insdg_gmsh_free(&m);
  unlink(path);
}

/* insdg_mesh_read of path must fail with one line "<path>:<line>: ...what..." */
static void expect_mesh_error_at(const char *path, int line, const char *what)
{
  insdg_mesh *mesh = (insdg_mesh *)1;
  char err[INSDG_ERRMSG_LEN], prefix[1100];
  int status = insdg_mesh_read(path, &mesh, err, sizeof err);
  CHECK(status != 0 && mesh == NULL);
  if (status == 0) {
    fprintf(stderr, "  %s was read without error, expected '%s'\n", path, what);
    insdg_mesh_destroy(mesh);
    return;
  }
  snprintf(prefix, sizeof prefix, "%s:%d: ", path, line);
  int ok = strncmp(err, prefix, strlen(prefix)) == 0 && strstr(err, what) != NULL &&
           strchr(err, '\n') == NULL;
  if (!ok) fprintf(stderr, "  message '%s'\n  expected '%s...%s'\n", err, prefix, what);
  CHECK(ok);
}

/* A triangle given twice, in any node order, is reported as such (not as an inverted
   triangle or a face shared by three elements), at the later element. */
static void test_duplicate_elements(void)
{
  expect_mesh_error_at(mesh_path("bad_duplicate.msh"), 105,
                       "elements 19 and 59 have the same three nodes");
  static const char *orders[] = {"2 3 1", "3 1 2", "1 2 3", "1 3 2", "3 2 1", "2 1 3"};
  for (int i = 0; i < 6; i++) {
    char text[512];
    snprintf(text, sizeof text,
             HEAD22 "$Nodes\n4\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 1 1 0\n$EndNodes\n"
                    "$Elements\n6\n1 1 2 1 1 1 2\n2 1 2 1 1 2 4\n3 1 2 1 1 4 3\n"
                    "4 1 2 1 1 3 1\n7 2 2 0 1 1 2 3\n9 2 2 0 1 %s\n$EndElements\n",
             orders[i]);
    const char *path = write_temp(text);
    expect_mesh_error_at(path, 18, "elements 7 and 9 have the same three nodes");
    unlink(path);
  }
  /* without the copy the same file is a valid mesh */
  const char *path = write_temp(HEAD22 "$Nodes\n4\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 1 1 0\n"
                                "$EndNodes\n$Elements\n6\n1 1 2 1 1 1 2\n2 1 2 1 1 2 4\n"
                                "3 1 2 1 1 4 3\n4 1 2 1 1 3 1\n7 2 2 0 1 1 2 3\n"
                                "9 2 2 0 1 2 4 3\n$EndElements\n");
  insdg_mesh *mesh = NULL;
  char err[INSDG_ERRMSG_LEN];
  int status = insdg_mesh_read(path, &mesh, err, sizeof err);
  if (status) fprintf(stderr, "  valid two-triangle mesh rejected: %s\n", err);
  CHECK(status == 0 && mesh && mesh->K == 2);
  if (mesh) insdg_mesh_destroy(mesh);
  unlink(path);
}

int main(int argc, char **argv)
{
  if (argc != 2) {
    fprintf(stderr, "usage: %s MESHDIR\n", argv[0]);
    return 2;
  }
  meshdir = argv[1];
  test_squares_agree();
  test_hole();
  test_handwritten();
  test_errors();
  test_coordinate_errors();
  test_duplicate_elements();
  if (nfail) fprintf(stderr, "test_gmsh: %d check(s) failed\n", nfail);
  else printf("test_gmsh: all checks passed\n");
  return nfail != 0;
}
