/* ops_cpu.c -- instantiate the CPU kernels of ops_kernels.inc for N = 1..INSDG_NMAX and
 * dispatch on the block's degree; build the transposed operator copies they read.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dense.h"
#include "error.h"
#include "ops.h"
#include "ops_curved.h"

#include "ops_cpu_table.h"

#define N 1
#include "ops_kernels.inc"
#undef N
#define N 2
#include "ops_kernels.inc"
#undef N
#define N 3
#include "ops_kernels.inc"
#undef N
#define N 4
#include "ops_kernels.inc"
#undef N
#define N 5
#include "ops_kernels.inc"
#undef N
#define N 6
#include "ops_kernels.inc"
#undef N
#define N 7
#include "ops_kernels.inc"
#undef N
#define N 8
#include "ops_kernels.inc"
#undef N
#define N 9
#include "ops_kernels.inc"
#undef N
#define N 10
#include "ops_kernels.inc"
#undef N
#define N 11
#include "ops_kernels.inc"
#undef N
#define N 12
#include "ops_kernels.inc"
#undef N
#define N 13
#include "ops_kernels.inc"
#undef N
#define N 14
#include "ops_kernels.inc"
#undef N
#define N 15
#include "ops_kernels.inc"
#undef N

static const kernel_table kernels[INSDG_NMAX + 1] = {
    {0}, ENTRY(1), ENTRY(2), ENTRY(3), ENTRY(4), ENTRY(5), ENTRY(6), ENTRY(7), ENTRY(8),
    ENTRY(9), ENTRY(10), ENTRY(11), ENTRY(12), ENTRY(13), ENTRY(14), ENTRY(15)};

/* degree N's kernels of the operator family fam (INSDG_OPS_FAM_*): ops_cpu_ymm.c's where the
   build compiled them there, else this file's. Below N = 6 the families may mix: there the two
   files pad the operators alike and take the same paths (checked in insdg_ops_create). */
static const kernel_table *kt(int N, int fam)
{
  INSDG_CHECK(N >= 1 && N <= INSDG_NMAX);
  return insdg_ops_ymm_use[N] & fam ? &insdg_ops_ymm_kernels[N] : &kernels[N];
}

static const kernel_table *table_for(const insdg_ops *op, const insdg_block *b, int fam)
{
  INSDG_CHECK(b->N == op->ref->N);
  return kt(b->N, fam);
}

int insdg_ops_cpu_vector_width(int N, int fam) { return kt(N, fam)->vw; }

int insdg_ops_cpu_grouped(int N)
{
  return kt(N, INSDG_OPS_FAM_G)->grouped;
}

int insdg_ops_cpu_sipdg_reg(int N)
{
  return kt(N, INSDG_OPS_FAM_S)->sipdg_reg;
}

int insdg_ops_cpu_lift_faces(int N)
{
  return (kt(N, INSDG_OPS_FAM_G)->lift_faces & 1) | (kt(N, INSDG_OPS_FAM_S)->lift_faces & 2);
}

static double *transpose(const double *A, int rows, int cols)
{
  double *T = insdg_malloc(sizeof(double) * (size_t)rows * cols);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) T[(size_t)j * rows + i] = A[(size_t)i * cols + j];
  return T;
}

/* T[j][i] = A[i][j] for i < m, 0 for m <= i < npad (j < n): the transpose of the m x n
   matrix A with its rows zero-padded to npad >= m */
static void fill_transpose_padded(const double *A, int m, int n, int npad, double *T)
{
  INSDG_CHECK(npad >= m);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < npad; ++i) T[(size_t)j * npad + i] = i < m ? A[(size_t)i * n + j] : 0.0;
}

/* n rows of npad doubles, 64-byte aligned */
static double *alloc_rows(int n, int npad)
{
  void *p = NULL;
  INSDG_CHECK(posix_memalign(&p, 64, sizeof(double) * (size_t)n * npad) == 0);
  return p;
}

static double *transpose_padded(const double *A, int m, int n, int npad)
{
  double *T = alloc_rows(n, npad);
  fill_transpose_padded(A, m, n, npad, T);
  return T;
}

insdg_ops *insdg_ops_create(const insdg_ref *ref)
{
  const int N = ref->N, Np = ref->Np;
  INSDG_CHECK(ref->Ncub == ((3 * N + 2) / 2) * ((3 * N + 2) / 2) && ref->Nfcub == (3 * N + 2) / 2);
  for (int n = 0; n < 3 * ref->Nfp; ++n)   /* the kernels' face nodes are ref's (ops_face_node) */
    INSDG_CHECK(ops_face_node(N, n) == ref->face_nodes[n]);
  insdg_ops *op = insdg_calloc(1, sizeof *op);
  op->ref = ref;
  op->DrT = transpose(ref->Dr, Np, Np);
  op->DsT = transpose(ref->Ds, Np, Np);
  op->LIFTT = transpose(ref->LIFT, Np, 3 * ref->Nfp);
  op->cub_interpT = transpose(ref->cub_interp, ref->Ncub, Np);
  op->cub_PrT = transpose(ref->cub_Pr, Np, ref->Ncub);
  op->cub_PsT = transpose(ref->cub_Ps, Np, ref->Ncub);
  op->cub_LIFTT = transpose(ref->cub_LIFT, Np, 3 * ref->Nfcub);
  {   /* the padded operators are shared by the families: the two files must agree on them */
    const kernel_table *a = &kernels[N], *y = &insdg_ops_ymm_kernels[N];
    INSDG_CHECK(!insdg_ops_ymm_use[N] || insdg_ops_ymm_use[N] == INSDG_OPS_FAM_ALL ||
                (a->npad == y->npad && a->grouped == y->grouped &&
                 a->lift_faces == y->lift_faces));
  }
  op->npad = kt(N, INSDG_OPS_FAM_ALL)->npad;
  /* DrTp, DsTp and LIFTTp one after the other: the one-element D applies them as one
     matrix of 2 Np + 3 Nfp rows (ops_kernels.inc, divergence, OPS_ONE_CHAIN) */
  op->DrTp = alloc_rows(2 * Np + 3 * ref->Nfp, op->npad);
  op->DsTp = op->DrTp + (size_t)Np * op->npad;
  op->LIFTTp = op->DsTp + (size_t)Np * op->npad;
  fill_transpose_padded(ref->Dr, Np, Np, op->npad, op->DrTp);
  fill_transpose_padded(ref->Ds, Np, Np, op->npad, op->DsTp);
  fill_transpose_padded(ref->LIFT, Np, 3 * ref->Nfp, op->npad, op->LIFTTp);
  {   /* DcTp = [Dr'; Ds'; LIFT] transposed (ops.h): column j of Dr' is Dr's less half the LIFT
         columns of the face nodes at node j, weighted by sigma_r of their face */
    const int nf = 3 * ref->Nfp;
    static const double sigma[2][3] = {{0.0, 1.0, -1.0}, {-1.0, 1.0, 0.0}};
    double *Dc = insdg_malloc(sizeof(double) * 2 * (size_t)Np * Np);
    for (int d = 0; d < 2; ++d)
      for (int i = 0; i < Np; ++i)
        for (int j = 0; j < Np; ++j) {
          double t = (d ? ref->Ds : ref->Dr)[(size_t)i * Np + j];
          for (int q = 0; q < nf; ++q)
            if (ref->face_nodes[q] == j) t -= 0.5 * sigma[d][q / ref->Nfp] * ref->LIFT[(size_t)i * nf + q];
          Dc[((size_t)d * Np + i) * Np + j] = t;
        }
    op->DcTp = alloc_rows(2 * Np + nf, op->npad);
    fill_transpose_padded(Dc, Np, Np, op->npad, op->DcTp);
    fill_transpose_padded(Dc + (size_t)Np * Np, Np, Np, op->npad, op->DcTp + (size_t)Np * op->npad);
    fill_transpose_padded(ref->LIFT, Np, nf, op->npad, op->DcTp + 2 * (size_t)Np * op->npad);
    free(Dc);
  }
  {   /* A = [M | M Dr | M Ds | M LIFT], Np x (3 Np + 3 Nfp), the products summed in k order;
         SKTp and SKT are its transpose (padded and not). M LIFT = E, the faces' mass
         matrices, is zero in the rows of nodes off the face: those entries (round-off in the
         sum) set to 0, so that every form of the product computes the same sum and the
         register SIPDG skips them (ops_sipdg_reg.inc, REG_ROWS) */
    const int nf = 3 * ref->Nfp, nc = 3 * Np + nf;
    double *A = insdg_malloc(sizeof(double) * (size_t)Np * nc);
    for (int i = 0; i < Np; ++i)
      for (int j = 0; j < nc; ++j) {
        if (j < Np) {
          A[(size_t)i * nc + j] = ref->M[(size_t)i * Np + j];
          continue;
        }
        if (j >= 3 * Np && !insdg_ref_node_on_face(N, i, (j - 3 * Np) / ref->Nfp)) {
          A[(size_t)i * nc + j] = 0.0;
          continue;
        }
        double sum = 0.0;
        for (int k = 0; k < Np; ++k)
          sum += ref->M[(size_t)i * Np + k] * (j < 2 * Np   ? ref->Dr[(size_t)k * Np + (j - Np)]
                                               : j < 3 * Np ? ref->Ds[(size_t)k * Np + (j - 2 * Np)]
                                                            : ref->LIFT[(size_t)k * nf + (j - 3 * Np)]);
        A[(size_t)i * nc + j] = sum;
      }
    op->SKTp = transpose_padded(A, Np, nc, op->npad);
    op->SKT = transpose(A, Np, nc);
    if (Np <= 24) {   /* A's rows in the register SIPDG's blocks (ops.h SKrows) */
      const int w8 = 8 * ((Np + 7) / 8), len = 3 * w8 + 3 * 8;
      op->SKrows = alloc_rows(Np, len);
      for (int i = 0; i < Np; ++i)
        for (int j = 0; j < len; ++j) {
          const int blk = j < 3 * w8 ? j / w8 : 3 + (j - 3 * w8) / 8;
          const int o = j < 3 * w8 ? j % w8 : (j - 3 * w8) % 8;
          const int w = blk < 3 ? Np : ref->Nfp;
          op->SKrows[(size_t)i * len + j] =
              o < w ? A[(size_t)i * nc + (blk < 3 ? blk * Np : 3 * Np + (blk - 3) * ref->Nfp) + o] : 0.0;
        }
      if (INSDG_SKROWS_PACK(Np))   /* the blocks' tails (columns 8, 9) in the first block's (ops.h) */
        for (int i = 0; i < Np; ++i) {
          double *t = op->SKrows + (size_t)i * len;
          for (int blk = 0; blk < 3; ++blk)
            for (int o = 8; o < w8; ++o) t[blk * w8 + o] = 0.0;
          for (int blk = 0; blk < 3; ++blk)
            for (int o = 8; o < Np; ++o) t[8 + 2 * blk + (o - 8)] = A[(size_t)i * nc + blk * Np + o];
        }
    }
    free(A);
  }
  op->MT = transpose(ref->M, Np, Np);
  op->ML = insdg_malloc(sizeof(double) * (size_t)Np * Np);
  INSDG_CHECK(insdg_cholesky_lower(Np, ref->M, op->ML) == 0);
  double *LT = transpose(op->ML, Np, Np);   /* transpose_padded(L^T): the rows of L, padded */
  op->MLp = transpose_padded(LT, Np, Np, kt(N, INSDG_OPS_FAM_O)->mlp_ld);
  free(LT);
  op->invMT = transpose(ref->invM, Np, Np);
  return op;
}

void insdg_ops_destroy(insdg_ops *op)
{
  if (!op) return;
  free(op->DrT), free(op->DsT), free(op->LIFTT), free(op->cub_interpT);
  free(op->cub_PrT), free(op->cub_PsT), free(op->cub_LIFTT);
  free(op->DrTp), free(op->DcTp), free(op->SKTp), free(op->SKT), free(op->SKrows);   /* DsTp and LIFTTp are in DrTp's allocation */
  free(op->MT), free(op->invMT), free(op->ML), free(op->MLp);
  free(op);
}

/* The outputs of a block's curved elements, kept across an affine kernel that adds to
   them (ops_curved.h): a per-thread buffer, grown once. */
static _Thread_local double *saved;
static _Thread_local size_t saved_len;

static double *curved_save(const insdg_block *b, const double *x, const double *y)
{
  const size_t need = 2 * (size_t)b->ncurved * b->Np;
  if (need > saved_len) {
    free(saved);
    saved = insdg_malloc(sizeof(double) * need), saved_len = need;
  }
  for (int e = 0, k = 0; e < b->K; ++e)
    if (b->cindex[e] >= 0) {
      memcpy(saved + (size_t)k * b->Np, x + (size_t)e * b->Np, sizeof(double) * (size_t)b->Np);
      if (y) memcpy(saved + (size_t)(b->ncurved + k) * b->Np, y + (size_t)e * b->Np, sizeof(double) * (size_t)b->Np);
      ++k;
    }
  return saved;
}

static void curved_restore(const insdg_block *b, double *x, double *y)
{
  for (int e = 0, k = 0; e < b->K; ++e)
    if (b->cindex[e] >= 0) {
      memcpy(x + (size_t)e * b->Np, saved + (size_t)k * b->Np, sizeof(double) * (size_t)b->Np);
      if (y) memcpy(y + (size_t)e * b->Np, saved + (size_t)(b->ncurved + k) * b->Np, sizeof(double) * (size_t)b->Np);
      ++k;
    }
}

void insdg_op_local_gradient(const insdg_ops *op, const insdg_block *b, const double *u,
                             double *ux, double *uy)
{
  table_for(op, b, INSDG_OPS_FAM_G)->local_gradient(op, b, u, ux, uy);
  if (b->ncurved) insdg_curved_local_gradient(op, b, u, ux, uy);
}

void insdg_op_gradient(const insdg_ops *op, const insdg_block *b, const signed char *bc,
                       const double *g, const double *p, const double *p_halo, double *px, double *py)
{
  table_for(op, b, INSDG_OPS_FAM_G)->gradient(op, b, bc, g, p, p_halo, px, py);
  if (b->ncurved) {
    insdg_curved_local_gradient(op, b, p, px, py);
    insdg_curved_gradient_surface(op, b, bc, g, p, p_halo, px, py);
  }
}

void insdg_op_divergence(const insdg_ops *op, const insdg_block *b, const signed char *bc,
                         const insdg_vec_in *U, double *divu)
{
  table_for(op, b, INSDG_OPS_FAM_D)->divergence(op, b, bc, U, divu);
  if (b->ncurved) {
    insdg_curved_divergence_volume(op, b, U->u, U->v, divu);
    insdg_curved_divergence_surface(op, b, bc, U, divu);
  }
}

void insdg_op_gradient_surface(const insdg_ops *op, const insdg_block *b, const signed char *bc, const double *g,
                               const double *p, const double *p_halo, double *px, double *py)
{
  if (b->ncurved) curved_save(b, px, py);
  table_for(op, b, INSDG_OPS_FAM_G)->gradient_surface(op, b, bc, g, p, p_halo, px, py);
  if (b->ncurved) {
    curved_restore(b, px, py);
    insdg_curved_gradient_surface(op, b, bc, g, p, p_halo, px, py);
  }
}

void insdg_op_divergence_volume(const insdg_ops *op, const insdg_block *b, const double *u, const double *v,
                                double *divu)
{
  table_for(op, b, INSDG_OPS_FAM_D)->divergence_volume(op, b, u, v, divu);
  if (b->ncurved) insdg_curved_divergence_volume(op, b, u, v, divu);
}

void insdg_op_divergence_surface(const insdg_ops *op, const insdg_block *b, const signed char *bc,
                                 const insdg_vec_in *U, double *divu)
{
  if (b->ncurved) curved_save(b, divu, NULL);
  table_for(op, b, INSDG_OPS_FAM_D)->divergence_surface(op, b, bc, U, divu);
  if (b->ncurved) {
    curved_restore(b, divu, NULL);
    insdg_curved_divergence_surface(op, b, bc, U, divu);
  }
}

void insdg_op_sipdg(const insdg_ops *op, const insdg_block *b, const signed char *bc, double lambda,
                    const double *u, const double *ux, const double *uy, const double *u_halo,
                    const double *ux_halo, const double *uy_halo, double *Au)
{
  insdg_op_sipdg_data(op, b, bc, NULL, lambda, u, ux, uy, u_halo, ux_halo, uy_halo, Au);
}

void insdg_op_sipdg_data(const insdg_ops *op, const insdg_block *b, const signed char *bc, const double *g,
                         double lambda, const double *u, const double *ux, const double *uy, const double *u_halo,
                         const double *ux_halo, const double *uy_halo, double *Au)
{
  insdg_op_sipdg_elements(op, b, bc, g, lambda, u, ux, uy, u_halo, ux_halo, uy_halo, Au, 0, b->K);
}

void insdg_op_sipdg_elements(const insdg_ops *op, const insdg_block *b, const signed char *bc, const double *g,
                             double lambda, const double *u, const double *ux, const double *uy,
                             const double *u_halo, const double *ux_halo, const double *uy_halo, double *Au,
                             int e_begin, int e_end)
{
  INSDG_CHECK(0 <= e_begin && e_begin <= e_end && e_end <= b->K);
  table_for(op, b, INSDG_OPS_FAM_S)->sipdg(op, b, bc, g, lambda, u, ux, uy, u_halo, ux_halo, uy_halo, Au, e_begin, e_end);
  if (b->ncurved) insdg_curved_sipdg(op, b, bc, g, lambda, u, ux, uy, u_halo, ux_halo, uy_halo, Au, e_begin, e_end);
}

void insdg_op_adv_volume(const insdg_ops *op, const insdg_block *b, const double *ub, const double *vb,
                         const double *ut, const double *vt, double *Nu, double *Nv)
{
  table_for(op, b, INSDG_OPS_FAM_O)->adv_volume(op, b, ub, vb, ut, vt, Nu, Nv);
  if (b->ncurved) insdg_curved_adv_volume(op, b, ub, vb, ut, vt, Nu, Nv);
}

void insdg_op_adv_surface(const insdg_ops *op, const insdg_block *b, const signed char *bc,
                          double lambda_factor, const insdg_vec_in *Ubar, const insdg_vec_in *Ut,
                          double *Nu, double *Nv)
{
  if (b->ncurved) curved_save(b, Nu, Nv);
  table_for(op, b, INSDG_OPS_FAM_O)->adv_surface(op, b, bc, lambda_factor, Ubar, Ut, Nu, Nv);
  if (b->ncurved) {
    curved_restore(b, Nu, Nv);
    insdg_curved_adv_surface(op, b, bc, lambda_factor, Ubar, Ut, Nu, Nv);
  }
}

void insdg_op_advection(const insdg_ops *op, const insdg_block *b, const signed char *bc,
                        const insdg_vec_in *U, double *Nu, double *Nv)
{
  insdg_op_adv_volume(op, b, U->u, U->v, U->u, U->v, Nu, Nv);
  insdg_op_adv_surface(op, b, bc, 2.0, U, U, Nu, Nv);
}

void insdg_op_subcycle(const insdg_ops *op, const insdg_block *b, const signed char *bc,
                       const insdg_vec_in *Ubar, const insdg_vec_in *Ut, double *Nu, double *Nv)
{
  insdg_op_adv_volume(op, b, Ubar->u, Ubar->v, Ut->u, Ut->v, Nu, Nv);
  insdg_op_adv_surface(op, b, bc, 1.0, Ubar, Ut, Nu, Nv);
}

void insdg_op_mass(const insdg_ops *op, const insdg_block *b, int inverse, double alpha, const double *r, double *z)
{
  table_for(op, b, INSDG_OPS_FAM_O)->mass(op, b, inverse, alpha, r, z);
  if (b->ncurved) insdg_curved_mass(b, inverse, inverse ? 1.0 : alpha, r, z);   /* their own M_J */
}

void insdg_op_element_blocks(const insdg_ops *op, int K, const double *B, const double *r, double *z)
{
  kt(op->ref->N, INSDG_OPS_FAM_O)->element_blocks(K, B, r, z);
}

void insdg_op_mass_norms(const insdg_ops *op, int n, const double *x, const double *y, double *out)
{
  kt(op->ref->N, INSDG_OPS_FAM_O)->mass_norms(op, n, x, y, out);
}

void insdg_op_element_product(int N, int K, int n, const double *AT, const double *x, int accumulate, double *y)
{
  kt(N, INSDG_OPS_FAM_O)->element_product(K, n, AT, x, accumulate, y);
}
