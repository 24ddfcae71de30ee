/* pmg.c -- pMG-AMG on the task graph (pmg.h). The V-cycle below reads as the algorithm:
 * smooth, residual, restrict, recurse, prolong, smooth; every line submits tasks. */
#include "pmg.h"

#include <math.h>
#include <starpu_mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "amg.h"
#include "assemble.h"
#include "error.h"
#include "ops_tasks.h"

typedef struct {
  int N;
  insdg_ref *ref;        /* owned on coarse levels */
  insdg_ops *op;         /* owned on coarse levels */
  insdg_layout *L;       /* owned on coarse levels */
  insdg_tasks T;         /* own context on coarse levels */
  insdg_tasks *Tp;       /* the context tasks of this level use */
  double *dinv;          /* [K][Np] Jacobi diagonal inverse */
  double lambda_max;     /* of D^-1 A, estimated */
  insdg_dfield *x, *b, *r, *d, *z, *Ad, *ux, *uy;
  double *P;             /* [Np][Np_coarser]: interpolation from the next level (NULL on the last) */
} level;

struct insdg_pmg {
  int nlevels, cheb_degree;
  level *lev;
  const signed char *bc;
  double lambda;
  insdg_csr *A1;         /* rank 0: assembled degree-1 operator */
  insdg_amg *amg;        /* rank 0 */
  starpu_data_handle_t coarse;   /* the whole degree-1 vector, owned by rank 0 */
  double *coarse_mem;
  int rank;
};

double *insdg_sipdg_inverse_diagonal(const insdg_mesh *m, const insdg_ops *op, const signed char *bc, double lambda)
{
  insdg_csr *A = insdg_assemble_sipdg(m, op, bc, lambda);
  const size_t n = (size_t)m->K * op->ref->Np;
  double *d = insdg_malloc(sizeof(double) * n);
  insdg_csr_diagonal(A, d);
  for (size_t i = 0; i < n; ++i) {
    INSDG_CHECK(d[i] > 0);
    d[i] = 1.0 / d[i];
  }
  insdg_csr_destroy(A);
  return d;
}

/* ---- transfers and the coarse solve as codelets ---------------------------------------- */
typedef struct {
  const double *P;
  int Npf, Npc, K, prolong;
} transfer_args;

static void transfer_cpu(void *buffers[], void *cl_arg)
{
  transfer_args a;
  starpu_codelet_unpack_args(cl_arg, &a);
  const double *src = (const double *)STARPU_VECTOR_GET_PTR(buffers[0]);
  double *dst = (double *)STARPU_VECTOR_GET_PTR(buffers[1]);
  for (int e = 0; e < a.K; ++e) {
    if (a.prolong) {   /* fine += P coarse */
      const double *c = src + (size_t)e * a.Npc;
      double *f = dst + (size_t)e * a.Npf;
      for (int i = 0; i < a.Npf; ++i) {
        double s = 0;
        for (int j = 0; j < a.Npc; ++j) s += a.P[i * a.Npc + j] * c[j];
        f[i] += s;
      }
    } else {           /* coarse = P^T fine */
      const double *f = src + (size_t)e * a.Npf;
      double *c = dst + (size_t)e * a.Npc;
      for (int j = 0; j < a.Npc; ++j) c[j] = 0;
      for (int i = 0; i < a.Npf; ++i)
        for (int j = 0; j < a.Npc; ++j) c[j] += a.P[i * a.Npc + j] * f[i];
    }
  }
}

static struct starpu_codelet transfer_cl = {
    .cpu_funcs = {transfer_cpu}, .nbuffers = 2, .modes = {STARPU_R, STARPU_RW}, .name = "insdg_pmg_transfer"};
static struct starpu_codelet restrict_cl = {
    .cpu_funcs = {transfer_cpu}, .nbuffers = 2, .modes = {STARPU_R, STARPU_W}, .name = "insdg_pmg_restrict"};

/* fine level l, coarse level l+1 */
static void submit_transfer(insdg_pmg *pmg, int l, int prolong)
{
  level *f = &pmg->lev[l], *c = &pmg->lev[l + 1];
  const insdg_layout *L = f->L;
  for (int b = 0; b < L->B; ++b) {
    transfer_args a = {f->P, f->ref->Np, c->ref->Np, L->block[b]->K, prolong};
    const int status =
        prolong ? starpu_mpi_task_insert(f->Tp->comm, &transfer_cl, STARPU_R, c->x->block[b], STARPU_RW, f->x->block[b],
                                         STARPU_VALUE, &a, sizeof a, 0)
                : starpu_mpi_task_insert(f->Tp->comm, &restrict_cl, STARPU_R, f->r->block[b], STARPU_W, c->b->block[b],
                                         STARPU_VALUE, &a, sizeof a, 0);
    INSDG_CHECK(status == 0);
  }
}

typedef struct {
  const insdg_amg *amg;
  int nblocks;
} coarse_args;

static void coarse_cpu(void *buffers[], void *cl_arg)
{
  coarse_args a;
  starpu_codelet_unpack_args(cl_arg, &a);
  double *out = (double *)STARPU_VECTOR_GET_PTR(buffers[a.nblocks]);
  const size_t n = STARPU_VECTOR_GET_NX(buffers[a.nblocks]);
  double *rhs = insdg_malloc(sizeof(double) * n);
  size_t at = 0;   /* blocks are contiguous in the renumbered order: concatenate */
  for (int b = 0; b < a.nblocks; ++b) {
    const size_t nb = STARPU_VECTOR_GET_NX(buffers[b]);
    memcpy(rhs + at, (const double *)STARPU_VECTOR_GET_PTR(buffers[b]), sizeof(double) * nb);
    at += nb;
  }
  INSDG_CHECK(at == n);
  insdg_amg_apply(a.amg, rhs, out);
  free(rhs);
}

static struct starpu_codelet coarse_cl = {
    .cpu_funcs = {coarse_cpu}, .nbuffers = STARPU_VARIABLE_NBUFFERS, .name = "insdg_pmg_coarse_amg"};

typedef struct {
  size_t offset, n;
} scatter_args;

static void scatter_cpu(void *buffers[], void *cl_arg)
{
  scatter_args a;
  starpu_codelet_unpack_args(cl_arg, &a);
  memcpy((double *)STARPU_VECTOR_GET_PTR(buffers[1]), (const double *)STARPU_VECTOR_GET_PTR(buffers[0]) + a.offset,
         sizeof(double) * a.n);
}

static struct starpu_codelet scatter_cl = {
    .cpu_funcs = {scatter_cpu}, .nbuffers = 2, .modes = {STARPU_R, STARPU_W}, .name = "insdg_pmg_scatter"};

static void coarse_solve(insdg_pmg *pmg)
{
  level *c = &pmg->lev[pmg->nlevels - 1];
  const insdg_layout *L = c->L;
  struct starpu_data_descr *d = insdg_malloc(sizeof *d * ((size_t)L->B + 1));
  for (int b = 0; b < L->B; ++b) d[b] = (struct starpu_data_descr){c->b->block[b], STARPU_R};
  d[L->B] = (struct starpu_data_descr){pmg->coarse, STARPU_W};
  coarse_args a = {pmg->amg, L->B};
  INSDG_CHECK(starpu_mpi_task_insert(c->Tp->comm, &coarse_cl, STARPU_DATA_MODE_ARRAY, d, L->B + 1, STARPU_VALUE, &a,
                                     sizeof a, 0) == 0);
  free(d);
  for (int b = 0; b < L->B; ++b) {
    scatter_args s = {(size_t)L->block_start[b] * c->ref->Np, (size_t)L->block[b]->K * c->ref->Np};
    INSDG_CHECK(starpu_mpi_task_insert(c->Tp->comm, &scatter_cl, STARPU_R, pmg->coarse, STARPU_W, c->x->block[b],
                                       STARPU_VALUE, &s, sizeof s, 0) == 0);
  }
}

/* ---- smoothing ----------------------------------------------------------------------- */
static void apply_A(insdg_pmg *pmg, level *v, insdg_dfield *in, insdg_dfield *out)
{
  insdg_task_sipdg(pmg->bc, pmg->lambda, in, v->ux, v->uy, out);
}

/* Chebyshev iteration on D^-1 A over [lmax/4, 1.1 lmax]; x = 0 on entry when zero_guess */
static void chebyshev(insdg_pmg *pmg, level *v, int zero_guess)
{
  const double upper = 1.1 * v->lambda_max, lower = 0.25 * v->lambda_max;
  const double theta = 0.5 * (upper + lower), delta = 0.5 * (upper - lower), sigma = theta / delta;
  double rho_old = 1.0 / sigma;
  if (zero_guess) {
    insdg_task_copy(v->b, v->r);
  } else {
    apply_A(pmg, v, v->x, v->Ad);
    insdg_task_sub(v->b, v->Ad, v->r);
  }
  insdg_task_jacobi(v->dinv, v->r, v->z);
  insdg_task_axpby(1.0 / theta, v->z, 0.0, v->d);
  if (zero_guess) insdg_task_copy(v->d, v->x);
  else insdg_task_axpby(1.0, v->d, 1.0, v->x);
  for (int k = 2; k <= pmg->cheb_degree; ++k) {
    apply_A(pmg, v, v->d, v->Ad);
    insdg_task_axpby(-1.0, v->Ad, 1.0, v->r);
    const double rho = 1.0 / (2.0 * sigma - rho_old);
    insdg_task_jacobi(v->dinv, v->r, v->z);
    insdg_task_axpby(2.0 * rho / delta, v->z, rho * rho_old, v->d);
    insdg_task_axpby(1.0, v->d, 1.0, v->x);
    rho_old = rho;
  }
}

static void vcycle(insdg_pmg *pmg, int l)
{
  if (l == pmg->nlevels - 1) {
    coarse_solve(pmg);
    return;
  }
  level *v = &pmg->lev[l];
  chebyshev(pmg, v, 1);
  apply_A(pmg, v, v->x, v->Ad);
  insdg_task_sub(v->b, v->Ad, v->r);
  submit_transfer(pmg, l, 0);
  vcycle(pmg, l + 1);
  submit_transfer(pmg, l, 1);
  chebyshev(pmg, v, 0);
}

void insdg_pmg_apply(void *ctx, insdg_dfield *in, insdg_dfield *out)
{
  insdg_pmg *pmg = ctx;
  level *f = &pmg->lev[0];
  insdg_task_copy(in, f->b);
  vcycle(pmg, 0);
  insdg_task_copy(f->x, out);
}

/* ---- setup ----------------------------------------------------------------------------- */
static int default_degrees(int N, int *deg)
{
  int n = 0;
  deg[n++] = N;
  while (N > 1) N = (N + 1) / 2, deg[n++] = N;
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
    apply_A(pmg, v, v->x, v->Ad);
    insdg_task_jacobi(v->dinv, v->Ad, v->z);
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
  insdg_dfield **f[] = {&v->x, &v->b, &v->r, &v->d, &v->z, &v->Ad, &v->ux, &v->uy};
  for (size_t k = 0; k < sizeof f / sizeof f[0]; ++k) *f[k] = insdg_dfield_create(v->Tp);
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
  pmg->cheb_degree = opts && opts->cheb_degree > 0 ? opts->cheb_degree : 2;
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
    make_level_fields(v);
    v->dinv = insdg_sipdg_inverse_diagonal(v->L->mesh, v->op, bc, lambda);
  }
  for (int l = 0; l + 1 < nd; ++l) {
    level *v = &pmg->lev[l];
    v->P = insdg_malloc(sizeof(double) * (size_t)v->ref->Np * pmg->lev[l + 1].ref->Np);
    insdg_ref_interp_matrix(pmg->lev[l + 1].ref, v->ref, v->P);
    v->lambda_max = estimate_lambda_max(pmg, v);
  }
  /* degree 1: assembled matrix and AMG on rank 0, and the whole-vector handle */
  level *c = &pmg->lev[nd - 1];
  const int n1 = c->L->mesh->K * c->ref->Np;
  if (pmg->rank == 0) {
    pmg->A1 = insdg_assemble_sipdg(c->L->mesh, c->op, bc, lambda);
    pmg->amg = insdg_amg_setup(pmg->A1, NULL);
    pmg->coarse_mem = insdg_calloc((size_t)n1, sizeof(double));
  }
  starpu_vector_data_register(&pmg->coarse, pmg->rank == 0 ? STARPU_MAIN_RAM : -1, (uintptr_t)pmg->coarse_mem,
                              (uint32_t)n1, sizeof(double));
  starpu_mpi_data_register(pmg->coarse, insdg_runtime_new_tag(), 0);
  return pmg;
}

void insdg_pmg_destroy(insdg_pmg *pmg)
{
  if (!pmg) return;
  starpu_data_unregister(pmg->coarse);
  free(pmg->coarse_mem);
  if (pmg->amg) insdg_amg_destroy(pmg->amg);
  if (pmg->A1) insdg_csr_destroy(pmg->A1);
  for (int l = 0; l < pmg->nlevels; ++l) {
    level *v = &pmg->lev[l];
    insdg_dfield *f[] = {v->x, v->b, v->r, v->d, v->z, v->Ad, v->ux, v->uy};
    for (size_t k = 0; k < sizeof f / sizeof f[0]; ++k) insdg_dfield_destroy(f[k]);
    free(v->dinv), free(v->P);
    if (l > 0) insdg_layout_destroy(v->L), insdg_ops_destroy(v->op), insdg_ref_destroy(v->ref);
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
    bytes += n * sizeof(double);                 /* diagonal */
    bytes += 8 * n * sizeof(double) / (size_t)v->Tp->size;   /* level fields, this rank's share */
    if (v->P) bytes += sizeof(double) * (size_t)v->ref->Np * pmg->lev[l + 1].ref->Np;
  }
  if (pmg->A1) bytes += insdg_csr_memory(pmg->A1) + insdg_amg_memory(pmg->amg) +
                        sizeof(double) * (size_t)pmg->A1->nrows;
  return bytes;
}

void insdg_pmg_print(const insdg_pmg *pmg, FILE *f)
{
  fprintf(f, "pMG degrees:");
  for (int l = 0; l < pmg->nlevels; ++l) fprintf(f, " %d", pmg->lev[l].N);
  fprintf(f, "; Chebyshev degree %d; lambda_max(D^-1 A):", pmg->cheb_degree);
  for (int l = 0; l + 1 < pmg->nlevels; ++l) fprintf(f, " %.3f", pmg->lev[l].lambda_max);
  fprintf(f, "\n");
  if (pmg->amg) insdg_amg_print(pmg->amg, f);
}
