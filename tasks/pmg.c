/* pmg.c -- pMG-AMG on the task graph (pmg.h). The V-cycle below reads as the algorithm:
 * smooth, residual, restrict, recurse, prolong, smooth; every line submits tasks. */
#include "pmg.h"
#include "curved.h"
#include "sched_home.h"
#include "dense.h"

#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "amg.h"
#include "band.h"
#include "assemble.h"
#include "error.h"
#include "exchange.h"
#include "ops_tasks.h"
#include "partition.h"
#include "spchol.h"
#include "starpu_gpu.h"

typedef struct {
  int N;
  insdg_ref *ref;        /* owned on coarse levels */
  insdg_ops *op;         /* owned on coarse levels */
  insdg_layout *L;       /* owned on coarse levels */
  insdg_tasks T;         /* own context on coarse levels */
  insdg_tasks *Tp;       /* the context tasks of this level use */
  double *dinv;          /* [K][Np] Jacobi diagonal inverse, or [K][Np][Np] element blocks' inverses */
  int block;             /* dinv holds element blocks (the smoother's D is block-diagonal) */
  double lambda_max;     /* of D^-1 A, estimated */
  insdg_dfield *x, *b, *r, *d, *z, *Ad, *ux, *uy;
  /* second buffers where the SIPDG runs in parts (insdg_task_sipdg_in_parts) or a
     Chebyshev step is one task with its operator (insdg_task_sipdg_then): successive
     operator applications and Chebyshev steps alternate between the two, so that a block
     never overwrites what a neighbour's operator still reads, nor waits to (tasks/README.md) */
  insdg_dfield *d2, *ux2, *uy2;
  int alternate;         /* the second buffers are used */
  int fuse_steps;        /* a Chebyshev step's operator and update in one task per block, and the
                            residual's operator with the restriction (the aggregation: CPU codelets) */
  int flip;              /* apply_A: the gradient buffers of the next application */
  double *P;             /* [Np][Np_coarser]: interpolation from the next level (NULL on the last) */
  double *PT;            /* [Np_coarser][Np]: its transpose (the CPU prolongation's rows) */
} level;

/* The degree-1 level is the finest level of the AMG, distributed: each rank holds the
   rows of the assembled degree-1 matrix for its blocks (columns renumbered block-local,
   with the columns of neighbouring blocks' elements after them: the column halos, read
   from those blocks or, across ranks, from the receive buffers of their own exchange
   plan), and aggregates are formed inside each block. The aggregated (first coarse)
   residual is allgathered (one collective per cycle) and every rank applies the rest of
   the AMG hierarchy, which every rank holds, to the same bits. */
typedef struct {
  insdg_csr **rows;           /* [B] owned blocks' rows, extended-local columns; NULL elsewhere */
  int npairs;
  insdg_pair_halo *pair;      /* column halos, sorted by (dst, src) */
  int *pairs_into;            /* [B+1] */
  int *nhalo;                 /* [B] column-halo slots of block b */
  insdg_xplan *x;             /* exchange plan of the column halos */
  starpu_data_handle_t *in_recv, *out_recv;   /* receive buffers, per field the SpMV reads */
  double **in_recv_mem, **out_recv_mem;
  int *counts, *displs;       /* [nranks] aggregates per rank and their first (allgatherv) */
  int *agg;                   /* [n1] aggregate of each degree-1 node, numbered within its block */
  int *agg_start;             /* [B+1] first global aggregate of block b */
  starpu_data_handle_t *piece;   /* [B] restricted residual of block b's aggregates */
  double **piece_mem;
  insdg_csr *Ac;              /* P^T A1 P, the first coarse level (every rank) */
  insdg_spchol *chol;         /* Ac's sparse Cholesky factor (every rank), or NULL: */
  insdg_band *band;           /* Ac's banded Cholesky factor (every rank), or NULL: */
  insdg_amg *amg;             /* the AMG hierarchy below instead (K-cycle on its finest level) */
} dist_level;

struct insdg_pmg {
  int nlevels, cheb_degree;
  double cheb_lower;     /* the smoothed interval's lower end on the p-levels, / lambda_max */
  level *lev;
  const signed char *bc;
  double lambda;
  dist_level D;
  starpu_data_handle_t coarse;   /* the whole first-coarse-level correction (every rank) */
  double *coarse_mem;
  int rank;
  double coarse_s[2];   /* the coarse task on this rank: waiting in the allgather, the AMG below */
  long coarse_calls;
};

/* d[i] = 1 / d[i] for a diagonal that must be positive (SPD operator) */
static void invert_diagonal(double *d, size_t n)
{
  for (size_t i = 0; i < n; ++i) {
    INSDG_CHECK(d[i] > 0);
    d[i] = 1.0 / d[i];
  }
}

/* 1 / diag(A), a new array */
static double *inverse_diagonal(const insdg_csr *A)
{
  double *d = insdg_malloc(sizeof(double) * (size_t)(A->nrows > 0 ? A->nrows : 1));
  insdg_csr_diagonal(A, d);
  invert_diagonal(d, (size_t)A->nrows);
  return d;
}

double *insdg_sipdg_inverse_diagonal(const insdg_tasks *T, const signed char *bc, double lambda)
{
  const insdg_layout *L = T->L;
  const int Np = T->op->ref->Np;
  const size_t n = (size_t)L->mesh->K * Np;
  double *d = insdg_malloc(sizeof(double) * (n > 0 ? n : 1));
  for (int b = T->b_begin; b < T->b_end; ++b) {
    const int e0 = L->block_start[b], e1 = L->block_start[b + 1];
    double *db = d + (size_t)e0 * Np;
    insdg_assemble_sipdg_diagonal(L->mesh, T->op, bc, lambda, e0, e1, db);
    invert_diagonal(db, (size_t)(e1 - e0) * Np);
  }
  return d;
}

/* a = a^-1 for a symmetric positive definite n x n matrix (row-major), by Cholesky
   a = L L^T and a^-1 = L^-T L^-1; returns 0, or -1 when a is not positive definite */
static int spd_invert(int n, double *a, double *w)
{
  if (insdg_cholesky(n, a)) return -1;   /* L in the lower triangle of a */
  for (int j = 0; j < n; ++j) {   /* w = L^-1 (lower triangular), column by column */
    for (int i = 0; i < n; ++i) {
      double s = i == j ? 1.0 : 0.0;
      for (int k = j; k < i; ++k) s -= a[i * n + k] * w[k * n + j];
      w[i * n + j] = i < j ? 0.0 : s / a[i * n + i];
    }
  }
  for (int i = 0; i < n; ++i)   /* a^-1 = W^T W */
    for (int j = 0; j <= i; ++j) {
      double s = 0;
      for (int k = i; k < n; ++k) s += w[k * n + i] * w[k * n + j];
      a[i * n + j] = a[j * n + i] = s;
    }
  return 0;
}

double *insdg_sipdg_inverse_blocks(const insdg_tasks *T, const signed char *bc, double lambda)
{
  const insdg_layout *L = T->L;
  const int Np = T->op->ref->Np;
  const size_t nn = (size_t)Np * Np;
  double *d = insdg_malloc(sizeof(double) * ((size_t)L->mesh->K * nn > 0 ? (size_t)L->mesh->K * nn : 1));
  double *w = insdg_malloc(sizeof(double) * nn);
  for (int b = T->b_begin; b < T->b_end; ++b) {
    const int e0 = L->block_start[b], e1 = L->block_start[b + 1];
    double *db = d + (size_t)e0 * nn;
    insdg_assemble_sipdg_diagonal_blocks(L->mesh, T->op, bc, lambda, e0, e1, db);
    for (int e = 0; e < e1 - e0; ++e) INSDG_CHECK(spd_invert(Np, db + (size_t)e * nn, w) == 0);
  }
  free(w);
  return d;
}

double insdg_sipdg_stiffness_mass_ratio(insdg_tasks *T, const signed char *bc, double lambda)
{
  const insdg_layout *L = T->L;
  const insdg_mesh *m = L->mesh;
  const insdg_ref *ref = m->ref;
  const int Np = ref->Np;
  double *dinv = insdg_sipdg_inverse_diagonal(T, bc, 0.0), ratio = 0;
  for (int b = T->b_begin; b < T->b_end; ++b)
    for (int e = L->block_start[b]; e < L->block_start[b + 1]; ++e)
      for (int i = 0; i < Np; ++i) {
        const int k = m->curved ? m->curved->index[e] : -1;
        const double mii = k < 0 ? m->vgeo[e * INSDG_NVGEO + INSDG_J] * ref->M[i * Np + i]
                                 : m->curved->M[((size_t)k * Np + i) * Np + i];
        const double r = 1.0 / (dinv[(size_t)e * Np + i] * lambda * mii);
        if (r > ratio) ratio = r;
      }
  free(dinv);
  double global = ratio;
  MPI_Allreduce(&ratio, &global, 1, MPI_DOUBLE, MPI_MAX, T->comm);
  return global;
}

/* ---- transfers and the coarse solve as codelets ---------------------------------------- */
typedef struct {
  const double *P, *PT;
  int Npf, Npc, K, prolong;
  int Nf, Nc;   /* degrees (the GPU kernels are instantiated per pair) */
  const insdg_ops *op;        /* prolong_grad_cl: the fine level's operators and block, */
  const insdg_block *blk;     /* for the local gradient of fine x after the update */
} transfer_args;

/* prolong: [coarse x (R), fine x (RW), (ux, uy (W): with a.op, then the local gradient of
   fine x)]; restrict: [fine b, fine Ad (R), coarse b (W)], of the residual r = b - Ad
   computed on the fly */
static void transfer_run(transfer_args a, void *buffers[])
{
  const double *src = (const double *)STARPU_VECTOR_GET_PTR(buffers[0]);
  double *dst = (double *)STARPU_VECTOR_GET_PTR(buffers[a.prolong ? 1 : 2]);
  double *res = NULL;
  if (!a.prolong) {
    const double *Ad = (const double *)STARPU_VECTOR_GET_PTR(buffers[1]);
    const size_t n = (size_t)a.K * a.Npf;
    res = insdg_thread_scratch(1, n);
    for (size_t i = 0; i < n; ++i) res[i] = src[i] - Ad[i];
    src = res;
  }
  if (a.prolong)   /* fine += P coarse */
    insdg_op_element_product(a.Nf, a.K, a.Npc, a.PT, src, 1, dst);
  else             /* coarse = P^T fine */
    insdg_op_element_product(a.Nc, a.K, a.Npf, a.P, src, 0, dst);
  if (a.prolong && a.op)
    insdg_op_local_gradient(a.op, a.blk, dst, (double *)STARPU_VECTOR_GET_PTR(buffers[2]),
                            (double *)STARPU_VECTOR_GET_PTR(buffers[3]));
}

static void transfer_cpu(void *buffers[], void *cl_arg)
{
  transfer_args a;
  starpu_codelet_unpack_args(cl_arg, &a);
  transfer_run(a, buffers);
}

#ifdef INSDG_STARPU_GPU
static void transfer_run_gpu(transfer_args a, void *buffers[])
{
  void *stream = insdg_starpu_gpu_stream();
  const double *P = insdg_starpu_gpu_static(a.P, sizeof(double) * (size_t)a.Npf * (size_t)a.Npc);
  const double *src = (const double *)STARPU_VECTOR_GET_PTR(buffers[0]);
  double *dst = (double *)STARPU_VECTOR_GET_PTR(buffers[a.prolong ? 1 : 2]);
  if (!a.prolong) {   /* the residual into scratch first */
    const size_t n = (size_t)a.K * (size_t)a.Npf;
    double *res = insdg_starpu_gpu_scratch(0, sizeof(double) * n, stream);
    insdg_starpu_gpu_check(insdg_gpu_sub(n, src, (const double *)STARPU_VECTOR_GET_PTR(buffers[1]), res, stream),
                           "residual");
    src = res;
  }
  insdg_starpu_gpu_check(a.prolong ? insdg_gpu_pmg_prolong(a.Nf, a.Nc, a.K, P, src, dst, stream)
                                   : insdg_gpu_pmg_restrict(a.Nf, a.Nc, a.K, P, src, dst, stream),
                         "p-multigrid transfer");
}

static void transfer_cuda(void *buffers[], void *cl_arg)
{
  transfer_args a;
  starpu_codelet_unpack_args(cl_arg, &a);
  transfer_run_gpu(a, buffers);
}
#endif

static struct starpu_codelet transfer_cl = {INSDG_CODELET_FUNCS(transfer_cpu, transfer_cuda) .nbuffers = 2,
                                            .modes = {STARPU_R, STARPU_RW}, .name = "insdg_pmg_transfer"};
static struct starpu_codelet restrict_cl = {INSDG_CODELET_FUNCS(transfer_cpu, transfer_cuda) .nbuffers = 3,
                                            .modes = {STARPU_R, STARPU_R, STARPU_W}, .name = "insdg_pmg_restrict"};
/* the prolongation that also makes the local gradient of fine x (insdg_task_fuse_local_gradient: CPU) */
static struct starpu_codelet prolong_grad_cl = {.cpu_funcs = {transfer_cpu}, .nbuffers = 4,
                                                .modes = {STARPU_R, STARPU_RW, STARPU_W, STARPU_W},
                                                .name = "insdg_pmg_prolong_grad"};

static transfer_args transfer_block(insdg_pmg *pmg, int l, int prolong, int b)
{
  const level *f = &pmg->lev[l], *c = &pmg->lev[l + 1];
  return (transfer_args){f->P, f->PT, f->ref->Np, c->ref->Np, f->L->block[b]->K, prolong, f->ref->N, c->ref->N, NULL, NULL};
}

/* the restriction as work fused into the task of the operator that made Ad (insdg_then) */
typedef struct {
  insdg_pmg *pmg;
  int l;
} restrict_then;

static void restrict_then_run(void *buffers[], const void *args)
{
  transfer_args a;
  memcpy(&a, args, sizeof a);
  transfer_run(a, buffers);
}

#ifdef INSDG_STARPU_GPU
static void restrict_then_run_gpu(void *buffers[], const void *args)
{
  transfer_args a;
  memcpy(&a, args, sizeof a);
  transfer_run_gpu(a, buffers);
}
#endif

static void restrict_then_block(const insdg_then *t, int b, insdg_block_then *out, struct starpu_data_descr *d)
{
  const restrict_then *r = (const restrict_then *)t->bytes;
  const level *f = &r->pmg->lev[r->l], *c = &r->pmg->lev[r->l + 1];
  const transfer_args a = transfer_block(r->pmg, r->l, 0, b);
  _Static_assert(sizeof a <= sizeof out->args, "insdg_block_then: too small for transfer_args");
  out->run = restrict_then_run, out->nd = 3;
#ifdef INSDG_STARPU_GPU
  out->run_gpu = restrict_then_run_gpu;
#else
  out->run_gpu = NULL;
#endif
  d[0] = (struct starpu_data_descr){f->b->block[b], STARPU_R};
  d[1] = (struct starpu_data_descr){f->Ad->block[b], STARPU_R};
  d[2] = (struct starpu_data_descr){c->b->block[b], STARPU_W};
  memcpy(out->args, &a, sizeof a);
}

/* fine level l, coarse level l+1; the restriction is of the residual b - Ad. g (prolong
   only, or NULL): the local gradient of the fine x into g->ux, g->uy too */
static void submit_transfer(insdg_pmg *pmg, int l, int prolong, const insdg_grad_out *g)
{
  level *f = &pmg->lev[l], *c = &pmg->lev[l + 1];
  const insdg_layout *L = f->L;
#ifdef INSDG_STARPU_GPU
  transfer_cl.where = restrict_cl.where = insdg_starpu_gpu_where();
#endif
  for (int b = f->Tp->b_begin; b < f->Tp->b_end; ++b) {
    transfer_args a = transfer_block(pmg, l, prolong, b);
    int status;
    if (prolong && g) {
      INSDG_CHECK(g->of == f->x);
      a.op = f->op, a.blk = L->block[b];
      status = INSDG_TASK_INSERT(&prolong_grad_cl, STARPU_R, c->x->block[b], STARPU_RW, f->x->block[b], STARPU_W,
                                 g->ux->block[b], STARPU_W, g->uy->block[b], STARPU_VALUE, &a, sizeof a, 0);
    } else {
      status = prolong ? INSDG_TASK_INSERT(&transfer_cl, STARPU_R, c->x->block[b], STARPU_RW, f->x->block[b],
                                           STARPU_VALUE, &a, sizeof a, 0)
                       : INSDG_TASK_INSERT(&restrict_cl, STARPU_R, f->b->block[b], STARPU_R, f->Ad->block[b], STARPU_W,
                                           c->b->block[b], STARPU_VALUE, &a, sizeof a, 0);
    }
    INSDG_CHECK(status == 0);
  }
}

/* ---- the distributed degree-1 level ------------------------------------------------- */
typedef struct {
  const insdg_csr *rows;
  const insdg_xplan *x;
  int d, nhalo;
  int x_in_task;   /* the column-halo exchange in this task (insdg_task_exchange_in_task) */
} spmv_args;

/* y = A x for one block's rows: buffers [x (R), column-halo sources (R; W with x_in_task) ...,
   y (W), (the communication token with x_in_task)] */
static void spmv_run(spmv_args a, void *buffers[])
{
  const int n = a.rows->nrows, ndeps = insdg_xplan_ndeps(a.x, a.d);
  if (a.x_in_task) {
    insdg_xplan_post_in_task(a.x, 1, buffers);
    insdg_xplan_finish_in_task(a.x, a.d, 1, buffers, 1);
  }
  double *ext = insdg_thread_scratch(1, (size_t)(n + a.nhalo + 1));
  memcpy(ext, (const double *)STARPU_VECTOR_GET_PTR(buffers[0]), sizeof(double) * (size_t)n);
  insdg_xplan_gather(a.x, a.d, buffers, 1, ext + n);
  insdg_csr_matvec(a.rows, ext, (double *)STARPU_VECTOR_GET_PTR(buffers[1 + ndeps]));
}

static void spmv_cpu(void *buffers[], void *cl_arg)
{
  spmv_args a;
  starpu_codelet_unpack_args(cl_arg, &a);
  spmv_run(a, buffers);
}

#ifdef INSDG_STARPU_GPU
/* the same on the GPU: x and the halos gathered into scratch slot 0, then the CSR kernel */
static void spmv_run_gpu(spmv_args a, void *buffers[])
{
  void *stream = insdg_starpu_gpu_stream();
  const insdg_csr *A = a.rows;
  const size_t n = (size_t)A->nrows, nnz = (size_t)A->row_ptr[A->nrows];
  double *ext = insdg_starpu_gpu_scratch(0, sizeof(double) * (n + (size_t)a.nhalo + 1), stream);
  insdg_starpu_gpu_check(insdg_gpu_memcpy_d2d(ext, (const void *)STARPU_VECTOR_GET_PTR(buffers[0]),
                                              sizeof(double) * n, stream),
                         "copy");
  insdg_starpu_gpu_gather_halos(a.x, a.d, buffers, 1, ext + n, stream);
  const int *row_ptr = insdg_starpu_gpu_static(A->row_ptr, sizeof(int) * (n + 1));
  const int *col = insdg_starpu_gpu_static(A->col, sizeof(int) * nnz);
  const double *val = insdg_starpu_gpu_static(A->val, sizeof(double) * nnz);
  insdg_starpu_gpu_check(insdg_gpu_csr_spmv(A->nrows, row_ptr, col, val, ext, NULL,
                                            (double *)STARPU_VECTOR_GET_PTR(buffers[1 + insdg_xplan_ndeps(a.x, a.d)]),
                                            INSDG_GPU_SPMV_SET, stream),
                         "sparse matrix-vector product");
}

static void spmv_cuda(void *buffers[], void *cl_arg)
{
  spmv_args a;
  starpu_codelet_unpack_args(cl_arg, &a);
  spmv_run_gpu(a, buffers);
}

static void spmv_then_cuda(void *buffers[], void *cl_arg)
{
  spmv_args a;
  insdg_block_then bt;
  starpu_codelet_unpack_args(cl_arg, &a, &bt);
  spmv_run_gpu(a, buffers);
  insdg_then_run(&bt, buffers, 1);
}
#endif

static struct starpu_codelet spmv_cl = {
    INSDG_CODELET_FUNCS(spmv_cpu, spmv_cuda)
    .nbuffers = STARPU_VARIABLE_NBUFFERS, .name = "insdg_spmv"};

/* the SpMV, then fused work on the block (insdg_then; CPU codelets) */
static void spmv_then_cpu(void *buffers[], void *cl_arg)
{
  spmv_args a;
  insdg_block_then bt;
  starpu_codelet_unpack_args(cl_arg, &a, &bt);
  spmv_run(a, buffers);
  insdg_then_run(&bt, buffers, 0);
}

static struct starpu_codelet spmv_then_cl = {
    INSDG_CODELET_FUNCS(spmv_then_cpu, spmv_then_cuda)
    .nbuffers = STARPU_VARIABLE_NBUFFERS, .name = "insdg_spmv_then"};

/* the level's fields the SpMV reads: x or d (their column-halo receive buffers; d2, the
   Chebyshev's second direction, shares d's: StarPU orders the exchanges that fill them) */
static starpu_data_handle_t *spmv_recv(insdg_pmg *pmg, level *v, insdg_dfield *in)
{
  INSDG_CHECK(in == v->x || in == v->d || in == v->d2);
  return in == v->x ? pmg->D.in_recv : pmg->D.out_recv;
}

/* out = A in on the degree-1 level; then (or NULL): work each block's task does after */
static void submit_spmv(insdg_pmg *pmg, level *v, insdg_dfield *in, insdg_dfield *out, const insdg_then *then)
{
  dist_level *D = &pmg->D;
  starpu_data_handle_t *recv = spmv_recv(pmg, v, in);
  const int in_task = insdg_task_exchange_in_task(D->x);
  if (!in_task) insdg_task_exchange(D->x, 1, &in->block, &recv);
#ifdef INSDG_STARPU_GPU
  spmv_cl.where = spmv_then_cl.where = insdg_starpu_gpu_where();
#endif
  for (int d = v->Tp->b_begin; d < v->Tp->b_end; ++d) {
    const int ndeps = insdg_xplan_ndeps(D->x, d);
    spmv_args a = {D->rows[d], D->x, d, D->nhalo[d], in_task};
    const int nd = ndeps + 2 + in_task;
    struct starpu_data_descr *desc = insdg_thread_scratch_descr(nd + (then ? INSDG_THEN_MAXD : 0));
    desc[0] = (struct starpu_data_descr){in->block[d], STARPU_R};
    insdg_xplan_halo_descr(D->x, d, in->block, recv, desc + 1, in_task ? STARPU_W : STARPU_R);
    desc[1 + ndeps] = (struct starpu_data_descr){out->block[d], STARPU_W};
    if (in_task) desc[2 + ndeps] = (struct starpu_data_descr){insdg_runtime_comm_token(), STARPU_RW};
    if (then) {
      insdg_block_then bt;
      const int n = insdg_then_append(then, d, &bt, desc, nd);
      INSDG_CHECK(INSDG_TASK_INSERT(&spmv_then_cl, STARPU_DATA_MODE_ARRAY, desc, n, STARPU_VALUE, &a, sizeof a,
                                    STARPU_VALUE, &bt, sizeof bt, 0) == 0);
    } else {
      INSDG_CHECK(INSDG_TASK_INSERT(&spmv_cl, STARPU_DATA_MODE_ARRAY, desc, nd, STARPU_VALUE, &a, sizeof a, 0) == 0);
    }
  }
  if (then && then->done) then->done(then);
}

typedef struct {
  const int *agg;   /* the block's nodes */
  int n, nagg, offset, prolong;
} agg_args;

/* restrict: [b, Ad (R), piece (W)], piece[a] = sum of the residual b - Ad over aggregate
   a; prolong: [xc (R), x (RW)], x_i += xc[offset + agg_i] */
static void agg_run(agg_args a, void *buffers[])
{
  const double *src = (const double *)STARPU_VECTOR_GET_PTR(buffers[0]);
  if (a.prolong) {
    double *dst = (double *)STARPU_VECTOR_GET_PTR(buffers[1]);
    for (int i = 0; i < a.n; ++i) dst[i] += src[a.offset + a.agg[i]];
  } else {
    const double *Ad = (const double *)STARPU_VECTOR_GET_PTR(buffers[1]);
    double *dst = (double *)STARPU_VECTOR_GET_PTR(buffers[2]);
    for (int k = 0; k < a.nagg; ++k) dst[k] = 0;
    for (int i = 0; i < a.n; ++i) {
      const double r = src[i] - Ad[i];
      dst[a.agg[i]] += r;
    }
  }
}

static void agg_cpu(void *buffers[], void *cl_arg)
{
  agg_args a;
  starpu_codelet_unpack_args(cl_arg, &a);
  agg_run(a, buffers);
}

/* block b's aggregation of the degree-1 residual b - Ad */
static agg_args agg_restrict_args(const insdg_pmg *pmg, const level *c, int b)
{
  const dist_level *D = &pmg->D;
  const int e0 = c->L->block_start[b], Np = c->ref->Np;
  return (agg_args){D->agg + (size_t)e0 * Np, c->L->block[b]->K * Np, D->agg_start[b + 1] - D->agg_start[b], 0, 0};
}

/* the aggregation as work fused into the SpMV that made Ad (insdg_then) */
static void agg_then_run(void *buffers[], const void *args)
{
  agg_args a;
  memcpy(&a, args, sizeof a);
  agg_run(a, buffers);
}

static void agg_then_block(const insdg_then *t, int b, insdg_block_then *out, struct starpu_data_descr *d)
{
  const insdg_pmg *pmg = *(insdg_pmg *const *)t->bytes;
  const level *c = &pmg->lev[pmg->nlevels - 1];
  const agg_args a = agg_restrict_args(pmg, c, b);
  _Static_assert(sizeof a <= sizeof out->args, "insdg_block_then: too small for agg_args");
  out->run = agg_then_run, out->run_gpu = NULL, out->nd = 3;   /* the aggregation is CPU-only */
  d[0] = (struct starpu_data_descr){c->b->block[b], STARPU_R};
  d[1] = (struct starpu_data_descr){c->Ad->block[b], STARPU_R};
  d[2] = (struct starpu_data_descr){pmg->D.piece[b], STARPU_W};
  memcpy(out->args, &a, sizeof a);
}

static struct starpu_codelet agg_restrict_cl = {
    .cpu_funcs = {agg_cpu}, .nbuffers = 3, .modes = {STARPU_R, STARPU_R, STARPU_W}, .name = "insdg_agg_restrict"};
static struct starpu_codelet agg_prolong_cl = {
    .cpu_funcs = {agg_cpu}, .nbuffers = 2, .modes = {STARPU_R, STARPU_RW}, .name = "insdg_agg_prolong"};

typedef struct {
  const insdg_csr *Ac;
  const insdg_spchol *chol;   /* the exact solve, */
  const insdg_band *band;     /* or this one, or (both NULL) the AMG's K-cycle step */
  insdg_amg *amg;
  int npieces, size;          /* this rank's blocks; ranks */
  const int *counts, *displs; /* aggregates per rank, first aggregate of each rank */
  insdg_pmg *pmg;             /* its coarse_s, coarse_calls (one coarse task at a time: it writes pmg->coarse) */
} coarse_args;

/* every rank: the aggregated residual of all blocks (block order = global aggregate
   order; across ranks one allgatherv), then the coarse correction: Ac's sparse (or banded)
   Cholesky solve, or (when the factor is too large or Ac singular) the K-cycle step, two
   flexible-CG steps on Ac preconditioned by the AMG below (Notay: stop after one if it
   cut the residual 4x). Buffers: [(token), this rank's pieces, coarse (W)]. */
static void coarse_cpu(void *buffers[], void *cl_arg)
{
  coarse_args a;
  starpu_codelet_unpack_args(cl_arg, &a);
  const int first = a.size > 1;
  double *out = (double *)STARPU_VECTOR_GET_PTR(buffers[first + a.npieces]);
  const size_t n = STARPU_VECTOR_GET_NX(buffers[first + a.npieces]);
  double *rhs = insdg_thread_scratch(2, n + 1), *mine = insdg_thread_scratch(3, n + 1);
  size_t at = 0;
  for (int b = 0; b < a.npieces; ++b) {
    const size_t nb = STARPU_VECTOR_GET_NX(buffers[first + b]);
    memcpy(mine + at, (const double *)STARPU_VECTOR_GET_PTR(buffers[first + b]), sizeof(double) * nb);
    at += nb;
  }
  const double t0 = MPI_Wtime();
  if (a.size > 1) {
    MPI_Request req;
    MPI_Iallgatherv(mine, (int)at, MPI_DOUBLE, rhs, a.counts, a.displs, MPI_DOUBLE, insdg_runtime_task_comm(), &req);
    insdg_mpi_wait_quietly(1, &req);
  } else {
    INSDG_CHECK(at == n);
    memcpy(rhs, mine, sizeof(double) * n);
  }
  const double t1 = MPI_Wtime();
  if (a.chol) {
    insdg_spchol_solve(a.chol, rhs, out);
  } else if (a.band) {
    insdg_band_solve(a.band, rhs, out);
  } else {
    for (size_t i = 0; i < n; ++i) out[i] = 0;
    insdg_fpcg_csr(a.Ac, rhs, out, insdg_amg_precondition, a.amg, 0.25, 2, NULL, NULL);
  }
  a.pmg->coarse_s[0] += t1 - t0, a.pmg->coarse_s[1] += MPI_Wtime() - t1, a.pmg->coarse_calls++;
}

static struct starpu_codelet coarse_cl = {
    .cpu_funcs = {coarse_cpu}, .nbuffers = STARPU_VARIABLE_NBUFFERS, .name = "insdg_pmg_coarse"};

/* the residual b - Ad of the degree-1 level, aggregated (unless the SpMV's tasks did:
   aggregated), solved below, prolonged */
static void coarse_correction(insdg_pmg *pmg, level *c, int aggregated)
{
  dist_level *D = &pmg->D;
  const insdg_layout *L = c->L;
  insdg_tasks *T = c->Tp;
  const int Np = c->ref->Np;
  for (int b = T->b_begin; b < T->b_end && !aggregated; ++b) {
    agg_args a = agg_restrict_args(pmg, c, b);
    INSDG_CHECK(INSDG_TASK_INSERT(&agg_restrict_cl, STARPU_R, c->b->block[b], STARPU_R, c->Ad->block[b], STARPU_W,
                                  D->piece[b], STARPU_VALUE, &a, sizeof a, 0) == 0);
  }
  const int nb = T->b_end - T->b_begin, first = T->size > 1;
  struct starpu_data_descr *d = insdg_thread_scratch_descr(nb + 2);
  if (first) d[0] = (struct starpu_data_descr){insdg_runtime_comm_token(), STARPU_RW};
  for (int b = T->b_begin; b < T->b_end; ++b) d[first + b - T->b_begin] = (struct starpu_data_descr){D->piece[b], STARPU_R};
  d[first + nb] = (struct starpu_data_descr){pmg->coarse, STARPU_W};
  coarse_args a = {D->Ac, D->chol, D->band, D->amg, nb, T->size, D->counts, D->displs, pmg};
  INSDG_CHECK(INSDG_TASK_INSERT(&coarse_cl, STARPU_DATA_MODE_ARRAY, d, first + nb + 1, STARPU_VALUE, &a, sizeof a,
                                STARPU_PRIORITY, STARPU_MAX_PRIO, 0) == 0);
  for (int b = T->b_begin; b < T->b_end; ++b) {
    const int e0 = L->block_start[b];
    agg_args a = {D->agg + (size_t)e0 * Np, L->block[b]->K * Np, 0, D->agg_start[b], 1};
    INSDG_CHECK(INSDG_TASK_INSERT(&agg_prolong_cl, STARPU_R, pmg->coarse, STARPU_RW, c->x->block[b], STARPU_VALUE, &a,
                                  sizeof a, 0) == 0);
  }
}

/* ---- smoothing ----------------------------------------------------------------------- */
/* the level's operator: matrix-free SIPDG, or the distributed matrix at degree 1 */
static int is_last(const insdg_pmg *pmg, const level *v) { return v == &pmg->lev[pmg->nlevels - 1]; }

/* the local-gradient buffers of the level's next SIPDG application: alternating between
   two pairs where the operator runs in parts (tasks/README.md) */
static void next_gradient(level *v, insdg_grad_out *g, insdg_dfield *of)
{
  const int second = v->flip && v->alternate;
  v->flip ^= 1;
  *g = (insdg_grad_out){of, second ? v->ux2 : v->ux, second ? v->uy2 : v->uy};
}

/* out = A in; g: in's local gradient, made by the task that wrote in (NULL: made here) */
static void apply_A(insdg_pmg *pmg, level *v, insdg_dfield *in, insdg_dfield *out, const insdg_grad_out *g)
{
  if (is_last(pmg, v)) {
    submit_spmv(pmg, v, in, out, NULL);
    return;
  }
  if (g) {
    INSDG_CHECK(g->of == in);
    insdg_task_sipdg_given_gradient(pmg->bc, pmg->lambda, in, g->ux, g->uy, out);
    return;
  }
  insdg_grad_out own;
  next_gradient(v, &own, in);
  insdg_task_sipdg(pmg->bc, pmg->lambda, in, own.ux, own.uy, out);
}

/* Ad = A in, then the work t in the same task per block (v->fuse_steps); g: in's local
   gradient where made (g->of == in), or none (g->of NULL: made here) */
static void apply_A_then(insdg_pmg *pmg, level *v, insdg_dfield *in, const insdg_grad_out *g, const insdg_then *t)
{
  if (is_last(pmg, v)) {
    submit_spmv(pmg, v, in, v->Ad, t);
    return;
  }
  insdg_grad_out own = *g;
  if (!own.of) next_gradient(v, &own, in);
  INSDG_CHECK(own.of == in);
  insdg_task_sipdg_then(pmg->bc, pmg->lambda, in, own.ux, own.uy, v->Ad, g->of != NULL, t);
}

/* the vector the operator after a Chebyshev update reads: the direction while steps remain,
   then x when the caller applies A to it next (residual_next), else none */
static insdg_dfield *read_next(level *v, insdg_dfield *dir, int last, int residual_next)
{
  return last ? (residual_next ? v->x : NULL) : dir;
}

/* Chebyshev iteration on D^-1 A over [f lmax, 1.1 lmax], f = 1/4 on the p-levels and 1/10
   on the degree-1 level (the AMG smoother, docs/amg.md); x = 0 on entry when zero_guess.
   Each step is the operator and one fused update task per block (vec_tasks.h), which on
   the p-levels with CPU codelets also makes the local gradient of the vector the next
   operator application reads: the next direction, or, when residual_next (the caller
   applies A to x next), x after the last step, whose gradient buffers *gx then names
   (gx->of NULL otherwise). x_grad: x's local gradient for the first operator when x is
   not zero (made by the prolongation), or NULL. */
static void chebyshev(insdg_pmg *pmg, level *v, int zero_guess, int residual_next, insdg_grad_out *gx,
                      const insdg_grad_out *x_grad)
{
  const double upper = 1.1 * v->lambda_max, lower = (is_last(pmg, v) ? 0.1 : pmg->cheb_lower) * v->lambda_max;
  const insdg_dinv D = {v->dinv, v->block};
  const double theta = 0.5 * (upper + lower), delta = 0.5 * (upper - lower), sigma = theta / delta;
  const int fuse = !is_last(pmg, v) && insdg_task_fuse_local_gradient(v->Tp);
  double rho_old = 1.0 / sigma;
  insdg_grad_out g = {NULL, NULL, NULL};
  if (!zero_guess) apply_A(pmg, v, v->x, v->Ad, x_grad);
  insdg_dfield *of = fuse ? read_next(v, v->d, pmg->cheb_degree < 2, residual_next) : NULL;
  if (of) next_gradient(v, &g, of);
  insdg_task_cheb_first(D, 1.0 / theta, v->b, zero_guess ? NULL : v->Ad, v->r, v->d, v->x, zero_guess, of ? &g : NULL);
  insdg_dfield *d = v->d;   /* the current direction: v->d, then alternating with v->d2 */
  for (int k = 2; k <= pmg->cheb_degree; ++k) {
    const double rho = 1.0 / (2.0 * sigma - rho_old);
    insdg_dfield *next = !v->alternate ? d : d == v->d ? v->d2 : v->d;
    const insdg_grad_out gd = g;   /* d's local gradient, if made (fuse) */
    of = fuse ? read_next(v, next, k == pmg->cheb_degree, residual_next) : NULL;
    g = (insdg_grad_out){NULL, NULL, NULL};
    if (v->fuse_steps) {   /* A d and the update in one task per block; d's gradient given (fuse) */
      if (of) next_gradient(v, &g, of);
      insdg_then t;
      insdg_then_cheb_step(&t, D, 2.0 * rho / delta, rho * rho_old, v->Ad, v->r, d, next, v->x, of ? &g : NULL);
      apply_A_then(pmg, v, d, &gd, &t);
    } else {
      apply_A(pmg, v, d, v->Ad, gd.of ? &gd : NULL);
      if (of) next_gradient(v, &g, of);
      insdg_task_cheb_step(D, 2.0 * rho / delta, rho * rho_old, v->Ad, v->r, d, next, v->x, of ? &g : NULL);
    }
    d = next, rho_old = rho;
  }
  *gx = g.of == v->x ? g : (insdg_grad_out){NULL, NULL, NULL};
}

static void vcycle(insdg_pmg *pmg, int l)
{
  level *v = &pmg->lev[l];
  insdg_grad_out gx, xg = {NULL, NULL, NULL};
  chebyshev(pmg, v, 1, 1, &gx, NULL);
  /* the residual b - Ad is formed by the restriction (the aggregation on the degree-1
     level, CPU-only): in the operator's tasks with fuse_steps */
  const int fused = v->fuse_steps && (!is_last(pmg, v) || insdg_task_fuse_local_gradient(v->Tp));
  if (fused) {
    insdg_then t = {is_last(pmg, v) ? agg_then_block : restrict_then_block, NULL, {0}};
    if (is_last(pmg, v)) *(insdg_pmg **)t.bytes = pmg;
    else *(restrict_then *)t.bytes = (restrict_then){pmg, l};
    apply_A_then(pmg, v, v->x, &gx, &t);
  } else {
    apply_A(pmg, v, v->x, v->Ad, gx.of ? &gx : NULL);
  }
  if (is_last(pmg, v)) {   /* degree 1: aggregate, K-cycle below on every rank, back */
    coarse_correction(pmg, v, fused);
  } else {
    if (!fused) submit_transfer(pmg, l, 0, NULL);
    vcycle(pmg, l + 1);
    if (insdg_task_fuse_local_gradient(v->Tp)) next_gradient(v, &xg, v->x);   /* for post-smoothing's first operator */
    submit_transfer(pmg, l, 1, xg.of ? &xg : NULL);
  }
  chebyshev(pmg, v, 0, 0, &gx, xg.of ? &xg : NULL);
}

/* the finest level works on the caller's vectors: b = in, x = out (no copies) */
void insdg_pmg_apply(void *ctx, insdg_dfield *in, insdg_dfield *out)
{
  insdg_pmg *pmg = ctx;
  level *f = &pmg->lev[0];
  insdg_dfield *b = f->b, *x = f->x;
  f->b = in, f->x = out;
  vcycle(pmg, 0);
  f->b = b, f->x = x;
}

/* ---- setup ----------------------------------------------------------------------------- */
static int default_degrees(int N, int *deg)
{
  int n = 0;
  deg[n++] = N;
  while (N > 1) {   /* halve, but by at most 2 degrees a level: 8 6 4 2 1, 7 5 3 2 1, 4 2 1 */
    const int half = (N + 1) / 2;
    N = half > N - 2 ? half : N - 2;
    deg[n++] = N;
  }
  return n;
}

/* power iteration for the largest eigenvalue of D^-1 A (the host waits per iteration:
   setup only) */
static double estimate_lambda_max(insdg_pmg *pmg, level *v)
{
  const insdg_mesh *m = v->L->mesh;
  const size_t n = (size_t)m->K * v->ref->Np;
  double *host = insdg_malloc(sizeof(double) * n);
  for (size_t i = 0; i < n; ++i) host[i] = sin(1.7 * (double)i + 0.3) + 1.1;   /* fixed start */
  insdg_dfield_set(v->x, host);
  free(host);
  insdg_dscalar *s = insdg_dscalar_create(v->Tp, 2);
  double lambda = 0;
  for (int it = 0; it < 20; ++it) {
    apply_A(pmg, v, v->x, v->Ad, NULL);
    insdg_task_dinv((insdg_dinv){v->dinv, v->block}, v->Ad, v->z);
    insdg_task_dots((insdg_dfield *[]){v->z, v->x}, (insdg_dfield *[]){v->z, v->x}, s);
    const double zz = insdg_dscalar_get(s, 0), xx = insdg_dscalar_get(s, 1);
    lambda = sqrt(zz / xx);
    insdg_task_axpby(1.0 / sqrt(zz), v->z, 0.0, v->x);
  }
  insdg_tasks_wait(v->Tp);
  insdg_dscalar_destroy(s);
  return lambda;
}

static void make_level_fields(level *v)
{
  insdg_dfield **f[] = {&v->x, &v->b, &v->r, &v->d, &v->z, &v->Ad, &v->ux, &v->uy, &v->d2, &v->ux2, &v->uy2};
  const size_t nf = v->alternate ? 11 : 8;   /* the second buffers only where they are used */
  for (size_t k = 0; k < nf; ++k) *f[k] = insdg_dfield_create(v->Tp);
}

/* Block of a renumbered element (block_start ascending). */
static int block_of_element(const insdg_layout *L, int e)
{
  int lo = 0, hi = L->B - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (L->block_start[mid] <= e) lo = mid; else hi = mid - 1;
  }
  return lo;
}

static int cmp_int(const void *a, const void *b)
{
  const int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* rows r0..r1-1 of A, columns restricted to the same range and shifted to 0 */
static insdg_csr *diagonal_block(const insdg_csr *A, int r0, int r1)
{
  int nnz = 0;
  for (int i = r0; i < r1; ++i)
    for (int q = A->row_ptr[i]; q < A->row_ptr[i + 1]; ++q) nnz += A->col[q] >= r0 && A->col[q] < r1;
  insdg_csr *S = insdg_csr_create(r1 - r0, r1 - r0, nnz);
  int k = 0;
  for (int i = r0; i < r1; ++i) {
    for (int q = A->row_ptr[i]; q < A->row_ptr[i + 1]; ++q)
      if (A->col[q] >= r0 && A->col[q] < r1) S->col[k] = A->col[q] - r0, S->val[k++] = A->val[q];
    S->row_ptr[i - r0 + 1] = k;
  }
  return S;
}

/* Every rank assembles the degree-1 matrix (setup only, O(K)), keeps its own blocks' rows,
   builds the column halos and the block-local aggregates of every block (the same on all
   ranks), and rank 0 forms the first coarse matrix and the AMG below it. */
static void setup_degree1(insdg_pmg *pmg, level *c, const signed char *bc, double lambda, int block, int coarse)
{
  dist_level *D = &pmg->D;
  const insdg_layout *L = c->L;
  const int Np = c->ref->Np, B = L->B, n1 = L->mesh->K * Np;
  insdg_csr *A1 = insdg_assemble_sipdg(L->mesh, c->op, bc, lambda);
  D->rows = insdg_calloc((size_t)B, sizeof(insdg_csr *));
  D->nhalo = insdg_calloc((size_t)B, sizeof(int));
  D->pairs_into = insdg_calloc((size_t)B + 1, sizeof(int));
  D->agg = insdg_malloc(sizeof(int) * (size_t)n1);
  D->agg_start = insdg_calloc((size_t)B + 1, sizeof(int));
  int cap = 16;
  D->pair = insdg_malloc(sizeof(insdg_pair_halo) * (size_t)cap);
  for (int d = 0; d < B; ++d) {
    const int r0 = L->block_start[d] * Np, r1 = L->block_start[d + 1] * Np;
    /* block-local aggregates */
    insdg_csr *S = diagonal_block(A1, r0, r1);
    D->agg_start[d + 1] = D->agg_start[d] + insdg_amg_aggregates(S, NULL, D->agg + r0);
    insdg_csr_destroy(S);
    /* columns outside the block, ascending: the halo slots; grouped by source block */
    int nout = 0;
    for (int q = A1->row_ptr[r0]; q < A1->row_ptr[r1]; ++q) nout += A1->col[q] < r0 || A1->col[q] >= r1;
    int *out = insdg_malloc(sizeof(int) * (size_t)(nout + 1)), k = 0;
    for (int q = A1->row_ptr[r0]; q < A1->row_ptr[r1]; ++q)
      if (A1->col[q] < r0 || A1->col[q] >= r1) out[k++] = A1->col[q];
    qsort(out, (size_t)nout, sizeof(int), cmp_int);
    int nh = 0;
    for (int i = 0; i < nout; ++i)
      if (i == 0 || out[i] != out[i - 1]) out[nh++] = out[i];
    D->nhalo[d] = nh;
    D->pairs_into[d] = D->npairs;
    for (int k0 = 0; k0 < nh;) {
      const int src = block_of_element(L, out[k0] / Np), end = L->block_start[src + 1] * Np;
      int k1 = k0;
      while (k1 < nh && out[k1] < end) ++k1;
      if (D->npairs == cap) cap *= 2, D->pair = realloc(D->pair, sizeof(insdg_pair_halo) * (size_t)cap);
      INSDG_CHECK(D->pair);
      insdg_pair_halo *p = &D->pair[D->npairs++];
      p->src = src, p->dst = d, p->n = k1 - k0, p->dst_offset = k0;
      p->src_node = insdg_malloc(sizeof(int) * (size_t)p->n);
      for (int i = 0; i < p->n; ++i) p->src_node[i] = out[k0 + i] - L->block_start[src] * Np;
      k0 = k1;
    }
    /* the owner keeps its rows, columns block-local then halo slots */
    if (L->block_rank[d] == pmg->rank) {
      const int nnz = A1->row_ptr[r1] - A1->row_ptr[r0];
      insdg_csr *R = insdg_csr_create(r1 - r0, r1 - r0 + nh, nnz);
      for (int i = r0; i <= r1; ++i) R->row_ptr[i - r0] = A1->row_ptr[i] - A1->row_ptr[r0];
      for (int q = A1->row_ptr[r0]; q < A1->row_ptr[r1]; ++q) {
        const int col = A1->col[q], at = q - A1->row_ptr[r0];
        if (col >= r0 && col < r1) {
          R->col[at] = col - r0;
        } else {
          const int *slot = bsearch(&col, out, (size_t)nh, sizeof(int), cmp_int);
          INSDG_CHECK(slot);
          R->col[at] = r1 - r0 + (int)(slot - out);
        }
        R->val[at] = A1->val[q];
      }
      D->rows[d] = R;   /* columns within a row stay sorted per part; matvec does not need more */
    }
    free(out);
  }
  D->pairs_into[B] = D->npairs;
  D->x = insdg_xplan_create(L, pmg->rank, D->pair, D->npairs, D->pairs_into);
  D->in_recv = insdg_xplan_recv_create(D->x, &D->in_recv_mem);
  D->out_recv = insdg_xplan_recv_create(D->x, &D->out_recv_mem);
  D->piece = insdg_calloc((size_t)B, sizeof(starpu_data_handle_t));
  D->piece_mem = insdg_calloc((size_t)B, sizeof(double *));
  D->counts = insdg_calloc((size_t)L->nranks, sizeof(int));
  D->displs = insdg_calloc((size_t)L->nranks, sizeof(int));
  for (int b = B - 1; b >= 0; --b) {
    const int nagg = D->agg_start[b + 1] - D->agg_start[b], r = L->block_rank[b];
    D->counts[r] += nagg, D->displs[r] = D->agg_start[b];   /* a rank's blocks are contiguous */
    if (r != pmg->rank) continue;
    D->piece_mem[b] = insdg_calloc((size_t)(nagg > 0 ? nagg : 1), sizeof(double));
    starpu_vector_data_register(&D->piece[b], STARPU_MAIN_RAM, (uintptr_t)D->piece_mem[b], (uint32_t)nagg,
                                sizeof(double));
    insdg_sched_home_tag(D->piece[b], b - c->Tp->b_begin);
  }
  const int nc = D->agg_start[B];
  {   /* every rank: Ac = P^T A1 P with P piecewise constant on the global aggregates */
    insdg_csr *P = insdg_csr_create(n1, nc, n1);
    for (int b = 0; b < B; ++b)
      for (int i = L->block_start[b] * Np; i < L->block_start[b + 1] * Np; ++i)
        P->row_ptr[i + 1] = i + 1, P->col[i] = D->agg_start[b] + D->agg[i], P->val[i] = 1.0;
    insdg_csr *R = insdg_csr_transpose(P);
    D->Ac = insdg_csr_galerkin(R, A1, P);
    insdg_csr_destroy(R), insdg_csr_destroy(P);
    if (coarse == INSDG_PMG_COARSE_AUTO || coarse == INSDG_PMG_COARSE_CHOLESKY) {
      int *perm = insdg_malloc(sizeof(int) * (size_t)(nc > 0 ? nc : 1));
      insdg_partition_nd_order(nc, D->Ac->row_ptr, D->Ac->col, perm);
      D->chol = insdg_spchol_factor(D->Ac, perm, INSDG_PMG_COARSE_MAX_BYTES);
      free(perm);
      if (coarse == INSDG_PMG_COARSE_CHOLESKY) INSDG_CHECK(D->chol);
    }
    if (coarse == INSDG_PMG_COARSE_BAND) {
      D->band = insdg_band_factor(D->Ac, D->Ac->nrows, INSDG_PMG_COARSE_MAX_BYTES);
      INSDG_CHECK(D->band);
    }
    if (!D->chol && !D->band) {
      const insdg_amg_opts o = {.kcycle_levels = 1};   /* with the K-cycle step above: two K levels */
      D->amg = insdg_amg_setup(D->Ac, &o);
    }
    pmg->coarse_mem = insdg_calloc((size_t)nc, sizeof(double));
  }
  starpu_vector_data_register(&pmg->coarse, STARPU_MAIN_RAM, (uintptr_t)pmg->coarse_mem, (uint32_t)nc, sizeof(double));
  c->block = block;
  c->dinv = block ? insdg_sipdg_inverse_blocks(c->Tp, bc, lambda) : inverse_diagonal(A1);
  insdg_csr_destroy(A1);
}

insdg_pmg *insdg_pmg_create(insdg_tasks *fine, const insdg_mesh *mesh, const signed char *bc, double lambda,
                            const insdg_pmg_opts *opts)
{
  insdg_pmg *pmg = insdg_calloc(1, sizeof *pmg);
  int deg[INSDG_NMAX + 1];
  const int N = fine->L->mesh->ref->N;
  int nd = opts && opts->ndegrees > 0 ? opts->ndegrees : default_degrees(N, deg);
  if (opts && opts->ndegrees > 0) memcpy(deg, opts->degrees, sizeof(int) * (size_t)nd);
  INSDG_CHECK(deg[0] == N && deg[nd - 1] == 1);
  for (int k = 1; k < nd; ++k) INSDG_CHECK(deg[k] < deg[k - 1]);
  pmg->nlevels = nd;
  pmg->cheb_degree = opts && opts->cheb_degree > 0 ? opts->cheb_degree : 4;
  /* a degree-2 polynomial cannot damp a wide interval: [lmax/4, 1.1 lmax] for it, [lmax/10, ...] above
     (docs/solvers.md, "The pMG-AMG smoother") */
  pmg->cheb_lower = opts && opts->cheb_lower > 0 ? opts->cheb_lower : pmg->cheb_degree <= 2 ? 0.25 : 0.1;
  const int block = !opts || opts->smoother != INSDG_PMG_POINT_JACOBI;
  pmg->bc = bc, pmg->lambda = lambda, pmg->rank = fine->rank;
  pmg->lev = insdg_calloc((size_t)nd, sizeof(level));
  char err[INSDG_ERRMSG_LEN];
  for (int l = 0; l < nd; ++l) {
    level *v = &pmg->lev[l];
    v->N = deg[l];
    if (l == 0) {
      v->ref = (insdg_ref *)fine->L->mesh->ref, v->op = (insdg_ops *)fine->op, v->L = (insdg_layout *)fine->L;
      v->Tp = fine;
    } else {
      v->ref = insdg_ref_create(v->N);
      v->op = insdg_ops_create(v->ref);
      if (insdg_layout_create(mesh, v->ref, fine->size, fine->L->B, &v->L, err, sizeof err)) insdg_internal_error(__FILE__, __LINE__, err);
      INSDG_CHECK(!memcmp(v->L->old_elem, fine->L->old_elem, sizeof(int) * (size_t)mesh->K));   /* same numbering */
      insdg_tasks_init(&v->T, v->L, v->op);
      v->Tp = &v->T;
    }
    v->fuse_steps = !(opts && opts->separate_tasks);
    v->alternate = insdg_task_sipdg_in_parts(v->Tp) || v->fuse_steps;
    make_level_fields(v);
    if (l + 1 < nd) {   /* the degree-1 level takes its diagonal from the matrix it assembles */
      v->block = block;
      v->dinv = block ? insdg_sipdg_inverse_blocks(v->Tp, bc, lambda) : insdg_sipdg_inverse_diagonal(v->Tp, bc, lambda);
    }
  }
  for (int l = 0; l + 1 < nd; ++l) {
    level *v = &pmg->lev[l];
    v->P = insdg_malloc(sizeof(double) * (size_t)v->ref->Np * pmg->lev[l + 1].ref->Np);
    insdg_ref_interp_matrix(pmg->lev[l + 1].ref, v->ref, v->P);
    const int npf = v->ref->Np, npc = pmg->lev[l + 1].ref->Np;
    v->PT = insdg_malloc(sizeof(double) * (size_t)npf * npc);
    for (int i = 0; i < npf; ++i)
      for (int j = 0; j < npc; ++j) v->PT[(size_t)j * npf + i] = v->P[(size_t)i * npc + j];
  }
  setup_degree1(pmg, &pmg->lev[nd - 1], bc, lambda, block, opts ? opts->coarse : INSDG_PMG_COARSE_AUTO);
  for (int l = 0; l < nd; ++l) pmg->lev[l].lambda_max = estimate_lambda_max(pmg, &pmg->lev[l]);
  return pmg;
}

void insdg_pmg_destroy(insdg_pmg *pmg)
{
  if (!pmg) return;
#ifdef INSDG_STARPU_GPU
  insdg_starpu_gpu_invalidate();   /* device copies of the arrays freed below */
#endif
  dist_level *D = &pmg->D;
  const int B = pmg->lev[pmg->nlevels - 1].L->B;
  insdg_runtime_unregister(pmg->coarse);
  free(pmg->coarse_mem);
  for (int b = 0; b < B; ++b) {
    if (D->piece[b]) insdg_runtime_unregister(D->piece[b]);
    free(D->piece_mem[b]);
    if (D->rows[b]) insdg_csr_destroy(D->rows[b]);
  }
  insdg_xplan_recv_destroy(D->x, D->in_recv, D->in_recv_mem), insdg_xplan_recv_destroy(D->x, D->out_recv, D->out_recv_mem);
  insdg_xplan_destroy(D->x);
  free(D->counts), free(D->displs);
  for (int p = 0; p < D->npairs; ++p) free(D->pair[p].src_node);
  free(D->pair), free(D->pairs_into), free(D->nhalo), free(D->agg), free(D->agg_start), free(D->rows);
  free(D->piece), free(D->piece_mem);
  if (D->amg) insdg_amg_destroy(D->amg);
  insdg_band_destroy(D->band);
  insdg_spchol_destroy(D->chol);
  if (D->Ac) insdg_csr_destroy(D->Ac);
  for (int l = 0; l < pmg->nlevels; ++l) {
    level *v = &pmg->lev[l];
    insdg_dfield *f[] = {v->x, v->b, v->r, v->d, v->z, v->Ad, v->ux, v->uy, v->d2, v->ux2, v->uy2};
    for (size_t k = 0; k < sizeof f / sizeof f[0]; ++k) insdg_dfield_destroy(f[k]);
    free(v->dinv), free(v->P), free(v->PT);
    if (l > 0) insdg_tasks_fini(&v->T), insdg_layout_destroy(v->L), insdg_ops_destroy(v->op), insdg_ref_destroy(v->ref);
  }
  free(pmg->lev);
  free(pmg);
}

size_t insdg_pmg_memory(const insdg_pmg *pmg)
{
  size_t bytes = 0;
  for (int l = 0; l < pmg->nlevels; ++l) {
    const level *v = &pmg->lev[l];
    const size_t n = (size_t)v->L->mesh->K * v->ref->Np;
    bytes += n * sizeof(double) * (size_t)(v->block ? v->ref->Np : 1);   /* (block) diagonal inverse */
    bytes += (insdg_task_sipdg_in_parts(v->Tp) ? 11 : 8) * n * sizeof(double) / (size_t)v->Tp->size;   /* level fields, this rank's share */
    if (v->P) bytes += 2 * sizeof(double) * (size_t)v->ref->Np * pmg->lev[l + 1].ref->Np;   /* P, PT */
  }
  const dist_level *D = &pmg->D;
  const insdg_layout *L1 = pmg->lev[pmg->nlevels - 1].L;
  for (int b = 0; b < L1->B; ++b)
    if (D->rows[b]) bytes += insdg_csr_memory(D->rows[b]) + sizeof(double) * (size_t)D->nhalo[b];
  bytes += sizeof(int) * (size_t)L1->mesh->K * 3;   /* aggregates */
  return bytes + insdg_pmg_coarse_memory(pmg);
}

size_t insdg_pmg_coarse_memory(const insdg_pmg *pmg)
{
  const dist_level *D = &pmg->D;   /* the correction, and the coarse task's gathered residual and own pieces */
  return D->Ac ? insdg_csr_memory(D->Ac) + (D->amg ? insdg_amg_memory(D->amg) : 0) + insdg_band_memory(D->band) + insdg_spchol_memory(D->chol) +
                     3 * sizeof(double) * (size_t)D->Ac->nrows
               : 0;
}

void insdg_pmg_coarse_time(const insdg_pmg *pmg, double seconds[2], long *calls)
{
  seconds[0] = pmg->coarse_s[0], seconds[1] = pmg->coarse_s[1], *calls = pmg->coarse_calls;
}

int insdg_pmg_coarse_solve(const insdg_pmg *pmg, int *n, long *size)
{
  *n = pmg->D.Ac ? pmg->D.Ac->nrows : 0;
  *size = pmg->D.chol ? insdg_spchol_nnz(pmg->D.chol) : pmg->D.band ? insdg_band_width(pmg->D.band) : 0;
  return pmg->D.chol ? INSDG_PMG_COARSE_CHOLESKY : pmg->D.band ? INSDG_PMG_COARSE_BAND : INSDG_PMG_COARSE_AMG;
}

void insdg_pmg_print(const insdg_pmg *pmg, FILE *f)
{
  fprintf(f, "pMG degrees:");
  for (int l = 0; l < pmg->nlevels; ++l) fprintf(f, " %d", pmg->lev[l].N);
  fprintf(f, "; Chebyshev degree %d on [%g, 1.1] lambda_max of D^-1 A, D = %s:", pmg->cheb_degree, pmg->cheb_lower,
          pmg->lev[0].block ? "element blocks" : "diagonal");
  for (int l = 0; l + 1 < pmg->nlevels; ++l) fprintf(f, " %.3f", pmg->lev[l].lambda_max);
  fprintf(f, "\n");
  const dist_level *D = &pmg->D;
  const insdg_layout *L1 = pmg->lev[pmg->nlevels - 1].L;
  fprintf(f, "degree-1 level: %d rows over %d blocks, %d column-halo pairs, %d block-local aggregates\n",
          L1->mesh->K * 3, L1->B, D->npairs, D->agg_start[L1->B]);
  if (D->chol)
    fprintf(f, "coarse solve: sparse Cholesky of the %d aggregates' matrix (nested dissection, %ld factor entries, %.1f MB)\n",
            insdg_spchol_rows(D->chol), insdg_spchol_nnz(D->chol), insdg_spchol_memory(D->chol) / 1048576.0);
  if (D->band)
    fprintf(f, "coarse solve: banded Cholesky of the %d aggregates' matrix (RCM, half bandwidth %d, %.1f MB)\n",
            insdg_band_rows(D->band), insdg_band_width(D->band), insdg_band_memory(D->band) / 1048576.0);
  if (D->amg) insdg_amg_print(D->amg, f);
}
