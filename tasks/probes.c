/* probes.c -- the [probes] of a run (run_internal.h): named points whose u, v, p and
 * vorticity are written into probes.csv.
 *
 * Located once, at set-up, on every rank alike: a point belongs to the element of the
 * lowest original (mesh-file) index whose closed triangle holds it, within a barycentric
 * tolerance, so that a point on an edge or a vertex gets the same element, and the same
 * values to round-off, on any rank count and block count. A point in no element is a
 * case-file error naming the file, the line and the key.
 *
 * Values come from the element's polynomial, not from the nearest node: at set-up each
 * probe gets the row vectors phi (the nodal basis at the point), and d phi/dx, d phi/dy,
 * from the orthonormal basis at the point's (r, s) times the inverse Vandermonde matrix
 * (computed once per run); after a step the rank owning the element takes the dot
 * products with its local nodal values, and one reduction to rank 0 (the other ranks
 * contribute exact zeros) gives the row.
 *
 * The map from (r, s) is the affine one of the element's three vertices, or on a curved
 * element (curved.h) its map, inverted by Newton's method; the derivatives then use the
 * metric of the element's nodal map at the point.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "curved.h"
#include "run_internal.h"

/* A point counts as inside a triangle when no barycentric coordinate is below -INSIDE_TOL
   (relative to the triangle's size: 1e-10 of its height): round-off in the coordinates of
   a point on an edge or a vertex must not push it out of both neighbours. */
#define INSIDE_TOL 1e-10

typedef struct {
  int elem;              /* renumbered element (the layout's numbering) */
  int orig;              /* its index in the mesh file (after [case] refine) */
  double r, s;           /* reference coordinates of the point in it */
  double *phi, *phix, *phiy;   /* [Np] each: the nodal basis and its x, y derivatives at the point */
} probe_point;

struct probes {
  const insdg_case *c;
  int n, Np;
  probe_point *pt;
  FILE *csv;             /* rank 0 */
  char path[INSDG_CASE_PATH_LEN + 32];
  int created;           /* rank 0: probes.csv is new (removed when the start fails) */
  int continued;         /* rank 0, --restart: probes.csv existed and is continued */
  double next;           /* the next sampling time ([probes] interval > 0) */
};

/* barycentric coordinates of (x, y) in element e's triangle (vertices in EToV order) */
static void barycentric(const insdg_mesh *m, int e, double x, double y, double l[3])
{
  const int *v = m->EToV + 3 * (size_t)e;
  const double x0 = m->vx[v[0]], y0 = m->vy[v[0]];
  const double ax = m->vx[v[1]] - x0, ay = m->vy[v[1]] - y0, bx = m->vx[v[2]] - x0, by = m->vy[v[2]] - y0;
  const double det = ax * by - ay * bx, dx = x - x0, dy = y - y0;
  l[1] = (dx * by - dy * bx) / det;
  l[2] = (ax * dy - ay * dx) / det;
  l[0] = 1 - l[1] - l[2];
}

/* the lowest original element holding (x, y), or -1; a curved element holds the points
   its map reaches from the reference triangle (curved.h), not those of its chords */
static int locate(const insdg_mesh *original, double x, double y)
{
  for (int e = 0; e < original->K; ++e) {
    double l[3], r, s;
    if (original->curved && original->curved->index[e] >= 0) {
      if (insdg_mesh_inverse_map(original, e, x, y, 2 * INSIDE_TOL, &r, &s)) return e;
      continue;
    }
    barycentric(original, e, x, y, l);
    if (l[0] >= -INSIDE_TOL && l[1] >= -INSIDE_TOL && l[2] >= -INSIDE_TOL) return e;
  }
  return -1;
}

/* inv = A^{-1} for the n x n row-major A (Gauss-Jordan with partial pivoting; A is
   overwritten). The Vandermonde matrix of the Warp & Blend nodes is well conditioned. */
static void invert(int n, double *A, double *inv)
{
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) inv[(size_t)i * n + j] = i == j;
  for (int k = 0; k < n; ++k) {
    int piv = k;
    for (int i = k + 1; i < n; ++i)
      if (fabs(A[(size_t)i * n + k]) > fabs(A[(size_t)piv * n + k])) piv = i;
    for (int j = 0; j < n && piv != k; ++j) {
      double t = A[(size_t)k * n + j];
      A[(size_t)k * n + j] = A[(size_t)piv * n + j], A[(size_t)piv * n + j] = t;
      t = inv[(size_t)k * n + j];
      inv[(size_t)k * n + j] = inv[(size_t)piv * n + j], inv[(size_t)piv * n + j] = t;
    }
    const double d = A[(size_t)k * n + k];
    INSDG_CHECK(d != 0);
    for (int j = 0; j < n; ++j) A[(size_t)k * n + j] /= d, inv[(size_t)k * n + j] /= d;
    for (int i = 0; i < n; ++i) {
      const double f = A[(size_t)i * n + k];
      if (i == k || f == 0) continue;
      for (int j = 0; j < n; ++j)
        A[(size_t)i * n + j] -= f * A[(size_t)k * n + j], inv[(size_t)i * n + j] -= f * inv[(size_t)k * n + j];
    }
  }
}

/* phi, phix, phiy of a located point: psi(r, s) V^{-1} and its chain-ruled derivatives */
static void basis_at(const insdg_mesh *m, const double *Vinv, probe_point *p)
{
  const insdg_ref *ref = m->ref;
  const int Np = ref->Np;
  double *psi = new_array((size_t)Np), *psir = new_array((size_t)Np), *psis = new_array((size_t)Np);
  insdg_ref_basis(ref->N, 1, &p->r, &p->s, psi, psir, psis);
  const double *g = m->vgeo + (size_t)p->elem * INSDG_NVGEO;
  p->phi = new_array((size_t)Np), p->phix = new_array((size_t)Np), p->phiy = new_array((size_t)Np);
  for (int j = 0; j < Np; ++j) {
    double a = 0, ar = 0, as = 0;
    for (int k = 0; k < Np; ++k) {
      const double w = Vinv[(size_t)k * Np + j];
      a += psi[k] * w, ar += psir[k] * w, as += psis[k] * w;
    }
    p->phi[j] = a, p->phix[j] = ar, p->phiy[j] = as;   /* r, s derivatives until the metric is known */
  }
  double rx = g[INSDG_RX], sx = g[INSDG_SX], ry = g[INSDG_RY], sy = g[INSDG_SY];
  if (m->curved && m->curved->index[p->elem] >= 0) {   /* the metric of the element's nodal map at the point */
    const double *x = m->x + (size_t)p->elem * Np, *y = m->y + (size_t)p->elem * Np;
    double xr = 0, xs = 0, yr = 0, ys = 0;
    for (int j = 0; j < Np; ++j) xr += p->phix[j] * x[j], xs += p->phiy[j] * x[j], yr += p->phix[j] * y[j], ys += p->phiy[j] * y[j];
    const double J = xr * ys - xs * yr;
    rx = ys / J, sx = -yr / J, ry = -xs / J, sy = xr / J;
  }
  for (int j = 0; j < Np; ++j) {
    const double ar = p->phix[j], as = p->phiy[j];
    p->phix[j] = rx * ar + sx * as;
    p->phiy[j] = ry * ar + sy * as;
  }
  free(psi), free(psir), free(psis);
}

probes *probes_create(const setup *s, char *err, size_t errlen)
{
  const insdg_case *c = s->c;
  if (c->nprobes == 0) return NULL;
  const insdg_mesh *m = s->L->mesh;
  const int Np = m->ref->Np;
  probes *pr = insdg_calloc(1, sizeof *pr);
  pr->c = c, pr->n = c->nprobes, pr->Np = Np, pr->next = c->probe_interval;
  pr->pt = insdg_calloc((size_t)pr->n, sizeof *pr->pt);
  int *new_of = insdg_malloc(sizeof(int) * (size_t)m->K);   /* original element -> renumbered */
  for (int e = 0; e < m->K; ++e) new_of[s->L->old_elem[e]] = e;
  double *V = new_array((size_t)Np * Np), *Vinv = new_array((size_t)Np * Np);
  memcpy(V, m->ref->V, sizeof(double) * (size_t)Np * Np);
  invert(Np, V, Vinv);
  int failed = 0;
  for (int i = 0; i < pr->n && !failed; ++i) {
    const insdg_case_probe *q = &c->probes[i];
    probe_point *p = &pr->pt[i];
    p->orig = locate(s->mesh, q->x, q->y);
    if (p->orig < 0) {
      snprintf(err, errlen, "%.300s:%d: [probes] %s: the point (%.17g, %.17g) is outside the mesh", c->path, q->line,
               q->name, q->x, q->y);
      failed = 1;
      break;
    }
    p->elem = new_of[p->orig];
    if (m->curved && m->curved->index[p->elem] >= 0) {
      INSDG_CHECK(insdg_mesh_inverse_map(m, p->elem, q->x, q->y, 2 * INSIDE_TOL, &p->r, &p->s));
    } else {
      double l[3];
      barycentric(m, p->elem, q->x, q->y, l);   /* reference vertices (-1,-1), (1,-1), (-1,1) */
      p->r = 2 * l[1] - 1, p->s = 2 * l[2] - 1;
    }
    basis_at(m, Vinv, p);
  }
  free(new_of), free(V), free(Vinv);
  if (failed) probes_destroy(pr);
  return failed ? NULL : pr;
}

void probes_destroy(probes *pr)
{
  if (!pr) return;
  for (int i = 0; i < pr->n; ++i) free(pr->pt[i].phi), free(pr->pt[i].phix), free(pr->pt[i].phiy);
  free(pr->pt);
  if (pr->csv) fclose(pr->csv);
  free(pr);
}

/* the header line of probes.csv (with its newline); free() it */
static char *header_line(const probes *pr)
{
  static const char *const what[4] = {"u", "v", "p", "vorticity"};
  size_t len = 16;
  for (int i = 0; i < pr->n; ++i) len += 4 * (strlen(pr->c->probes[i].name) + 12);
  char *h = insdg_malloc(len);
  snprintf(h, len, "step,time");
  for (int i = 0; i < pr->n; ++i)
    for (int k = 0; k < 4; ++k) snprintf(h + strlen(h), len - strlen(h), ",%s_%s", pr->c->probes[i].name, what[k]);
  snprintf(h + strlen(h), len - strlen(h), "\n");
  return h;
}

static void write_header(probes *pr)
{
  char *h = header_line(pr);
  fputs(h, pr->csv);
  free(h);
}

int probes_open(probes *pr, const char *outdir, int restart, char *err, size_t errlen)
{
  if (!pr) return 0;
  snprintf(pr->path, sizeof pr->path, "%s/probes.csv", outdir);
  pr->continued = restart && access(pr->path, F_OK) == 0;
  pr->csv = fopen(pr->path, pr->continued ? "a" : "w");
  pr->created = pr->csv && !pr->continued;
  if (!pr->csv) {
    snprintf(err, errlen, "%.300s: cannot write: %s", pr->path, strerror(errno));
    return 1;
  }
  if (!pr->continued) write_header(pr);
  if (fflush(pr->csv) || ferror(pr->csv)) {
    snprintf(err, errlen, "%.300s: cannot write: %s", pr->path, strerror(errno));
    return 1;
  }
  return 0;
}

void probes_abandon(probes *pr)
{
  if (pr && pr->created) remove(pr->path);
}

/* rank 0, --restart into the same directory: keep the header and the rows of steps <= step
   (what the interrupted run wrote after its checkpoint is sampled again); a file of other
   probes (the case's [probes] changed) is started anew, with a warning */
int probes_continue(probes *pr, int step)
{
  if (!pr || !pr->continued) return 0;
  fclose(pr->csv);
  pr->csv = NULL;
  FILE *in = fopen(pr->path, "r");
  size_t cap = 1 << 16, len = 0;
  char *keep = insdg_malloc(cap), *header = header_line(pr);
  char *line = NULL;
  size_t linecap = 0;
  for (int first = 1; in && getline(&line, &linecap, in) > 0; first = 0) {
    if (first && strcmp(line, header) != 0) {
      fprintf(stderr, "insdg: warning: %s holds other probes than this case's [probes]: started anew\n", pr->path);
      break;
    }
    if (!first && atoi(line) > step) break;   /* rows are in step order */
    const size_t n = strlen(line);
    if (len + n + 1 > cap) {
      char *bigger = insdg_malloc(cap = 2 * (len + n + 1));
      memcpy(bigger, keep, len), free(keep), keep = bigger;
    }
    memcpy(keep + len, line, n), len += n;
  }
  free(line);
  if (in) fclose(in);
  pr->csv = fopen(pr->path, "w");
  const int bad = !pr->csv || fwrite(keep, 1, len, pr->csv) != len || fflush(pr->csv);
  if (len == 0 && pr->csv) write_header(pr);   /* an empty file, or other probes: a new header */
  free(keep), free(header);
  return bad;
}

/* every rank: whether step's state (at time t) is sampled; the interval's clock advances */
static int sample_due(probes *pr, int step, double t, double dt)
{
  if (step == 0 || pr->c->probe_interval <= 0) return 1;
  const int due = t >= pr->next - 1e-6 * dt;
  while (pr->next <= t + 1e-6 * dt) pr->next += pr->c->probe_interval;
  return due;
}

void probes_skip_to(probes *pr, double t, double dt)
{
  if (!pr || pr->c->probe_interval <= 0) return;
  while (pr->next <= t + 1e-6 * dt) pr->next += pr->c->probe_interval;
}

int probes_sample(probes *pr, const observer *ob, int step, double t, int rank)
{
  if (!pr || !sample_due(pr, step, t, ob->c->dt)) return 0;
  const int Np = pr->Np;
  double *val = new_array(4 * (size_t)pr->n);
  for (int i = 0; i < pr->n; ++i) {
    const probe_point *p = &pr->pt[i];
    if (p->elem < ob->e_begin || p->elem >= ob->e_end) continue;   /* another rank's */
    const size_t o = (size_t)(p->elem - ob->e_begin) * Np;
    const double *u = ob->local[F_U] + o, *v = ob->local[F_V] + o, *pp = ob->local[F_P] + o;
    double a[5] = {0};
    for (int j = 0; j < Np; ++j)
      a[0] += p->phi[j] * u[j], a[1] += p->phi[j] * v[j], a[2] += p->phi[j] * pp[j], a[3] += p->phix[j] * v[j],
          a[4] += p->phiy[j] * u[j];
    val[4 * i] = a[0], val[4 * i + 1] = a[1], val[4 * i + 2] = a[2], val[4 * i + 3] = a[3] - a[4];
  }
  MPI_Reduce(rank == 0 ? MPI_IN_PLACE : val, val, 4 * pr->n, MPI_DOUBLE, MPI_SUM, 0, ob->T->comm);
  int bad = 0;
  if (rank == 0) {
    fprintf(pr->csv, "%d,%.17g", step, t);
    for (int k = 0; k < 4 * pr->n; ++k) fprintf(pr->csv, ",%.17g", val[k]);
    fprintf(pr->csv, "\n");
    bad = fflush(pr->csv) != 0 || ferror(pr->csv);
  }
  free(val);
  return bad;
}

const char *probes_path(const probes *pr) { return pr ? pr->path : ""; }
