/* band.c -- RCM ordering and banded Cholesky (see band.h). */
#include "band.h"

#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

#define SINGULAR_PIVOT 1e-10   /* as src/amg.c: a pivot below 1e-10 max a_ii means singular */

struct insdg_band {
  int n, kd;
  int *perm;    /* [n] perm[k] = the original row placed k-th */
  double *ab;   /* [(kd+1) n] L in LAPACK's lower band storage: L(i, j) at ab[(i - j) + j (kd+1)] */
  double *y;    /* [n] the permuted right-hand side; one solve at a time */
};

/* ---- the graph: A's off-diagonal pattern, symmetric, rows sorted --------------------- */
typedef struct { int n, *ptr, *adj; } graph;

static int cmp_int(const void *a, const void *b) { return (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b); }

static graph graph_of(const insdg_csr *A)
{
  const int n = A->nrows;
  graph g = {n, insdg_calloc((size_t)n + 1, sizeof(int)), NULL};
  for (int i = 0; i < n; ++i)
    for (int k = A->row_ptr[i]; k < A->row_ptr[i + 1]; ++k)
      if (A->col[k] != i) ++g.ptr[i + 1], ++g.ptr[A->col[k] + 1];
  for (int i = 0; i < n; ++i) g.ptr[i + 1] += g.ptr[i];
  int *fill = insdg_malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
  memcpy(fill, g.ptr, sizeof(int) * (size_t)n);
  g.adj = insdg_malloc(sizeof(int) * (size_t)(g.ptr[n] > 0 ? g.ptr[n] : 1));
  for (int i = 0; i < n; ++i)
    for (int k = A->row_ptr[i]; k < A->row_ptr[i + 1]; ++k) {
      const int j = A->col[k];
      if (j != i) g.adj[fill[i]++] = j, g.adj[fill[j]++] = i;
    }
  /* sort each row and drop the duplicates (an entry stored in both triangles) */
  int out = 0;
  for (int i = 0; i < n; ++i) {
    const int b = g.ptr[i], e = g.ptr[i + 1];
    qsort(g.adj + b, (size_t)(e - b), sizeof(int), cmp_int);
    g.ptr[i] = out;
    for (int k = b; k < e; ++k)
      if (k == b || g.adj[k] != g.adj[k - 1]) g.adj[out++] = g.adj[k];
  }
  g.ptr[n] = out;
  free(fill);
  return g;
}

static int degree(const graph *g, int i) { return g->ptr[i + 1] - g->ptr[i]; }

/* Breadth-first levels from root over the unvisited (mark == 0) nodes of its component:
   order[] receives them level by level, each node's new neighbours by (degree, index).
   Returns how many; *depth: the last level's distance from root, *last: where that level
   begins in order[]. dist[] (all -1) is left all -1. */
static int bfs(const graph *g, int root, const char *mark, int *order, int *dist, int *depth, int *last)
{
  int head = 0, tail = 0;
  order[tail++] = root, dist[root] = 0;
  while (head < tail) {
    const int v = order[head++], first = tail;
    for (int k = g->ptr[v]; k < g->ptr[v + 1]; ++k) {
      const int w = g->adj[k];
      if (mark[w] || dist[w] >= 0) continue;
      dist[w] = dist[v] + 1, order[tail++] = w;
    }
    for (int a = first + 1; a < tail; ++a) {   /* insertion sort: a node has few neighbours */
      const int w = order[a];
      int b = a;
      while (b > first && (degree(g, order[b - 1]) > degree(g, w) ||
                           (degree(g, order[b - 1]) == degree(g, w) && order[b - 1] > w)))
        order[b] = order[b - 1], --b;
      order[b] = w;
    }
  }
  *depth = dist[order[tail - 1]];
  *last = tail - 1;
  while (*last > 0 && dist[order[*last - 1]] == *depth) --*last;
  for (int k = 0; k < tail; ++k) dist[order[k]] = -1;
  return tail;
}

int insdg_band_rcm(const insdg_csr *A, int *perm)
{
  INSDG_CHECK(A->nrows == A->ncols);
  const int n = A->nrows;
  graph g = graph_of(A);
  char *mark = insdg_calloc((size_t)(n > 0 ? n : 1), 1);
  int *dist = insdg_malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
  for (int i = 0; i < n; ++i) dist[i] = -1;
  int placed = 0;
  for (;;) {
    int root = -1;   /* the unvisited node of least degree, lowest index on ties */
    for (int i = 0; i < n; ++i)
      if (!mark[i] && (root < 0 || degree(&g, i) < degree(&g, root))) root = i;
    if (root < 0) break;
    /* pseudo-peripheral: move to the last level's node of least degree while the depth
       of the search grows (a few sweeps), then order the component from there */
    int *order = perm + placed, depth, last;
    int count = bfs(&g, root, mark, order, dist, &depth, &last);
    for (int sweep = 0; sweep < 8; ++sweep) {
      int cand = order[last];   /* the last level's node of least degree, lowest index on ties */
      for (int k = last + 1; k < count; ++k)
        if (degree(&g, order[k]) < degree(&g, cand) || (degree(&g, order[k]) == degree(&g, cand) && order[k] < cand))
          cand = order[k];
      int d2, l2;
      count = bfs(&g, cand, mark, order, dist, &d2, &l2);   /* order[]: cand's levels from here on */
      if (d2 <= depth) break;
      depth = d2, last = l2;
    }
    for (int k = placed; k < placed + count; ++k) mark[perm[k]] = 1;
    placed += count;
  }
  INSDG_CHECK(placed == n);
  /* reverse */
  for (int a = 0, b = n - 1; a < b; ++a, --b) {
    const int t = perm[a];
    perm[a] = perm[b], perm[b] = t;
  }
  int *inv = dist;
  for (int k = 0; k < n; ++k) inv[perm[k]] = k;
  int kd = 0;
  for (int i = 0; i < n; ++i)
    for (int k = A->row_ptr[i]; k < A->row_ptr[i + 1]; ++k) {
      const int d = abs(inv[i] - inv[A->col[k]]);
      if (d > kd) kd = d;
    }
  free(dist), free(mark), free(g.ptr), free(g.adj);
  return kd;
}

insdg_band *insdg_band_factor(const insdg_csr *A, int max_width, size_t max_bytes)
{
  INSDG_CHECK(A->nrows == A->ncols);
  const int n = A->nrows;
  if (n == 0) return NULL;
  int *perm = insdg_malloc(sizeof(int) * (size_t)n);
  const int kd = insdg_band_rcm(A, perm);
  const size_t ld = (size_t)kd + 1;
  if (kd > max_width || ld * (size_t)n * sizeof(double) > max_bytes) {
    free(perm);
    return NULL;
  }
  int *inv = insdg_malloc(sizeof(int) * (size_t)n);
  for (int k = 0; k < n; ++k) inv[perm[k]] = k;
  double *ab = insdg_calloc(ld * (size_t)n, sizeof(double));
  double max_diag = 0.0;
  for (int i = 0; i < n; ++i)
    for (int k = A->row_ptr[i]; k < A->row_ptr[i + 1]; ++k) {
      const int r = inv[i], c = inv[A->col[k]];
      if (r >= c) ab[(size_t)(r - c) + (size_t)c * ld] = A->val[k];   /* the lower triangle */
      if (r == c) max_diag = fmax(max_diag, A->val[k]);
    }
  free(inv);
  const lapack_int info = LAPACKE_dpbtrf(LAPACK_COL_MAJOR, 'L', n, kd, ab, (lapack_int)ld);
  double min_pivot = INFINITY;
  for (int c = 0; info == 0 && c < n; ++c) min_pivot = fmin(min_pivot, ab[(size_t)c * ld] * ab[(size_t)c * ld]);
  if (info != 0 || !(max_diag > 0) || !(min_pivot >= SINGULAR_PIVOT * max_diag)) {
    free(ab), free(perm);
    return NULL;
  }
  insdg_band *F = insdg_malloc(sizeof *F);
  *F = (insdg_band){n, kd, perm, ab, insdg_malloc(sizeof(double) * (size_t)n)};
  return F;
}

void insdg_band_solve(const insdg_band *F, const double *b, double *x)
{
  const int n = F->n, kd = F->kd;
  const size_t ld = (size_t)kd + 1;
  const double *ab = F->ab;
  double *y = F->y;
  for (int k = 0; k < n; ++k) y[k] = b[F->perm[k]];
  /* L z = y, column by column: z_c = y_c / L_cc, then y_r -= L_rc z_c below it */
  for (int c = 0; c < n; ++c) {
    const double *col = ab + (size_t)c * ld;
    const double z = y[c] / col[0];
    y[c] = z;
    const int m = c + kd < n ? kd : n - 1 - c;
    for (int r = 1; r <= m; ++r) y[c + r] -= col[r] * z;
  }
  /* L^T x = z, last row first: x_c = (z_c - sum_r L_rc x_r) / L_cc, the sum in four
     interleaved partial sums (a fixed order) */
  for (int c = n - 1; c >= 0; --c) {
    const double *col = ab + (size_t)c * ld;
    const int m = c + kd < n ? kd : n - 1 - c;
    const double *xr = y + c;
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    int r = 1;
    for (; r + 3 <= m; r += 4)
      s0 += col[r] * xr[r], s1 += col[r + 1] * xr[r + 1], s2 += col[r + 2] * xr[r + 2], s3 += col[r + 3] * xr[r + 3];
    for (; r <= m; ++r) s0 += col[r] * xr[r];
    y[c] = (y[c] - ((s0 + s1) + (s2 + s3))) / col[0];
  }
  for (int k = 0; k < n; ++k) x[F->perm[k]] = y[k];
}

int insdg_band_rows(const insdg_band *F) { return F->n; }
int insdg_band_width(const insdg_band *F) { return F->kd; }

size_t insdg_band_memory(const insdg_band *F)
{
  return F ? sizeof *F + sizeof(int) * (size_t)F->n + sizeof(double) * ((size_t)F->kd + 2) * (size_t)F->n : 0;
}

void insdg_band_destroy(insdg_band *F)
{
  if (!F) return;
  free(F->perm), free(F->ab), free(F->y);
  free(F);
}
