/* mesh.c -- connectivity, checks and affine geometry of a triangle mesh.
 *
 * Construction goes through one path: a Gmsh-shaped description (io/gmsh.h), whether it
 * came from a file or from insdg_mesh_rectangle, is checked and turned into element
 * connectivity here. Checks report the offending element by its Gmsh tag and the file
 * line where it was defined, because that is what a user can find in their mesh.
 *
 * Faces are matched by sorting (min vertex, max vertex) keys, so building connectivity is
 * O(K log K) and deterministic.
 */
#include "mesh.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "curved.h"
#include "error.h"

typedef struct {
  long long key;   /* min vertex * Nv + max vertex */
  int elem, face;  /* for triangle faces; for boundary segments elem = segment index, face = -1 */
} face_key;

static int cmp_face_key(const void *a, const void *b)
{
  const face_key *fa = a, *fb = b;
  if (fa->key != fb->key) return fa->key < fb->key ? -1 : 1;
  if (fa->elem != fb->elem) return fa->elem < fb->elem ? -1 : 1;
  return fa->face - fb->face;
}

static long long edge_key(int a, int b, int Nv)
{
  return a < b ? (long long)a * Nv + b : (long long)b * Nv + a;
}

static int fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
  return 1;
}

static double signed_area2(const insdg_gmsh *g, const int *v)
{
  const double ax = g->x[v[1]] - g->x[v[0]], ay = g->y[v[1]] - g->y[v[0]];
  const double bx = g->x[v[2]] - g->x[v[0]], by = g->y[v[2]] - g->y[v[0]];
  return ax * by - ay * bx;
}

static double longest_edge2(const insdg_gmsh *g, const int *v)
{
  double h2 = 0;
  for (int f = 0; f < 3; ++f) {
    const double dx = g->x[v[(f + 1) % 3]] - g->x[v[f]], dy = g->y[v[(f + 1) % 3]] - g->y[v[f]];
    if (dx * dx + dy * dy > h2) h2 = dx * dx + dy * dy;
  }
  return h2;
}

typedef struct {
  int v[3];   /* the triangle's nodes, sorted */
  int elem;
} sorted_tri;

static int cmp_sorted_tri(const void *a, const void *b)
{
  const sorted_tri *ta = a, *tb = b;
  for (int i = 0; i < 3; ++i)
    if (ta->v[i] != tb->v[i]) return ta->v[i] < tb->v[i] ? -1 : 1;
  return ta->elem < tb->elem ? -1 : ta->elem > tb->elem;
}

/* Two triangles on the same three nodes, in any order, are one triangle given twice (a
   copy-paste or merge mistake). Checked before orientation and face pairing, which would
   otherwise call the copy "inverted" or its faces "shared by three elements". Reports
   the pair whose later element comes first in the file. */
static int check_duplicates(const insdg_gmsh *g, char *err, size_t errlen)
{
  sorted_tri *t = insdg_malloc(sizeof(sorted_tri) * ((size_t)g->ntri + 1));
  for (int e = 0; e < g->ntri; ++e) {
    int a = g->tri[3 * e], b = g->tri[3 * e + 1], c = g->tri[3 * e + 2], s;
    if (a > b) s = a, a = b, b = s;
    if (b > c) s = b, b = c, c = s;
    if (a > b) s = a, a = b, b = s;
    t[e] = (sorted_tri){{a, b, c}, e};
  }
  qsort(t, (size_t)g->ntri, sizeof(sorted_tri), cmp_sorted_tri);
  int first = -1, second = -1;
  for (int i = 1; i < g->ntri; ++i)
    if (memcmp(t[i].v, t[i - 1].v, sizeof t[i].v) == 0 && (second < 0 || t[i].elem < second))
      first = t[i - 1].elem, second = t[i].elem;
  free(t);
  if (second < 0) return 0;
  return fail(err, errlen, "%s:%d: elements %d and %d have the same three nodes (one triangle given twice)",
              g->path, g->tri_line[second], g->tri_tag[first], g->tri_tag[second]);
}

/* Orientation: each geometric surface must be consistently oriented. A surface whose
   triangles are all clockwise is flipped (Gmsh writes such meshes for reversed curve
   loops); a triangle that disagrees with the majority of its surface is inverted. */
static int orient_triangles(const insdg_gmsh *g, int *EToV, char *err, size_t errlen)
{
  for (int e = 0; e < g->ntri; ++e) {
    const int *v = g->tri + 3 * e;
    if (v[0] == v[1] || v[1] == v[2] || v[0] == v[2])
      return fail(err, errlen, "%s:%d: element %d: degenerate triangle (a node is repeated)",
                  g->path, g->tri_line[e], g->tri_tag[e]);
    const double a2 = signed_area2(g, v);
    if (fabs(a2) <= 1e-12 * longest_edge2(g, v))
      return fail(err, errlen, "%s:%d: element %d: degenerate triangle (area %.3g, its nodes are collinear)",
                  g->path, g->tri_line[e], g->tri_tag[e], 0.5 * fabs(a2));
  }
  /* surfaces in order of first appearance: one pass per surface */
  char *done = insdg_calloc((size_t)g->ntri, 1);
  int status = 0;
  for (int e = 0; e < g->ntri && !status; ++e) {
    if (done[e]) continue;
    const int surface = g->tri_entity[e];
    int npos = 0, nneg = 0;
    for (int p = e; p < g->ntri; ++p)
      if (g->tri_entity[p] == surface) {
        if (signed_area2(g, g->tri + 3 * p) > 0) ++npos; else ++nneg;
      }
    const int flip = nneg > npos;
    for (int p = e; p < g->ntri && !status; ++p) {
      if (g->tri_entity[p] != surface) continue;
      done[p] = 1;
      const int neg = signed_area2(g, g->tri + 3 * p) < 0;
      if (neg != flip) {
        status = fail(err, errlen,
                      "%s:%d: element %d: inverted triangle (%s while the other %d triangles of surface %d are %s)",
                      g->path, g->tri_line[p], g->tri_tag[p], neg ? "clockwise" : "counter-clockwise",
                      flip ? nneg : npos, surface, flip ? "clockwise" : "counter-clockwise");
        break;
      }
      int *v = EToV + 3 * p;
      v[0] = g->tri[3 * p];
      v[1] = g->tri[3 * p + (flip ? 2 : 1)];
      v[2] = g->tri[3 * p + (flip ? 1 : 2)];
    }
  }
  free(done);
  return status;
}

static int find_boundary_name(insdg_mesh *m, const char *name)
{
  for (int b = 0; b < m->nbnd; ++b)
    if (strcmp(m->bnd_name[b], name) == 0) return b;
  INSDG_CHECK(m->nbnd < INSDG_MAX_BOUNDARIES);
  snprintf(m->bnd_name[m->nbnd], sizeof m->bnd_name[0], "%s", name);
  return m->nbnd++;
}

/* Pair faces into EToE/EToF and tag boundary faces with their physical line. */
static int connect_faces(const insdg_gmsh *g, insdg_mesh *m, char *err, size_t errlen)
{
  const int K = m->K, Nv = m->Nv;
  face_key *faces = insdg_malloc(sizeof(face_key) * 3 * (size_t)K);
  for (int e = 0; e < K; ++e)
    for (int f = 0; f < 3; ++f)
      faces[3 * e + f] = (face_key){edge_key(m->EToV[3 * e + f], m->EToV[3 * e + (f + 1) % 3], Nv), e, f};
  qsort(faces, 3 * (size_t)K, sizeof(face_key), cmp_face_key);

  face_key *segs = insdg_malloc(sizeof(face_key) * (size_t)(g->nline + 1));
  for (int l = 0; l < g->nline; ++l) segs[l] = (face_key){edge_key(g->line[2 * l], g->line[2 * l + 1], Nv), l, -1};
  qsort(segs, (size_t)g->nline, sizeof(face_key), cmp_face_key);

  int status = 0;
  for (size_t i = 0; i < 3 * (size_t)K && !status;) {
    size_t n = 1;
    while (i + n < 3 * (size_t)K && faces[i + n].key == faces[i].key) ++n;
    const int e = faces[i].elem, f = faces[i].face;
    const int a = m->EToV[3 * e + f], b = m->EToV[3 * e + (f + 1) % 3];
    if (n >= 3) {
      const int e3 = faces[i + 2].elem;
      status = fail(err, errlen,
                    "%s:%d: element %d: face from (%g, %g) to (%g, %g) is shared by three or more elements",
                    g->path, g->tri_line[e3], g->tri_tag[e3], m->vx[a], m->vy[a], m->vx[b], m->vy[b]);
    } else if (n == 2) {
      const int e2 = faces[i + 1].elem, f2 = faces[i + 1].face;
      if (m->EToV[3 * e2 + f2] != b)   /* same direction: the two triangles overlap */
        status = fail(err, errlen,
                      "%s:%d: element %d: inverted triangle (it folds over its neighbour, element %d)",
                      g->path, g->tri_line[e2], g->tri_tag[e2], g->tri_tag[e]);
      m->EToE[3 * e + f] = e2, m->EToF[3 * e + f] = f2;
      m->EToE[3 * e2 + f2] = e, m->EToF[3 * e2 + f2] = f;
    } else {
      face_key probe = {faces[i].key, -1, -1};
      size_t lo = 0, hi = (size_t)g->nline;   /* first segment with key >= probe */
      while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (segs[mid].key < probe.key) lo = mid + 1; else hi = mid;
      }
      if (lo == (size_t)g->nline || segs[lo].key != probe.key) {
        status = fail(err, errlen,
                      "%s:%d: element %d: boundary face from (%g, %g) to (%g, %g) has no physical group",
                      g->path, g->tri_line[e], g->tri_tag[e], m->vx[a], m->vy[a], m->vx[b], m->vy[b]);
      } else {
        const int tag = g->line_phys[segs[lo].elem];
        const char *name = insdg_gmsh_physical_name(g, 1, tag);
        char number[32];
        if (!name) snprintf(number, sizeof number, "%d", tag), name = number;
        m->face_bnd[3 * e + f] = find_boundary_name(m, name);
      }
    }
    i += n;
  }
  free(faces);
  free(segs);
  return status;
}


/* An edge given by the file with q - 1 nodes between its ends is straight when every node
   lies on the chord at its equispaced place (to 1e-10 of the edge length). */
static int edge_straight(const insdg_gmsh *g, int a, int b, const int *mid, int q)
{
  const double len = hypot(g->x[b] - g->x[a], g->y[b] - g->y[a]);
  for (int k = 1; k < q; ++k) {
    const double t = (double)k / q;
    const double dx = g->x[mid[k - 1]] - ((1 - t) * g->x[a] + t * g->x[b]);
    const double dy = g->y[mid[k - 1]] - ((1 - t) * g->y[a] + t * g->y[b]);
    if (hypot(dx, dy) > 1e-10 * len) return 0;
  }
  return 1;
}

/* Curves of a high-order mesh (curved.h): each boundary face whose file nodes leave its
   chord becomes a curve, its nodes ordered from the face's first vertex; interior edges
   stay straight (counted). Then every curved element's map must have a positive
   Jacobian: an edge node out of order or an edge bent too far folds the element. */
static int build_curves(const insdg_gmsh *g, insdg_mesh *m, char *err, size_t errlen)
{
  const int q = g->tri_order, K = m->K;
  if (q < 2) return 0;
  m->curve_q = q;
  m->face_curve = insdg_malloc(sizeof(int) * 3 * (size_t)K);
  int cap = 0;
  for (int e = 0; e < K; ++e)
    for (int f = 0; f < 3; ++f) {
      m->face_curve[3 * e + f] = -1;
      const int a = m->EToV[3 * e + f], b = m->EToV[3 * e + (f + 1) % 3];
      const int *gv = g->tri + 3 * e, *ge = g->tri_edge + (size_t)3 * (q - 1) * e;
      int mid[INSDG_CURVE_QMAX - 1], found = 0;
      for (int k = 0; k < 3 && !found; ++k) {   /* the file's edge k joins gv[k] and gv[k+1] */
        const int ga = gv[k], gb = gv[(k + 1) % 3];
        if (!((ga == a && gb == b) || (ga == b && gb == a))) continue;
        found = 1;
        for (int i = 0; i < q - 1; ++i) mid[i] = ge[k * (q - 1) + (ga == a ? i : q - 2 - i)];
      }
      INSDG_CHECK(found);
      if (edge_straight(g, a, b, mid, q)) continue;
      if (m->face_bnd[3 * e + f] < 0) {
        m->nstraightened += m->EToE[3 * e + f] > e;
        continue;
      }
      if (m->ncurves == cap) {
        cap = cap ? 2 * cap : 64;
        m->curve_x = realloc(m->curve_x, sizeof(double) * (size_t)cap * (q + 1));
        m->curve_y = realloc(m->curve_y, sizeof(double) * (size_t)cap * (q + 1));
        INSDG_CHECK(m->curve_x && m->curve_y);
      }
      double *cx = m->curve_x + (size_t)m->ncurves * (q + 1), *cy = m->curve_y + (size_t)m->ncurves * (q + 1);
      cx[0] = g->x[a], cy[0] = g->y[a], cx[q] = g->x[b], cy[q] = g->y[b];
      for (int i = 1; i < q; ++i) cx[i] = g->x[mid[i - 1]], cy[i] = g->y[mid[i - 1]];
      m->face_curve[3 * e + f] = m->ncurves++;
    }
  for (int e = 0; e < K; ++e) {
    if (m->face_curve[3 * e] < 0 && m->face_curve[3 * e + 1] < 0 && m->face_curve[3 * e + 2] < 0) continue;
    double x, y;
    const double J = insdg_mesh_min_jacobian(m, e, &x, &y);
    if (!(J > 0))
      return fail(err, errlen,
                  "%s:%d: element %d: inverted curved element (its Jacobian is %.3g at (%g, %g)): an edge node "
                  "out of order, or a boundary edge bent too far for the element",
                  g->path, g->tri_line[e], g->tri_tag[e], J, x, y);
  }
  return 0;
}

int insdg_mesh_from_gmsh(const insdg_gmsh *g, insdg_mesh **out, char *err, size_t errlen)
{
  *out = NULL;
  if (g->ntri == 0) return fail(err, errlen, "%s: the mesh has no triangles", g->path);
  insdg_mesh *m = insdg_calloc(1, sizeof *m);
  m->K = g->ntri;
  m->Nv = g->nnodes;
  m->vx = insdg_malloc(sizeof(double) * (size_t)m->Nv);
  m->vy = insdg_malloc(sizeof(double) * (size_t)m->Nv);
  memcpy(m->vx, g->x, sizeof(double) * (size_t)m->Nv);
  memcpy(m->vy, g->y, sizeof(double) * (size_t)m->Nv);
  m->EToV = insdg_malloc(sizeof(int) * 3 * (size_t)m->K);
  m->EToE = insdg_malloc(sizeof(int) * 3 * (size_t)m->K);
  m->EToF = insdg_malloc(sizeof(int) * 3 * (size_t)m->K);
  m->face_bnd = insdg_malloc(sizeof(int) * 3 * (size_t)m->K);
  for (int i = 0; i < 3 * m->K; ++i) m->EToE[i] = i / 3, m->EToF[i] = i % 3, m->face_bnd[i] = -1;

  if (check_duplicates(g, err, errlen) || orient_triangles(g, m->EToV, err, errlen) ||
      connect_faces(g, m, err, errlen) || build_curves(g, m, err, errlen)) {
    insdg_mesh_destroy(m);
    return 1;
  }
  *out = m;
  return 0;
}

void insdg_gmsh_free(insdg_gmsh *m)
{
  if (!m) return;
  free(m->x);
  free(m->y);
  free(m->tri);
  free(m->tri_tag);
  free(m->tri_entity);
  free(m->tri_line);
  free(m->tri_edge);
  free(m->line);
  free(m->line_phys);
  free(m->line_line);
  free(m->phys);
  memset(m, 0, sizeof *m);
}

const char *insdg_gmsh_physical_name(const insdg_gmsh *m, int dim, int tag)
{
  for (int i = 0; i < m->nphys; i++)
    if (m->phys[i].dim == dim && m->phys[i].tag == tag) return m->phys[i].name;
  return NULL;
}

/* A deterministic generator (xorshift) so generated meshes are the same everywhere. */
static double unit_random(unsigned *state)
{
  unsigned x = *state;
  x ^= x << 13, x ^= x >> 17, x ^= x << 5;
  *state = x;
  return (x & 0xffffff) / (double)0x1000000;
}

insdg_mesh *insdg_mesh_rectangle(int nx, int ny, double x0, double x1, double y0, double y1,
                                 double jitter, unsigned seed)
{
  INSDG_CHECK(nx >= 1 && ny >= 1 && jitter >= 0 && jitter < 0.3);
  static const char *names[4] = {"bottom", "right", "top", "left"};
  insdg_gmsh g;
  memset(&g, 0, sizeof g);
  snprintf(g.path, sizeof g.path, "rectangle(%dx%d)", nx, ny);
  g.nnodes = (nx + 1) * (ny + 1);
  g.x = insdg_malloc(sizeof(double) * (size_t)g.nnodes);
  g.y = insdg_malloc(sizeof(double) * (size_t)g.nnodes);
  unsigned state = seed ? seed : 1u;
  const double hx = (x1 - x0) / nx, hy = (y1 - y0) / ny;
  for (int j = 0; j <= ny; ++j)
    for (int i = 0; i <= nx; ++i) {
      const int interior = i > 0 && i < nx && j > 0 && j < ny;
      const double dx = interior ? jitter * (2 * unit_random(&state) - 1) : 0;
      const double dy = interior ? jitter * (2 * unit_random(&state) - 1) : 0;
      g.x[j * (nx + 1) + i] = x0 + (i + dx) * hx;
      g.y[j * (nx + 1) + i] = y0 + (j + dy) * hy;
    }
  g.ntri = 2 * nx * ny;
  g.tri = insdg_malloc(sizeof(int) * 3 * (size_t)g.ntri);
  g.tri_tag = insdg_malloc(sizeof(int) * (size_t)g.ntri);
  g.tri_entity = insdg_calloc((size_t)g.ntri, sizeof(int));
  g.tri_line = insdg_calloc((size_t)g.ntri, sizeof(int));
  for (int j = 0, t = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) {
      const int a = j * (nx + 1) + i, b = a + 1, c = a + nx + 1, d = c + 1;
      if ((i + j) % 2 == 0) {
        int v[6] = {a, b, d, a, d, c};
        memcpy(g.tri + 3 * t, v, sizeof v);
      } else {
        int v[6] = {a, b, c, b, d, c};
        memcpy(g.tri + 3 * t, v, sizeof v);
      }
      g.tri_tag[t] = t + 1, g.tri_tag[t + 1] = t + 2;
      t += 2;
    }
  g.nline = 2 * (nx + ny);
  g.line = insdg_malloc(sizeof(int) * 2 * (size_t)g.nline);
  g.line_phys = insdg_malloc(sizeof(int) * (size_t)g.nline);
  g.line_line = insdg_calloc((size_t)g.nline, sizeof(int));
  int l = 0;
  for (int i = 0; i < nx; ++i, ++l)   /* bottom */
    g.line[2 * l] = i, g.line[2 * l + 1] = i + 1, g.line_phys[l] = 1;
  for (int j = 0; j < ny; ++j, ++l)   /* right */
    g.line[2 * l] = j * (nx + 1) + nx, g.line[2 * l + 1] = (j + 1) * (nx + 1) + nx, g.line_phys[l] = 2;
  for (int i = 0; i < nx; ++i, ++l)   /* top */
    g.line[2 * l] = ny * (nx + 1) + i, g.line[2 * l + 1] = ny * (nx + 1) + i + 1, g.line_phys[l] = 3;
  for (int j = 0; j < ny; ++j, ++l)   /* left */
    g.line[2 * l] = j * (nx + 1), g.line[2 * l + 1] = (j + 1) * (nx + 1), g.line_phys[l] = 4;
  g.nphys = 4;
  g.phys = insdg_calloc(4, sizeof(insdg_gmsh_physical));
  for (int p = 0; p < 4; ++p) {
    g.phys[p].tag = p + 1, g.phys[p].dim = 1;
    snprintf(g.phys[p].name, sizeof g.phys[p].name, "%s", names[p]);
  }
  insdg_mesh *m;
  char err[INSDG_ERRMSG_LEN];
  if (insdg_mesh_from_gmsh(&g, &m, err, sizeof err)) insdg_internal_error(__FILE__, __LINE__, err);
  insdg_gmsh_free(&g);
  return m;
}

static void free_geometry(insdg_mesh *m)
{
  free(m->x), free(m->y), free(m->vgeo), free(m->sgeo), free(m->mapP);
  m->x = m->y = m->vgeo = m->sgeo = NULL;
  m->mapP = NULL;
  insdg_curved_destroy(m->curved);
  m->curved = NULL;
}

void insdg_mesh_set_ref(insdg_mesh *m, const insdg_ref *ref)
{
  free_geometry(m);
  m->ref = ref;
  const int K = m->K, Np = ref->Np, Nfp = ref->Nfp, N = ref->N;
  m->x = insdg_malloc(sizeof(double) * (size_t)K * Np);
  m->y = insdg_malloc(sizeof(double) * (size_t)K * Np);
  m->vgeo = insdg_malloc(sizeof(double) * (size_t)K * INSDG_NVGEO);
  m->sgeo = insdg_malloc(sizeof(double) * (size_t)K * 3 * INSDG_NSGEO);
  m->mapP = insdg_malloc(sizeof(int) * (size_t)K * 3 * Nfp);

  for (int e = 0; e < K; ++e) {
    const int *v = m->EToV + 3 * e;
    const double xa = m->vx[v[0]], ya = m->vy[v[0]];
    const double xr = 0.5 * (m->vx[v[1]] - xa), yr = 0.5 * (m->vy[v[1]] - ya);
    const double xs = 0.5 * (m->vx[v[2]] - xa), ys = 0.5 * (m->vy[v[2]] - ya);
    const double J = xr * ys - xs * yr;
    INSDG_CHECK(J > 0);
    double *vg = m->vgeo + (size_t)e * INSDG_NVGEO;
    vg[INSDG_RX] = ys / J, vg[INSDG_SX] = -yr / J;
    vg[INSDG_RY] = -xs / J, vg[INSDG_SY] = xr / J;
    vg[INSDG_J] = J;
    for (int n = 0; n < Np; ++n) {   /* x = v0 + (1+r)/2 (v1-v0) + (1+s)/2 (v2-v0) */
      m->x[(size_t)e * Np + n] = xa + (1 + ref->r[n]) * xr + (1 + ref->s[n]) * xs;
      m->y[(size_t)e * Np + n] = ya + (1 + ref->r[n]) * yr + (1 + ref->s[n]) * ys;
    }
    for (int f = 0; f < 3; ++f) {
      const double dx = m->vx[v[(f + 1) % 3]] - m->vx[v[f]], dy = m->vy[v[(f + 1) % 3]] - m->vy[v[f]];
      const double len = sqrt(dx * dx + dy * dy);
      double *sg = m->sgeo + ((size_t)e * 3 + f) * INSDG_NSGEO;
      sg[INSDG_NX] = dy / len, sg[INSDG_NY] = -dx / len;   /* outward for counter-clockwise */
      sg[INSDG_SJ] = 0.5 * len;
      sg[INSDG_FSCALE] = 0.5 * len / J;                       /* = 1/h = length / area */
    }
  }
  /* curved elements: nodes on the element map; 1/h per face the largest sJ/J of its nodes */
  for (int e = 0; e < K && m->face_curve; ++e)
    if (m->face_curve[3 * e] >= 0 || m->face_curve[3 * e + 1] >= 0 || m->face_curve[3 * e + 2] >= 0)
      insdg_mesh_map(m, e, Np, ref->r, ref->s, m->x + (size_t)e * Np, m->y + (size_t)e * Np, NULL, NULL, NULL, NULL);
  m->curved = insdg_curved_create(m, ref);
  for (int k = 0; m->curved && k < m->curved->n; ++k) {
    const int e = m->curved->elem[k];
    for (int f = 0; f < 3; ++f) {
      double inv_h = 0;
      for (int j = 0; j < Nfp; ++j) {
        const int i = ref->face_nodes[f * Nfp + j];
        const double sJ = m->curved->sgeo[((size_t)k * 3 * Nfp + f * Nfp + j) * CF_NF + CF_SJ];
        inv_h = fmax(inv_h, sJ / m->curved->vgeo[((size_t)k * Np + i) * CV_NV + CV_J]);
      }
      m->sgeo[((size_t)e * 3 + f) * INSDG_NSGEO + INSDG_FSCALE] = inv_h;
    }
  }
  const double tau_scale = 0.5 * (N + 1) * (N + 2);
  for (int e = 0; e < K; ++e)
    for (int f = 0; f < 3; ++f) {
      const int e2 = m->EToE[3 * e + f], f2 = m->EToF[3 * e + f];
      const double inv_h_minus = m->sgeo[((size_t)e * 3 + f) * INSDG_NSGEO + INSDG_FSCALE];
      const double inv_h_plus = m->sgeo[((size_t)e2 * 3 + f2) * INSDG_NSGEO + INSDG_FSCALE];
      m->sgeo[((size_t)e * 3 + f) * INSDG_NSGEO + INSDG_TAU] = tau_scale * fmax(inv_h_minus, inv_h_plus);
      for (int j = 0; j < Nfp; ++j) {
        const int boundary = m->face_bnd[3 * e + f] >= 0;
        m->mapP[((size_t)e * 3 + f) * Nfp + j] =
            boundary ? e * Np + ref->face_nodes[f * Nfp + j]
                     : e2 * Np + ref->face_nodes[f2 * Nfp + (Nfp - 1 - j)];
      }
    }
}

void insdg_mesh_weak_form(const insdg_mesh *m, const double *f, double *out)
{
  const insdg_ref *r = m->ref;
  const int Np = r->Np;
  for (int e = 0; e < m->K; ++e)
    for (int i = 0; i < Np; ++i) {
      double s = 0;
      for (int j = 0; j < Np; ++j) s += r->M[i * Np + j] * f[(size_t)e * Np + j];
      out[(size_t)e * Np + i] = m->vgeo[e * INSDG_NVGEO + INSDG_J] * s;
    }
  for (int k = 0; m->curved && k < m->curved->n; ++k) {   /* their own mass matrices */
    const int e = m->curved->elem[k];
    const double *Me = m->curved->M + (size_t)k * Np * Np;
    for (int i = 0; i < Np; ++i) {
      double s = 0;
      for (int j = 0; j < Np; ++j) s += Me[i * Np + j] * f[(size_t)e * Np + j];
      out[(size_t)e * Np + i] = s;
    }
  }
}

double insdg_mesh_area(const insdg_mesh *m)
{
  double area = 0;
  for (int e = 0; e < m->K; ++e)
    if (!m->curved || m->curved->index[e] < 0) area += 2 * m->vgeo[e * INSDG_NVGEO + INSDG_J];
  for (int k = 0; m->curved && k < m->curved->n; ++k)
    for (int q = 0; q < m->curved->Ncub; ++q) area += m->curved->cgeo[((size_t)k * m->curved->Ncub + q) * CC_NC + CC_J];
  return area;
}

int insdg_mesh_boundary(const insdg_mesh *m, const char *name)
{
  for (int b = 0; b < m->nbnd; ++b)
    if (strcmp(m->bnd_name[b], name) == 0) return b;
  return -1;
}

void insdg_mesh_destroy(insdg_mesh *m)
{
  if (!m) return;
  free_geometry(m);
  free(m->vx), free(m->vy), free(m->EToV), free(m->EToE), free(m->EToF), free(m->face_bnd);
  free(m->face_curve), free(m->curve_x), free(m->curve_y);
  free(m);
}

/* The curves of a refined mesh r: each half of a curved face of m is the same polynomial
   curve on half the parameter range, sampled at its own equispaced parameters. Child c of
   element e is 4e + c (insdg_mesh_refine's order); the half h of parent face f is face
   child_face[f][h] of child child_of[f][h]. */
static void refine_curves(const insdg_mesh *m, insdg_mesh *r)
{
  static const int child_of[3][2] = {{0, 1}, {1, 2}, {2, 0}}, child_face[3][2] = {{0, 0}, {1, 1}, {2, 2}};
  const int q = m->curve_q;
  r->curve_q = q, r->ncurves = 2 * m->ncurves, r->nstraightened = m->nstraightened;
  r->curve_x = insdg_malloc(sizeof(double) * (size_t)(r->ncurves > 0 ? r->ncurves : 1) * (q + 1));
  r->curve_y = insdg_malloc(sizeof(double) * (size_t)(r->ncurves > 0 ? r->ncurves : 1) * (q + 1));
  r->face_curve = insdg_malloc(sizeof(int) * 3 * (size_t)r->K);
  for (int i = 0; i < 3 * r->K; ++i) r->face_curve[i] = -1;
  for (int e = 0; e < m->K; ++e)
    for (int f = 0; f < 3; ++f) {
      const int c = m->face_curve[3 * e + f];
      if (c < 0) continue;
      for (int h = 0; h < 2; ++h) {
        const int nc = 2 * c + h;
        for (int k = 0; k <= q; ++k) {
          const double tau = -1.0 + 2.0 * k / q, t = h == 0 ? 0.5 * (tau - 1) : 0.5 * (tau + 1);
          insdg_mesh_curve_point(m, c, t, &r->curve_x[(size_t)nc * (q + 1) + k], &r->curve_y[(size_t)nc * (q + 1) + k]);
        }
        const int child = 4 * e + child_of[f][h], cf = child_face[f][h];
        INSDG_CHECK(r->face_bnd[3 * child + cf] >= 0);
        r->face_curve[3 * child + cf] = nc;
      }
    }
}

/* Uniform refinement: every triangle split into four by its edge midpoints; boundary
   segments split in two and keep their names. Built through insdg_mesh_from_gmsh so the
   result is checked like any mesh. Midpoints are numbered after the vertices in the order
   faces are first met (element order, face order), so refinement is deterministic. */
insdg_mesh *insdg_mesh_refine(const insdg_mesh *m)
{
  const int K = m->K;
  insdg_gmsh g;
  memset(&g, 0, sizeof g);
  snprintf(g.path, sizeof g.path, "refined(%d triangles)", K);
  int *mid = insdg_malloc(sizeof(int) * 3 * (size_t)K);   /* midpoint node of face (e,f) */
  int nmid = 0;
  for (int e = 0; e < K; ++e)
    for (int f = 0; f < 3; ++f) {
      const int e2 = m->EToE[3 * e + f], f2 = m->EToF[3 * e + f];
      mid[3 * e + f] = (e2 < e) ? mid[3 * e2 + f2] : m->Nv + nmid++;
    }
  g.nnodes = m->Nv + nmid;
  g.x = insdg_malloc(sizeof(double) * (size_t)g.nnodes);
  g.y = insdg_malloc(sizeof(double) * (size_t)g.nnodes);
  memcpy(g.x, m->vx, sizeof(double) * (size_t)m->Nv);
  memcpy(g.y, m->vy, sizeof(double) * (size_t)m->Nv);
  for (int e = 0; e < K; ++e)
    for (int f = 0; f < 3; ++f) {
      const int a = m->EToV[3 * e + f], b = m->EToV[3 * e + (f + 1) % 3];
      const int c = m->face_curve ? m->face_curve[3 * e + f] : -1;
      if (c >= 0)   /* a curved face's midpoint lies on its curve */
        insdg_mesh_curve_point(m, c, 0.0, &g.x[mid[3 * e + f]], &g.y[mid[3 * e + f]]);
      else
        g.x[mid[3 * e + f]] = 0.5 * (m->vx[a] + m->vx[b]), g.y[mid[3 * e + f]] = 0.5 * (m->vy[a] + m->vy[b]);
    }
  g.ntri = 4 * K;
  g.tri = insdg_malloc(sizeof(int) * 3 * (size_t)g.ntri);
  g.tri_tag = insdg_malloc(sizeof(int) * (size_t)g.ntri);
  g.tri_entity = insdg_calloc((size_t)g.ntri, sizeof(int));
  g.tri_line = insdg_calloc((size_t)g.ntri, sizeof(int));
  g.line = insdg_malloc(sizeof(int) * 2 * 6 * (size_t)K);
  g.line_phys = insdg_malloc(sizeof(int) * 6 * (size_t)K);
  g.line_line = insdg_calloc(6 * (size_t)K, sizeof(int));
  for (int e = 0; e < K; ++e) {
    const int *v = m->EToV + 3 * e, *mm = mid + 3 * e;
    const int children[4][3] = {{v[0], mm[0], mm[2]}, {mm[0], v[1], mm[1]}, {mm[2], mm[1], v[2]}, {mm[0], mm[1], mm[2]}};
    for (int c = 0; c < 4; ++c) {
      memcpy(g.tri + 3 * (4 * e + c), children[c], sizeof children[c]);
      g.tri_tag[4 * e + c] = 4 * e + c + 1;
    }
    for (int f = 0; f < 3; ++f) {
      if (m->face_bnd[3 * e + f] < 0) continue;
      const int halves[2][2] = {{v[f], mm[f]}, {mm[f], v[(f + 1) % 3]}};
      for (int h = 0; h < 2; ++h) {
        g.line[2 * g.nline] = halves[h][0], g.line[2 * g.nline + 1] = halves[h][1];
        g.line_phys[g.nline++] = m->face_bnd[3 * e + f] + 1;
      }
    }
  }
  g.nphys = m->nbnd;
  g.phys = insdg_calloc((size_t)(m->nbnd > 0 ? m->nbnd : 1), sizeof(insdg_gmsh_physical));
  for (int b = 0; b < m->nbnd; ++b) {
    g.phys[b].tag = b + 1, g.phys[b].dim = 1;
    snprintf(g.phys[b].name, sizeof g.phys[b].name, "%s", m->bnd_name[b]);
  }
  insdg_mesh *r;
  char err[INSDG_ERRMSG_LEN];
  if (insdg_mesh_from_gmsh(&g, &r, err, sizeof err)) insdg_internal_error(__FILE__, __LINE__, err);
  insdg_gmsh_free(&g);
  free(mid);
  if (m->face_curve) refine_curves(m, r);
  return r;
}
