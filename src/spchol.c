/* spchol.c -- up-looking sparse Cholesky (see spchol.h). */
#include "spchol.h"

#include <math.h>
#include <stdlib.h>

#include "error.h"

/* the smallest squared pivot, relative to the largest diagonal entry, taken as positive
   definite (as band.c) */
#define SINGULAR_PIVOT 1e-10

struct insdg_spchol {
  int n;
  int *perm;   /* [n] row k of P A P^T is row perm[k] of A */
  int *Lp;     /* [n + 1] column starts; the diagonal first in each column */
  int *Li;     /* [nnz] row indices, ascending after the diagonal */
  double *Lx;  /* [nnz] */
  double *y;   /* [n] the solves' work vector */
};

/* The pattern of row k of L (below the diagonal): the nodes reached from the columns i < k
   of row k of the lower triangle C up the elimination tree (parent), written to
   s[top..n) in topological order (a node before its ancestors); returns top. flag[i] == k
   marks the nodes seen for this row. */
static int ereach(int k, const int *Cp, const int *Ci, const int *parent, int *flag, int *s, int n)
{
  int top = n;
  flag[k] = k;
  for (int p = Cp[k]; p < Cp[k + 1]; ++p) {
    int i = Ci[p], len = 0;
    if (i >= k) continue;
    for (; flag[i] != k; i = parent[i]) s[len++] = i, flag[i] = k;   /* the path up to a marked node */
    while (len > 0) s[--top] = s[--len];   /* pushed onto the output, top first */
  }
  return top;
}

insdg_spchol *insdg_spchol_factor(const insdg_csr *A, const int *perm, size_t max_bytes)
{
  INSDG_CHECK(A->nrows == A->ncols);
  const int n = A->nrows;
  if (n == 0) return NULL;
  const size_t nz = (size_t)n;
  int *P = insdg_malloc(sizeof(int) * nz), *inv = insdg_malloc(sizeof(int) * nz);
  for (int k = 0; k < n; ++k) P[k] = perm ? perm[k] : k;
  for (int k = 0; k < n; ++k) inv[P[k]] = k;
  /* C = the lower triangle of P A P^T, by rows (row k: the entries (k, i), i <= k) */
  int *Cp = insdg_calloc(nz + 1, sizeof(int));
  double max_diag = 0.0;
  for (int k = 0; k < n; ++k) {
    const int r = P[k];
    for (int q = A->row_ptr[r]; q < A->row_ptr[r + 1]; ++q) {
      Cp[k + 1] += inv[A->col[q]] <= k;
      if (A->col[q] == r) max_diag = fmax(max_diag, A->val[q]);
    }
  }
  for (int k = 0; k < n; ++k) Cp[k + 1] += Cp[k];
  int *Ci = insdg_malloc(sizeof(int) * (size_t)(Cp[n] > 0 ? Cp[n] : 1));
  double *Cx = insdg_malloc(sizeof(double) * (size_t)(Cp[n] > 0 ? Cp[n] : 1));
  for (int k = 0, w = 0; k < n; ++k) {
    const int r = P[k];
    for (int q = A->row_ptr[r]; q < A->row_ptr[r + 1]; ++q)
      if (inv[A->col[q]] <= k) Ci[w] = inv[A->col[q]], Cx[w++] = A->val[q];
  }
  /* the elimination tree (with path compression through ancestor[]) */
  int *parent = insdg_malloc(sizeof(int) * nz), *ancestor = insdg_malloc(sizeof(int) * nz);
  for (int k = 0; k < n; ++k) {
    parent[k] = -1, ancestor[k] = -1;
    for (int p = Cp[k]; p < Cp[k + 1]; ++p)
      for (int i = Ci[p], next; i != -1 && i < k; i = next) {
        next = ancestor[i], ancestor[i] = k;
        if (next == -1) parent[i] = k;
      }
  }
  /* column counts: row k's pattern adds one entry to each of its columns */
  int *flag = ancestor, *s = insdg_malloc(sizeof(int) * nz), *Lp = insdg_calloc(nz + 1, sizeof(int));
  for (int k = 0; k < n; ++k) flag[k] = -1, Lp[k + 1] = 1;
  for (int k = 0; k < n; ++k)
    for (int t = ereach(k, Cp, Ci, parent, flag, s, n); t < n; ++t) ++Lp[s[t] + 1];
  for (int k = 0; k < n; ++k) Lp[k + 1] += Lp[k];
  const size_t nnz = (size_t)Lp[n];
  insdg_spchol *F = NULL;
  if (nnz * (sizeof(int) + sizeof(double)) + nz * (2 * sizeof(int) + sizeof(double)) <= max_bytes) {
    int *Li = insdg_malloc(sizeof(int) * nnz), *next = insdg_malloc(sizeof(int) * nz);
    double *Lx = insdg_malloc(sizeof(double) * nnz), *x = insdg_calloc(nz, sizeof(double));
    int ok = 1;
    for (int k = 0; k < n; ++k) flag[k] = -1, next[k] = Lp[k] + 1;
    for (int k = 0; k < n && ok; ++k) {   /* row k of L */
      const int top = ereach(k, Cp, Ci, parent, flag, s, n);
      for (int p = Cp[k]; p < Cp[k + 1]; ++p) x[Ci[p]] = Cx[p];
      double d = x[k];
      x[k] = 0.0;
      for (int t = top; t < n; ++t) {   /* L(k, j) = (C(k, j) - sum_{i<j} L(k, i) L(j, i)) / L(j, j) */
        const int j = s[t];
        const double lkj = x[j] / Lx[Lp[j]];
        x[j] = 0.0;
        for (int p = Lp[j] + 1; p < next[j]; ++p) x[Li[p]] -= Lx[p] * lkj;
        d -= lkj * lkj;
        Li[next[j]] = k, Lx[next[j]++] = lkj;
      }
      ok = max_diag > 0 && d >= SINGULAR_PIVOT * max_diag;
      Li[Lp[k]] = k, Lx[Lp[k]] = ok ? sqrt(d) : 0.0;
    }
    free(next), free(x);
    if (ok) {
      F = insdg_malloc(sizeof *F);
      *F = (insdg_spchol){n, P, Lp, Li, Lx, insdg_malloc(sizeof(double) * nz)};
      P = NULL, Lp = NULL;
    } else {
      free(Li), free(Lx);
    }
  }
  free(P), free(inv), free(Cp), free(Ci), free(Cx), free(parent), free(ancestor), free(s), free(Lp);
  return F;
}

void insdg_spchol_solve(const insdg_spchol *F, const double *b, double *x)
{
  const int n = F->n, *Lp = F->Lp, *Li = F->Li;
  const double *Lx = F->Lx;
  double *y = F->y;
  for (int k = 0; k < n; ++k) y[k] = b[F->perm[k]];
  for (int j = 0; j < n; ++j) {   /* L z = y, column by column */
    const double z = y[j] / Lx[Lp[j]];
    y[j] = z;
    for (int p = Lp[j] + 1; p < Lp[j + 1]; ++p) y[Li[p]] -= Lx[p] * z;
  }
  for (int j = n - 1; j >= 0; --j) {   /* L^T x = z, last row first; the column's sum in four
                                          interleaved partial sums (a fixed order), which
                                          do not wait on each other */
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    int p = Lp[j] + 1;
    for (; p + 3 < Lp[j + 1]; p += 4)
      s0 += Lx[p] * y[Li[p]], s1 += Lx[p + 1] * y[Li[p + 1]], s2 += Lx[p + 2] * y[Li[p + 2]],
          s3 += Lx[p + 3] * y[Li[p + 3]];
    for (; p < Lp[j + 1]; ++p) s0 += Lx[p] * y[Li[p]];
    y[j] = (y[j] - ((s0 + s1) + (s2 + s3))) / Lx[Lp[j]];
  }
  for (int k = 0; k < n; ++k) x[F->perm[k]] = y[k];
}

int insdg_spchol_rows(const insdg_spchol *F) { return F->n; }
long insdg_spchol_nnz(const insdg_spchol *F) { return F->Lp[F->n]; }

size_t insdg_spchol_memory(const insdg_spchol *F)
{
  if (!F) return 0;
  const size_t n = (size_t)F->n, nnz = (size_t)F->Lp[F->n];
  return sizeof *F + nnz * (sizeof(int) + sizeof(double)) + n * (2 * sizeof(int) + sizeof(double)) + sizeof(int);
}

void insdg_spchol_destroy(insdg_spchol *F)
{
  if (!F) return;
  free(F->perm), free(F->Lp), free(F->Li), free(F->Lx), free(F->y);
  free(F);
}
