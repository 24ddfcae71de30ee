/* csr.c -- CSR sparse matrix kernels (see csr.h): products, transpose, residuals.
 *
 * The sparse product is Gustavson's row-by-row algorithm: a symbolic pass counts each
 * row's distinct columns with a marker array, a numeric pass accumulates into a dense
 * work row and emits the columns in increasing order. Sums run over A's row in storage
 * order and then B's rows in storage order, independent of the sorting, so the result is
 * deterministic. Used for the Galerkin coarse matrices R A P of the AMG (paper §3).
 */
#include "csr.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

insdg_csr *insdg_csr_create(int nrows, int ncols, int nnz)
{
  INSDG_CHECK(nrows >= 0 && ncols >= 0 && nnz >= 0);
  insdg_csr *A = insdg_malloc(sizeof *A);
  A->nrows = nrows, A->ncols = ncols, A->nnz = nnz;
  A->row_ptr = insdg_calloc((size_t)nrows + 1, sizeof(int));
  A->col = insdg_malloc(sizeof(int) * (size_t)(nnz > 0 ? nnz : 1));
  A->val = insdg_malloc(sizeof(double) * (size_t)(nnz > 0 ? nnz : 1));
  return A;
}

void insdg_csr_destroy(insdg_csr *A)
{
  if (!A) return;
  free(A->row_ptr), free(A->col), free(A->val), free(A);
}

/* The row sums of A x, rows i and i + 1 together: each row's sum is one chain of dependent
   additions (latency-bound), so two chains side by side run in about the time of one.
   Each row is still summed from 0 in storage order: the same bits as one row at a time.
   y = A x, or y = b - A x when b (which may be y). */
static void row_sums(const insdg_csr *A, const double *x, const double *b, double *y)
{
  const int *rp = A->row_ptr, *col = A->col;
  const double *val = A->val;
  int i = 0;
  for (; i + 1 < A->nrows; i += 2) {
    const int k0 = rp[i], n0 = rp[i + 1] - k0, k1 = rp[i + 1], n1 = rp[i + 2] - k1, m = n0 < n1 ? n0 : n1;
    double s0 = 0.0, s1 = 0.0;
    for (int j = 0; j < m; ++j) s0 += val[k0 + j] * x[col[k0 + j]], s1 += val[k1 + j] * x[col[k1 + j]];
    for (int j = m; j < n0; ++j) s0 += val[k0 + j] * x[col[k0 + j]];
    for (int j = m; j < n1; ++j) s1 += val[k1 + j] * x[col[k1 + j]];
    y[i] = b ? b[i] - s0 : s0, y[i + 1] = b ? b[i + 1] - s1 : s1;
  }
  if (i < A->nrows) {
    double s = 0.0;
    for (int k = rp[i]; k < rp[i + 1]; ++k) s += val[k] * x[col[k]];
    y[i] = b ? b[i] - s : s;
  }
}

void insdg_csr_matvec(const insdg_csr *A, const double *x, double *y) { row_sums(A, x, NULL, y); }

void insdg_csr_residual(const insdg_csr *A, const double *x, const double *b, double *r) { row_sums(A, x, b, r); }

size_t insdg_csr_memory(const insdg_csr *A)
{
  return sizeof *A + sizeof(int) * ((size_t)A->nrows + 1) + (sizeof(int) + sizeof(double)) * (size_t)A->nnz;
}

insdg_csr *insdg_csr_transpose(const insdg_csr *A)
{
  insdg_csr *T = insdg_csr_create(A->ncols, A->nrows, A->nnz);
  for (int k = 0; k < A->nnz; ++k) T->row_ptr[A->col[k] + 1]++;
  for (int j = 0; j < A->ncols; ++j) T->row_ptr[j + 1] += T->row_ptr[j];
  /* scattering A's rows in increasing order leaves every row of T sorted */
  int *next = insdg_malloc(sizeof(int) * (size_t)(A->ncols > 0 ? A->ncols : 1));
  memcpy(next, T->row_ptr, sizeof(int) * (size_t)A->ncols);
  for (int i = 0; i < A->nrows; ++i)
    for (int k = A->row_ptr[i]; k < A->row_ptr[i + 1]; ++k) {
      const int dst = next[A->col[k]]++;
      T->col[dst] = i, T->val[dst] = A->val[k];
    }
  free(next);
  return T;
}

static int cmp_int(const void *a, const void *b)
{
  const int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* number of entries of each row of A B; marker[j] == i marks column j seen in row i */
static size_t matmul_count(const insdg_csr *A, const insdg_csr *B, int *row_ptr, int *marker)
{
  size_t total = 0;
  for (int i = 0; i < A->nrows; ++i) {
    int count = 0;
    for (int ka = A->row_ptr[i]; ka < A->row_ptr[i + 1]; ++ka) {
      const int k = A->col[ka];
      for (int kb = B->row_ptr[k]; kb < B->row_ptr[k + 1]; ++kb)
        if (marker[B->col[kb]] != i) marker[B->col[kb]] = i, ++count;
    }
    total += (size_t)count;
    INSDG_CHECK(total <= (size_t)INT_MAX);
    row_ptr[i + 1] = (int)total;
  }
  return total;
}

insdg_csr *insdg_csr_matmul(const insdg_csr *A, const insdg_csr *B)
{
  INSDG_CHECK(A->ncols == B->nrows);
  const size_t width = (size_t)(B->ncols > 0 ? B->ncols : 1);
  int *marker = insdg_malloc(sizeof(int) * width);
  for (size_t j = 0; j < width; ++j) marker[j] = -1;
  int *row_ptr = insdg_calloc((size_t)A->nrows + 1, sizeof(int));
  const size_t nnz = matmul_count(A, B, row_ptr, marker);
  insdg_csr *C = insdg_csr_create(A->nrows, B->ncols, (int)nnz);
  free(C->row_ptr), C->row_ptr = row_ptr;
  double *acc = insdg_calloc(width, sizeof(double));
  for (size_t j = 0; j < width; ++j) marker[j] = -1;
  for (int i = 0; i < A->nrows; ++i) {
    int *cols = C->col + row_ptr[i], count = 0;
    for (int ka = A->row_ptr[i]; ka < A->row_ptr[i + 1]; ++ka) {
      const int k = A->col[ka];
      const double a = A->val[ka];
      for (int kb = B->row_ptr[k]; kb < B->row_ptr[k + 1]; ++kb) {
        const int j = B->col[kb];
        if (marker[j] != i) marker[j] = i, cols[count++] = j;
        acc[j] += a * B->val[kb];
      }
    }
    qsort(cols, (size_t)count, sizeof(int), cmp_int);
    for (int c = 0; c < count; ++c) C->val[row_ptr[i] + c] = acc[cols[c]], acc[cols[c]] = 0.0;
  }
  free(acc), free(marker);
  return C;
}

insdg_csr *insdg_csr_galerkin(const insdg_csr *R, const insdg_csr *A, const insdg_csr *P)
{
  insdg_csr *AP = insdg_csr_matmul(A, P);
  insdg_csr *RAP = insdg_csr_matmul(R, AP);
  insdg_csr_destroy(AP);
  return RAP;
}

void insdg_csr_diagonal(const insdg_csr *A, double *d)
{
  const int n = A->nrows < A->ncols ? A->nrows : A->ncols;
  for (int i = 0; i < n; ++i) {
    d[i] = 0.0;
    for (int k = A->row_ptr[i]; k < A->row_ptr[i + 1]; ++k)
      if (A->col[k] == i) d[i] = A->val[k];
  }
}

insdg_csr *insdg_csr_from_dense(int nrows, int ncols, const double *dense)
{
  size_t nnz = 0;
  for (size_t i = 0; i < (size_t)nrows * (size_t)ncols; ++i) nnz += dense[i] != 0.0;
  INSDG_CHECK(nnz <= (size_t)INT_MAX);
  insdg_csr *A = insdg_csr_create(nrows, ncols, (int)nnz);
  int k = 0;
  for (int i = 0; i < nrows; ++i) {
    for (int j = 0; j < ncols; ++j) {
      const double a = dense[(size_t)i * ncols + j];
      if (a != 0.0) A->col[k] = j, A->val[k] = a, ++k;
    }
    A->row_ptr[i + 1] = k;
  }
  return A;
}

void insdg_csr_to_dense(const insdg_csr *A, double *dense)
{
  memset(dense, 0, sizeof(double) * (size_t)A->nrows * (size_t)A->ncols);
  for (int i = 0; i < A->nrows; ++i)
    for (int k = A->row_ptr[i]; k < A->row_ptr[i + 1]; ++k) dense[(size_t)i * A->ncols + A->col[k]] = A->val[k];
}
