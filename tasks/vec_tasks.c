/* vec_tasks.c -- codelets for vector updates, dot products and their reduction
 * (vec_tasks.h). One codelet, `vec_op`, does every block-local update; its buffers are
 * [vectors (nvec)] [scalar values read by the coefficient (0..2)]. */
#include "vec_tasks.h"

#include <starpu_mpi.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "starpu_gpu.h"

/* ---- distributed scalars ------------------------------------------------------------ */
static void register_small(insdg_tasks *T, starpu_data_handle_t *h, double **mem, int n, int owner)
{
  *mem = owner == T->rank ? insdg_calloc((size_t)n, sizeof(double)) : NULL;
  starpu_vector_data_register(h, *mem ? STARPU_MAIN_RAM : -1, (uintptr_t)*mem, (uint32_t)n, sizeof(double));
  starpu_mpi_data_register(*h, insdg_runtime_new_tag(), owner);
}

insdg_dscalar *insdg_dscalar_create(insdg_tasks *T, int ncomp)
{
  INSDG_CHECK(ncomp >= 1 && ncomp <= INSDG_DSCALAR_MAX);
  const insdg_layout *L = T->L;
  insdg_dscalar *s = insdg_calloc(1, sizeof *s);
  s->T = T, s->ncomp = ncomp;
  s->partial = insdg_calloc((size_t)L->B, sizeof(starpu_data_handle_t));
  s->partial_mem = insdg_calloc((size_t)L->B, sizeof(double *));
  s->value = insdg_calloc((size_t)T->size, sizeof(starpu_data_handle_t));
  s->value_mem = insdg_calloc((size_t)T->size, sizeof(double *));
  for (int b = 0; b < L->B; ++b) register_small(T, &s->partial[b], &s->partial_mem[b], ncomp, L->block_rank[b]);
  for (int r = 0; r < T->size; ++r) register_small(T, &s->value[r], &s->value_mem[r], ncomp, r);
  return s;
}

void insdg_dscalar_destroy(insdg_dscalar *s)
{
  if (!s) return;
  for (int b = 0; b < s->T->L->B; ++b) starpu_data_unregister(s->partial[b]), free(s->partial_mem[b]);
  for (int r = 0; r < s->T->size; ++r) starpu_data_unregister(s->value[r]), free(s->value_mem[r]);
  free(s->partial), free(s->partial_mem), free(s->value), free(s->value_mem);
  free(s);
}

double insdg_dscalar_get(insdg_dscalar *s, int c)
{
  starpu_data_handle_t h = s->value[s->T->rank];
  insdg_runtime_waited();
  starpu_data_acquire(h, STARPU_R);
  const double v = s->value_mem[s->T->rank][c];
  starpu_data_release(h);
  return v;
}

/* ---- codelets -------------------------------------------------------------------------- */
enum vec_kind { V_AXPY, V_XPAY, V_COPY, V_SUB, V_INVMASS, V_JACOBI, V_DOTS, V_REDUCE, V_AXPBY, V_MASS };

typedef struct {
  int kind;
  int n;               /* vector length (block nodes); for V_REDUCE: number of partials */
  int ndots;           /* V_DOTS, V_REDUCE: components */
  double sign;         /* coefficient: sign * num / den */
  double alpha, beta;  /* V_AXPBY constants */
  int num_comp, den_comp, has_num, has_den;
  const insdg_ops *op;
  const insdg_block *b;
  const double *dinv;  /* V_JACOBI: the block's part */
} vec_args;

static double coefficient(const vec_args *a, void *buffers[], int first_scalar)
{
  double c = a->sign;
  int k = first_scalar;
  if (a->has_num) c *= ((const double *)STARPU_VECTOR_GET_PTR(buffers[k++]))[a->num_comp];
  if (a->has_den) c /= ((const double *)STARPU_VECTOR_GET_PTR(buffers[k]))[a->den_comp];
  return c;
}

static void vec_op_cpu(void *buffers[], void *cl_arg)
{
  vec_args a;
  starpu_codelet_unpack_args(cl_arg, &a);
#define VEC(i) ((double *)STARPU_VECTOR_GET_PTR(buffers[i]))
  switch (a.kind) {
    case V_AXPY: {   /* [x, y, scalars] */
      const double c = coefficient(&a, buffers, 2), *x = VEC(0);
      double *y = VEC(1);
      for (int i = 0; i < a.n; ++i) y[i] += c * x[i];
      break;
    }
    case V_XPAY: {
      const double c = coefficient(&a, buffers, 2), *x = VEC(0);
      double *y = VEC(1);
      for (int i = 0; i < a.n; ++i) y[i] = x[i] + c * y[i];
      break;
    }
    case V_AXPBY: {
      const double *x = VEC(0);
      double *y = VEC(1);
      if (a.beta == 0.0)   /* y may be uninitialised: never read it */
        for (int i = 0; i < a.n; ++i) y[i] = a.alpha * x[i];
      else
        for (int i = 0; i < a.n; ++i) y[i] = a.alpha * x[i] + a.beta * y[i];
      break;
    }
    case V_COPY:
      memcpy(VEC(1), VEC(0), sizeof(double) * (size_t)a.n);
      break;
    case V_SUB: {
      const double *x = VEC(0), *y = VEC(1);
      double *z = VEC(2);
      for (int i = 0; i < a.n; ++i) z[i] = x[i] - y[i];
      break;
    }
    case V_INVMASS: {
      const insdg_ref *ref = a.op->ref;
      const int Np = ref->Np;
      const double *r = VEC(0);
      double *z = VEC(1);
      for (int e = 0; e < a.b->K; ++e) {
        const double invJ = 1.0 / a.b->vgeo[(size_t)e * INSDG_NVGEO + INSDG_J];
        for (int i = 0; i < Np; ++i) {
          double sum = 0;
          for (int j = 0; j < Np; ++j) sum += ref->invM[i * Np + j] * r[(size_t)e * Np + j];
          z[(size_t)e * Np + i] = invJ * sum;
        }
      }
      break;
    }
    case V_MASS: {   /* z = alpha J M r per element */
      const insdg_ref *ref = a.op->ref;
      const int Np = ref->Np;
      const double *r = VEC(0);
      double *z = VEC(1);
      for (int e = 0; e < a.b->K; ++e) {
        const double scale = a.alpha * a.b->vgeo[(size_t)e * INSDG_NVGEO + INSDG_J];
        for (int i = 0; i < Np; ++i) {
          double sum = 0;
          for (int j = 0; j < Np; ++j) sum += ref->M[i * Np + j] * r[(size_t)e * Np + j];
          z[(size_t)e * Np + i] = scale * sum;
        }
      }
      break;
    }
    case V_JACOBI: {
      const double *r = VEC(0);
      double *z = VEC(1);
      for (int i = 0; i < a.n; ++i) z[i] = a.dinv[i] * r[i];
      break;
    }
    case V_DOTS: {   /* [x0, y0, x1, y1, ..., partial] */
      double *partial = VEC(2 * a.ndots);
      for (int k = 0; k < a.ndots; ++k) {
        const double *x = VEC(2 * k), *y = VEC(2 * k + 1);
        double sum = 0;
        for (int i = 0; i < a.n; ++i) sum += x[i] * y[i];
        partial[k] = sum;
      }
      break;
    }
    case V_REDUCE: {   /* [partial_0 .. partial_{B-1}, value]: in block order */
      double *value = VEC(a.n);
      for (int k = 0; k < a.ndots; ++k) value[k] = 0;
      for (int b = 0; b < a.n; ++b)
        for (int k = 0; k < a.ndots; ++k) value[k] += VEC(b)[k];
      break;
    }
    default:
      INSDG_CHECK(!"unknown vector operation");
  }
#undef VEC
}

#ifdef INSDG_STARPU_GPU
static const double *scalar_dev(void *buffers[], int k, int comp)
{
  return (const double *)STARPU_VECTOR_GET_PTR(buffers[k]) + comp;
}

/* the coefficient with its scalars read on the device (insdg_gpu_coef) */
static insdg_gpu_coef coefficient_dev(const vec_args *a, void *buffers[], int first_scalar)
{
  insdg_gpu_coef c = {a->sign, NULL, NULL};
  int k = first_scalar;
  if (a->has_num) c.num = scalar_dev(buffers, k++, a->num_comp);
  if (a->has_den) c.den = scalar_dev(buffers, k, a->den_comp);
  return c;
}

static void vec_op_cuda(void *buffers[], void *cl_arg)
{
  vec_args a;
  starpu_codelet_unpack_args(cl_arg, &a);
#ifdef INSDG_GPU_CODELETS_ON_CPU
  if (a.kind == V_DOTS) {   /* the emulation runs the 256-block reduction in ~0.1 s: too slow for a run */
    vec_op_cpu(buffers, cl_arg);
    return;
  }
#endif
  void *stream = insdg_starpu_gpu_stream();
  const size_t n = (size_t)a.n;
#define VEC(i) ((double *)STARPU_VECTOR_GET_PTR(buffers[i]))
  int rc = INSDG_GPU_EBADARG;
  switch (a.kind) {
    case V_AXPY: rc = insdg_gpu_axpy(n, coefficient_dev(&a, buffers, 2), VEC(0), VEC(1), stream); break;
    case V_XPAY: rc = insdg_gpu_xpay(n, VEC(0), coefficient_dev(&a, buffers, 2), VEC(1), stream); break;
    case V_AXPBY: rc = insdg_gpu_axpby(n, a.alpha, VEC(0), a.beta, VEC(1), stream); break;
    case V_COPY: rc = insdg_gpu_copy(n, VEC(0), VEC(1), stream); break;
    case V_SUB: rc = insdg_gpu_sub(n, VEC(0), VEC(1), VEC(2), stream); break;
    case V_INVMASS:
      rc = insdg_gpu_inverse_mass(insdg_starpu_gpu_ref(a.op->ref), insdg_starpu_gpu_block(a.b), VEC(0), VEC(1), stream);
      break;
    case V_MASS:
      rc = insdg_gpu_mass(insdg_starpu_gpu_ref(a.op->ref), insdg_starpu_gpu_block(a.b), a.alpha, VEC(0), VEC(1),
                          stream);
      break;
    case V_JACOBI:
      rc = insdg_gpu_jacobi(n, insdg_starpu_gpu_static(a.dinv, sizeof(double) * n), VEC(0), VEC(1), stream);
      break;
    case V_DOTS: {
      const double *x[INSDG_DSCALAR_MAX], *y[INSDG_DSCALAR_MAX];
      for (int k = 0; k < a.ndots; ++k) x[k] = VEC(2 * k), y[k] = VEC(2 * k + 1);
      double *work = insdg_starpu_gpu_scratch(2, sizeof(double) * (size_t)a.ndots * INSDG_GPU_DOTS_BLOCKS, stream);
      rc = insdg_gpu_dots(n, a.ndots, x, y, VEC(2 * a.ndots), work, stream);
      break;
    }
    default:
      INSDG_CHECK(!"vector operation without a CUDA implementation");
  }
#undef VEC
  insdg_starpu_gpu_check(rc, "vector operation");
}
#endif

/* every vector operation but the reduction, which sums a few partials on a CPU */
static struct starpu_codelet vec_cl = {
    INSDG_CODELET_FUNCS(vec_op_cpu, vec_op_cuda)
    .nbuffers = STARPU_VARIABLE_NBUFFERS, .name = "insdg_vec"};
static struct starpu_codelet reduce_cl = {
    .cpu_funcs = {vec_op_cpu}, .nbuffers = STARPU_VARIABLE_NBUFFERS, .name = "insdg_reduce"};
static const char *vec_name[] = {"axpy", "xpay", "copy", "sub", "inverse_mass", "jacobi", "dots", "reduce", "axpby", "mass"};

static void insert(insdg_tasks *T, vec_args *a, struct starpu_data_descr *d, int nd)
{
#ifdef INSDG_STARPU_GPU
  vec_cl.where = insdg_starpu_gpu_where();
#endif
  struct starpu_codelet *cl = a->kind == V_REDUCE ? &reduce_cl : &vec_cl;
  const int status = INSDG_TASK_INSERT(T->comm, cl, STARPU_DATA_MODE_ARRAY, d, nd, STARPU_VALUE, a,
                                            sizeof *a, STARPU_NAME, vec_name[a->kind], 0);
  INSDG_CHECK(status == 0);
}

/* one task per block on vectors vec[] (modes[]) and the coefficient's scalars */
static void per_block(vec_args proto, insdg_dfield **vec, const enum starpu_data_access_mode *modes, int nvec,
                      const insdg_coef *c)
{
  insdg_tasks *T = vec[0]->T;
  const insdg_layout *L = T->L;
  const int Np = L->mesh->ref->Np;
  for (int b = 0; b < L->B; ++b) {
    vec_args a = proto;
    a.n = L->block[b]->K * Np, a.op = T->op, a.b = L->block[b];
    if (a.dinv) a.dinv += (size_t)L->block_start[b] * Np;
    struct starpu_data_descr d[8];
    int nd = 0;
    for (int k = 0; k < nvec; ++k) d[nd++] = (struct starpu_data_descr){vec[k]->block[b], modes[k]};
    if (c) {
      const int r = L->block_rank[b];
      a.sign = c->sign, a.has_num = c->num.s != NULL, a.has_den = c->den.s != NULL;
      a.num_comp = c->num.comp, a.den_comp = c->den.comp;
      if (a.has_num) d[nd++] = (struct starpu_data_descr){c->num.s->value[r], STARPU_R};
      if (a.has_den) d[nd++] = (struct starpu_data_descr){c->den.s->value[r], STARPU_R};
    }
    insert(T, &a, d, nd);
  }
}

void insdg_task_axpy(insdg_coef c, insdg_dfield *x, insdg_dfield *y)
{
  per_block((vec_args){.kind = V_AXPY}, (insdg_dfield *[]){x, y}, (enum starpu_data_access_mode[]){STARPU_R, STARPU_RW}, 2, &c);
}

void insdg_task_xpay(insdg_dfield *x, insdg_coef c, insdg_dfield *y)
{
  per_block((vec_args){.kind = V_XPAY}, (insdg_dfield *[]){x, y}, (enum starpu_data_access_mode[]){STARPU_R, STARPU_RW}, 2, &c);
}

void insdg_task_axpby(double alpha, insdg_dfield *x, double beta, insdg_dfield *y)
{
  per_block((vec_args){.kind = V_AXPBY, .alpha = alpha, .beta = beta}, (insdg_dfield *[]){x, y},
            (enum starpu_data_access_mode[]){STARPU_R, beta == 0.0 ? STARPU_W : STARPU_RW}, 2, NULL);
}

void insdg_task_copy(insdg_dfield *x, insdg_dfield *y)
{
  per_block((vec_args){.kind = V_COPY}, (insdg_dfield *[]){x, y}, (enum starpu_data_access_mode[]){STARPU_R, STARPU_W}, 2, NULL);
}

void insdg_task_sub(insdg_dfield *a, insdg_dfield *b, insdg_dfield *y)
{
  per_block((vec_args){.kind = V_SUB}, (insdg_dfield *[]){a, b, y},
            (enum starpu_data_access_mode[]){STARPU_R, STARPU_R, STARPU_W}, 3, NULL);
}

void insdg_task_inverse_mass(insdg_dfield *r, insdg_dfield *z)
{
  per_block((vec_args){.kind = V_INVMASS}, (insdg_dfield *[]){r, z}, (enum starpu_data_access_mode[]){STARPU_R, STARPU_W}, 2, NULL);
}

void insdg_task_mass(double alpha, insdg_dfield *r, insdg_dfield *z)
{
  per_block((vec_args){.kind = V_MASS, .alpha = alpha}, (insdg_dfield *[]){r, z},
            (enum starpu_data_access_mode[]){STARPU_R, STARPU_W}, 2, NULL);
}

void insdg_task_jacobi(const double *dinv, insdg_dfield *r, insdg_dfield *z)
{
  per_block((vec_args){.kind = V_JACOBI, .dinv = dinv}, (insdg_dfield *[]){r, z},
            (enum starpu_data_access_mode[]){STARPU_R, STARPU_W}, 2, NULL);
}

void insdg_task_dots(insdg_dfield *const *x, insdg_dfield *const *y, insdg_dscalar *s)
{
  insdg_tasks *T = s->T;
  const insdg_layout *L = T->L;
  const int Np = L->mesh->ref->Np;
  for (int b = 0; b < L->B; ++b) {
    vec_args a = {.kind = V_DOTS, .n = L->block[b]->K * Np, .ndots = s->ncomp};
    struct starpu_data_descr d[2 * INSDG_DSCALAR_MAX + 1];
    int nd = 0;
    for (int k = 0; k < s->ncomp; ++k)
      d[nd++] = (struct starpu_data_descr){x[k]->block[b], STARPU_R}, d[nd++] = (struct starpu_data_descr){y[k]->block[b], STARPU_R};
    d[nd++] = (struct starpu_data_descr){s->partial[b], STARPU_W};
    insert(T, &a, d, nd);
  }
  struct starpu_data_descr *d = insdg_malloc(sizeof *d * ((size_t)L->B + 1));
  for (int r = 0; r < T->size; ++r) {   /* every rank sums all partials, in block order */
    vec_args a = {.kind = V_REDUCE, .n = L->B, .ndots = s->ncomp};
    for (int b = 0; b < L->B; ++b) d[b] = (struct starpu_data_descr){s->partial[b], STARPU_R};
    d[L->B] = (struct starpu_data_descr){s->value[r], STARPU_W};
    insert(T, &a, d, L->B + 1);
  }
  free(d);
}
