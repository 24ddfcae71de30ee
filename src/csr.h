/* csr.h -- compressed sparse row matrices for the assembled operators and the AMG
 * hierarchy (paper §3 "Linear Solvers": the full AMG and the degree-1 level of pMG-AMG
 * need the assembled SIPDG matrix, its Galerkin coarse matrices and the transfers).
 *
 * Layout: row i holds entries row_ptr[i] .. row_ptr[i+1]-1 of col[] and val[], with
 * col[] strictly increasing within a row (every function here returns rows sorted and
 * free of duplicates, and expects its inputs so). Indices are int, so nnz < 2^31: every
 * constructor checks it (an internal error beyond that, never a silent wrap).
 *
 * Determinism: every loop runs in a fixed order (rows ascending, entries in storage
 * order), so every result is bitwise reproducible.
 *
 * Ownership: a matrix owns its three arrays; insdg_csr_destroy frees them and the struct.
 */
#ifndef INSDG_CSR_H
#define INSDG_CSR_H

#include <stddef.h>

typedef struct insdg_csr {
  int nrows, ncols;
  int nnz;        /* = row_ptr[nrows] */
  int *row_ptr;   /* [nrows+1] */
  int *col;       /* [nnz] sorted within each row */
  double *val;    /* [nnz] */
} insdg_csr;

/* A matrix with room for nnz entries; row_ptr is zeroed, col and val are uninitialised. */
insdg_csr *insdg_csr_create(int nrows, int ncols, int nnz);
void insdg_csr_destroy(insdg_csr *A);

/* y = A x  (x: [ncols], y: [nrows], no aliasing). */
void insdg_csr_matvec(const insdg_csr *A, const double *x, double *y);

/* r = b - A x  (no aliasing of r with x). */
void insdg_csr_residual(const insdg_csr *A, const double *x, const double *b, double *r);

/* Bytes held: the struct and its three arrays. */
size_t insdg_csr_memory(const insdg_csr *A);

/* A^T, rows sorted. */
insdg_csr *insdg_csr_transpose(const insdg_csr *A);

/* A B (A->ncols == B->nrows), rows sorted; structural zeros from cancellation are kept. */
insdg_csr *insdg_csr_matmul(const insdg_csr *A, const insdg_csr *B);

/* The Galerkin product R A P = R (A P). */
insdg_csr *insdg_csr_galerkin(const insdg_csr *R, const insdg_csr *A, const insdg_csr *P);

/* d[i] = A[i][i] (0 where the entry is not stored); d has min(nrows, ncols) entries. */
void insdg_csr_diagonal(const insdg_csr *A, double *d);

/* Dense <-> CSR, row-major dense[i*ncols + j]. from_dense stores the nonzero entries. */
insdg_csr *insdg_csr_from_dense(int nrows, int ncols, const double *dense);
void insdg_csr_to_dense(const insdg_csr *A, double *dense);

#endif
