/* vec_tasks.c -- codelets for vector updates, dot products and their reduction
 * (vec_tasks.h). One codelet, `vec_op`, does every block-local update; its buffers are
 * [vectors (nvec)] [scalar values read by the coefficient (0..2)]. */
#include "vec_tasks.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "sched_home.h"
#include "direct.h"
#include "exchange.h"
#include "ops_tasks.h"
#include "starpu_gpu.h"

/* ---- distributed scalars ------------------------------------------------------------ */
insdg_dscalar *insdg_dscalar_create(insdg_tasks *T, int ncomp)
{
  INSDG_CHECK(ncomp >= 1 && ncomp <= INSDG_DSCALAR_MAX);
  const insdg_layout *L = T->L;
  insdg_dscalar *s = insdg_calloc(1, sizeof *s);
  s->T = T, s->ncomp = ncomp;
  s->partial = insdg_calloc((size_t)L->B, sizeof(starpu_data_handle_t));
  s->partial_mem = insdg_calloc((size_t)L->B, sizeof(double *));
  for (int b = T->b_begin; b < T->b_end; ++b) {
    s->partial_mem[b] = insdg_calloc((size_t)ncomp, sizeof(double));
    starpu_vector_data_register(&s->partial[b], STARPU_MAIN_RAM, (uintptr_t)s->partial_mem[b], (uint32_t)ncomp,
                                sizeof(double));
    insdg_sched_home_tag(s->partial[b], b - T->b_begin);
  }
  s->value_mem = insdg_calloc((size_t)ncomp, sizeof(double));
  starpu_vector_data_register(&s->value, STARPU_MAIN_RAM, (uintptr_t)s->value_mem, (uint32_t)ncomp, sizeof(double));
  return s;
}

void insdg_dscalar_destroy(insdg_dscalar *s)
{
  if (!s) return;
  for (int b = s->T->b_begin; b < s->T->b_end; ++b) insdg_runtime_unregister(s->partial[b]), free(s->partial_mem[b]);
  insdg_runtime_unregister(s->value), free(s->value_mem);
  free(s->partial), free(s->partial_mem);
  free(s);
}

double insdg_dscalar_get(insdg_dscalar *s, int c)
{
  insdg_runtime_waited();
  if (insdg_runtime_direct) {   /* the tasks ran already, or run on a helper (direct.h) */
    if (insdg_direct_helpers()) {
      const double t0 = insdg_runtime_tracing ? starpu_timing_now() : 0;
      insdg_direct_wait_for(s->value, STARPU_R);
      insdg_runtime_trace_mark("host_wait", t0);
    }
    return s->value_mem[c];
  }
  const double t0 = insdg_runtime_tracing ? starpu_timing_now() : 0;
  insdg_runtime_acquire(s->value, STARPU_R);
  insdg_runtime_trace_mark("host_wait", t0);
  const double v = s->value_mem[c];
  starpu_data_release(s->value);
  return v;
}

/* ---- codelets -------------------------------------------------------------------------- */
enum vec_kind { V_AXPY, V_XPAY, V_COPY, V_SUB, V_INVMASS, V_JACOBI, V_DOTS, V_REDUCE, V_AXPBY, V_MASS,
                V_PCG_UPDATE, V_PCG_DOTS, V_CHEB_FIRST, V_CHEB_STEP, V_COMBINE, V_PCG_TAIL,
                V_PCG_START };

typedef struct {
  int kind;
  int n;               /* vector length (block nodes); for V_REDUCE: number of partials */
  int ndots;           /* V_DOTS, V_REDUCE: components */
  double sign;         /* coefficient: sign * num / den */
  double alpha, beta;  /* V_AXPBY, V_CHEB_* constants */
  int flag;            /* V_PCG_UPDATE, V_PCG_DOTS: with r_prev; V_CHEB_FIRST: bit 0 zero guess, bit 1 with Ad;
                          V_COMBINE: with z */
  int size;            /* V_REDUCE: ranks */
  int rank_sum;        /* > 1: the producer of a scalar on one block per rank: its buffer value_at (ndots
                          components, as many as the reduce task of a rank of several blocks sends)
                          summed over the ranks in this task (rank_sum, direct) */
  int value_at;
  int num_comp, den_comp, has_num, has_den;
  const insdg_ops *op;
  const insdg_block *b;
  const double *dinv;  /* V_JACOBI, V_CHEB_*: the block's part */
  int dblock;          /* dinv holds [K][Np][Np] element blocks (insdg_dinv) */
  int gsrc, gpos;      /* V_CHEB_*, gpos > 0: the local gradient of buffer gsrc into buffers gpos, gpos + 1 */
  int prec;            /* V_PCG_TAIL: V_INVMASS or V_JACOBI (dinv, dblock) */
} vec_args;

/* z = D r on a block: the point diagonal, or each element's dense block (block = Np) */
static void apply_dinv(const vec_args *a, const double *r, double *z)
{
  if (!a->dblock) {
    for (int i = 0; i < a->n; ++i) z[i] = a->dinv[i] * r[i];
    return;
  }
  insdg_op_element_blocks(a->op, a->b->K, a->dinv, r, z);   /* the blocks are symmetric (spd_invert) */
}

/* A block's dot products in DOT_LANES partial sums, node i in sum i mod DOT_LANES, the sums
   added pairwise at the end: one build gives the same bits for any worker count (the
   partials of the blocks are then added in block order, V_REDUCE), and the multiply-adds
   run in vectors, where one running sum chained each on the one before (4 cycles apiece:
   the dots of an N = 4 block of 1990 elements took 80 us a task, docs/performance.md
   "The vector operations and the coarse solve"). */
#define DOT_LANES 8
/* DOT_LANES doubles as one GCC vector (its operations are exactly the lane-wise ones
   written: 1, 2 or 4 registers by the build's width), and the same at any double's address */
typedef double lanes_v __attribute__((vector_size(8 * DOT_LANES)));
typedef double lanes_vu __attribute__((vector_size(8 * DOT_LANES), aligned(8), may_alias));
#define LANES_AT(p) (*(const lanes_vu *)(p))

/* the lanes added pairwise, after the n % DOT_LANES nodes left over went to the first lanes */
static double lanes_sum(const lanes_v *v, int n_left, const double *x, const double *y)
{
  double s[DOT_LANES];
  memcpy(s, v, sizeof s);
  for (int k = 0; k < n_left; ++k) s[k] += x[k] * y[k];
  return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}

static double dot(int n, const double *x, const double *y)
{
  lanes_v s = {0};
  int i = 0;
  for (; i + DOT_LANES <= n; i += DOT_LANES) s += LANES_AT(x + i) * LANES_AT(y + i);
  return lanes_sum(&s, n - i, x + i, y + i);
}

/* out = [r.z, r.r, (r - rp).z] (rp NULL: r.z twice) in one pass over r and z, the same
   lanes as dot */
static void pcg_dots(int n, const double *r, const double *z, const double *rp, double out[3])
{
  lanes_v rz = {0}, rr = {0}, dz = {0};
  int i = 0;
  for (; i + DOT_LANES <= n; i += DOT_LANES) {
    const lanes_v ri = LANES_AT(r + i), zi = LANES_AT(z + i);
    rz += ri * zi, rr += ri * ri;
    if (rp) dz += (ri - LANES_AT(rp + i)) * zi;
  }
  const int left = n - i;
  double d[DOT_LANES];
  for (int k = 0; k < left; ++k) d[k] = r[i + k] - (rp ? rp[i + k] : 0.0);
  out[0] = lanes_sum(&rz, left, r + i, z + i), out[1] = lanes_sum(&rr, left, r + i, r + i);
  out[2] = rp ? lanes_sum(&dz, left, d, z + i) : out[0];
}

static double coefficient(const vec_args *a, void *buffers[], int first_scalar)
{
  double c = a->sign;
  int k = first_scalar;
  if (a->has_num) c *= ((const double *)STARPU_VECTOR_GET_PTR(buffers[k++]))[a->num_comp];
  if (a->has_den) c /= ((const double *)STARPU_VECTOR_GET_PTR(buffers[k]))[a->den_comp];
  return c;
}

/* value[k] = the sum over the ranks, in rank order, of each rank's mine[k] (k < m): the same
   bits on every rank. A task that calls it holds the communication token (exchange.h). */
static void rank_sum(const double *mine, double *value, int m, int size)
{
  double *all = insdg_thread_scratch(1, (size_t)size * INSDG_DSCALAR_MAX);
  MPI_Request req;
  MPI_Iallgather(mine, m, MPI_DOUBLE, all, m, MPI_DOUBLE, insdg_runtime_task_comm(), &req);
  insdg_mpi_wait_quietly(1, &req);
  for (int k = 0; k < m; ++k) value[k] = 0;
  for (int r = 0; r < size; ++r)
    for (int k = 0; k < m; ++k) value[k] += all[r * m + k];
}

/* y = alpha x + beta y (beta = 0: y not read). One compiled loop for the axpby task and
   the terms of a linear combination (insdg_task_lincomb), so that both make the same bits. */
__attribute__((noinline)) static void axpby_run(int n, double alpha, const double *restrict x, double beta,
                                                double *restrict y)
{
  if (beta == 0.0)   /* y may be uninitialised: never read it */
    for (int i = 0; i < n; ++i) y[i] = alpha * x[i];
  else
    for (int i = 0; i < n; ++i) y[i] = alpha * x[i] + beta * y[i];
}

/* one block's vector task on its buffers (vec_op's, or fused work's: insdg_then) */
static void vec_run(vec_args a, void *buffers[])
{
#define VEC(i) ((double *)STARPU_VECTOR_GET_PTR(buffers[i]))
  switch (a.kind) {
    case V_AXPY: {   /* [x, y, scalars] */
      const double c = coefficient(&a, buffers, 2), *x = VEC(0);
      double *y = VEC(1);
      for (int i = 0; i < a.n; ++i) y[i] += c * x[i];
      break;
    }
    case V_XPAY: {   /* [x, y, (gradient of y: gpos > 0), scalars] */
      const double c = coefficient(&a, buffers, a.gpos ? 4 : 2), *x = VEC(0);
      double *y = VEC(1);
      for (int i = 0; i < a.n; ++i) y[i] = x[i] + c * y[i];
      if (a.gpos) insdg_op_local_gradient(a.op, a.b, VEC(a.gsrc), VEC(a.gpos), VEC(a.gpos + 1));
      break;
    }
    case V_AXPBY:
      axpby_run(a.n, a.alpha, VEC(0), a.beta, VEC(1));
      break;
    case V_COPY:
      memcpy(VEC(1), VEC(0), sizeof(double) * (size_t)a.n);
      break;
    case V_SUB: {
      const double *x = VEC(0), *y = VEC(1);
      double *z = VEC(2);
      for (int i = 0; i < a.n; ++i) z[i] = x[i] - y[i];
      break;
    }
    case V_INVMASS:
      insdg_op_mass(a.op, a.b, 1, 1.0, VEC(0), VEC(1));
      break;
    case V_MASS:   /* z = alpha J M r per element */
      insdg_op_mass(a.op, a.b, 0, a.alpha, VEC(0), VEC(1));
      break;
    case V_JACOBI:
      apply_dinv(&a, VEC(0), VEC(1));
      break;
    case V_PCG_UPDATE:     /* [p, Ap, x, r, (r_prev), num, den] */
    case V_PCG_TAIL: {     /* [p, Ap, x, r, (r_prev), z, partial, num, den]: the update, z = P r,
                              the dots: V_PCG_UPDATE, a.prec, V_PCG_DOTS in one task */
      const int nv = a.flag ? 5 : 4, k = a.kind == V_PCG_TAIL ? nv + 2 : nv;
      a.sign = 1.0;
      const double cx = coefficient(&a, buffers, k);
      a.sign = -1.0;
      const double cr = coefficient(&a, buffers, k);
      const double *p = VEC(0), *Ap = VEC(1);
      double *x = VEC(2), *r = VEC(3);
      if (a.flag) memcpy(VEC(4), r, sizeof(double) * (size_t)a.n);
      for (int i = 0; i < a.n; ++i) x[i] += cx * p[i];
      for (int i = 0; i < a.n; ++i) r[i] += cr * Ap[i];
      if (a.kind == V_PCG_TAIL) {
        double *z = VEC(nv);
        if (a.prec == V_INVMASS) insdg_op_mass(a.op, a.b, 1, 1.0, r, z);
        else apply_dinv(&a, r, z);
        pcg_dots(a.n, r, z, a.flag ? VEC(4) : NULL, VEC(nv + 1));
      }
      break;
    }
    case V_PCG_START: {   /* [b, Ax, r, z, p, partial]: r = b - Ax, z = P r, p = z, the dots (r.z, r.r, r.z):
                             V_SUB, a.prec, V_COPY, V_PCG_DOTS in one (fused work, insdg_then_pcg_start) */
      const double *bv = VEC(0), *Ax = VEC(1);
      double *r = VEC(2), *z = VEC(3);
      for (int i = 0; i < a.n; ++i) r[i] = bv[i] - Ax[i];
      if (a.prec == V_INVMASS) insdg_op_mass(a.op, a.b, 1, 1.0, r, z);
      else apply_dinv(&a, r, z);
      memcpy(VEC(4), z, sizeof(double) * (size_t)a.n);
      pcg_dots(a.n, r, z, NULL, VEC(5));
      break;
    }
    case V_PCG_DOTS: {   /* [r, z, (r_prev), partial] */
      const double *r = VEC(0), *z = VEC(1), *rp = a.flag ? VEC(2) : NULL;
      double *partial = VEC(a.flag ? 3 : 2);
      pcg_dots(a.n, r, z, rp, partial);
      break;
    }
    case V_CHEB_FIRST: {   /* [b, (Ad), r, d, x]: r = b - Ad, d = alpha dinv r, x = d or x += d */
      const int zero = a.flag & 1, k = a.flag & 2 ? 2 : 1;
      const double *bv = VEC(0), *Ad = a.flag & 2 ? VEC(1) : NULL;
      double *r = VEC(k), *d = VEC(k + 1), *x = VEC(k + 2);
      for (int i = 0; i < a.n; ++i) r[i] = Ad ? bv[i] - Ad[i] : bv[i];
      apply_dinv(&a, r, d);
      for (int i = 0; i < a.n; ++i) {
        d[i] = a.alpha * d[i];
        x[i] = zero ? d[i] : 1.0 * d[i] + 1.0 * x[i];
      }
      if (a.gpos) insdg_op_local_gradient(a.op, a.b, VEC(a.gsrc), VEC(a.gpos), VEC(a.gpos + 1));
      break;
    }
    case V_CHEB_STEP: {   /* [Ad, r, d, (d_out), x]: r -= Ad, d_out = alpha dinv r + beta d, x += d_out
                             (flag: d_out given; else d_out = d) */
      const double *Ad = VEC(0), *d = VEC(2);
      double *r = VEC(1), *dout = VEC(a.flag ? 3 : 2), *x = VEC(a.flag ? 4 : 3);
      if (!a.dblock) {   /* one pass */
        for (int i = 0; i < a.n; ++i) {
          r[i] = -1.0 * Ad[i] + 1.0 * r[i];
          const double z = a.dinv[i] * r[i];
          dout[i] = a.alpha * z + a.beta * d[i];
          x[i] = 1.0 * dout[i] + 1.0 * x[i];
        }
      } else {
        double *z = insdg_thread_scratch(0, (size_t)a.n);
        for (int i = 0; i < a.n; ++i) r[i] = -1.0 * Ad[i] + 1.0 * r[i];
        apply_dinv(&a, r, z);
        for (int i = 0; i < a.n; ++i) {
          dout[i] = a.alpha * z[i] + a.beta * d[i];
          x[i] = 1.0 * dout[i] + 1.0 * x[i];
        }
      }
      if (a.gpos) insdg_op_local_gradient(a.op, a.b, VEC(a.gsrc), VEC(a.gpos), VEC(a.gpos + 1));
      break;
    }
    case V_COMBINE: {   /* [x_0 .. x_{m-1}, (z), c, y]: y = z + sign sum c_k x_k, m = ndots */
      const int m = a.ndots;
      const double *c = VEC(m + a.flag);
      double *y = VEC(m + a.flag + 1);
      if (a.flag) memcpy(y, VEC(m), sizeof(double) * (size_t)a.n);
      else memset(y, 0, sizeof(double) * (size_t)a.n);
      for (int k = 0; k < m; ++k) {
        const double ck = a.sign * c[k], *x = VEC(k);
        for (int i = 0; i < a.n; ++i) y[i] += ck * x[i];
      }
      break;
    }
    case V_DOTS: {   /* [x0, y0, x1, y1, ..., partial] */
      double *partial = VEC(2 * a.ndots);
      for (int k = 0; k < a.ndots; ++k) {
        const double *x = VEC(2 * k), *y = VEC(2 * k + 1);
        partial[k] = dot(a.n, x, y);
      }
      break;
    }
    case V_REDUCE: {   /* [(token), this rank's partials in block order, value] */
      const int first = a.size > 1;
      double *value = VEC(first + a.n), mine[INSDG_DSCALAR_MAX];
      for (int k = 0; k < a.ndots; ++k) mine[k] = 0;
      for (int b = 0; b < a.n; ++b)
        for (int k = 0; k < a.ndots; ++k) mine[k] += VEC(first + b)[k];
      if (a.size == 1) {
        for (int k = 0; k < a.ndots; ++k) value[k] = mine[k];
      } else {   /* every rank adds the ranks' sums in rank order: the same bits everywhere */
        rank_sum(mine, value, a.ndots, a.size);
      }
      break;
    }
    default:
      INSDG_CHECK(!"unknown vector operation");
  }
  if (a.rank_sum > 1) {   /* this block's partial is this rank's: then as V_REDUCE, 0 + partial */
    double *value = VEC(a.value_at), mine[INSDG_DSCALAR_MAX];
    for (int k = 0; k < a.ndots; ++k) mine[k] = 0.0 + value[k];
    rank_sum(mine, value, a.ndots, a.rank_sum);
  }
#undef VEC
}

static void vec_op_cpu(void *buffers[], void *cl_arg)
{
  vec_args a;
  starpu_codelet_unpack_args(cl_arg, &a);
  vec_run(a, buffers);
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

/* z = D r on the device: the point diagonal or the element blocks (copied once) */
static int gpu_dinv(const vec_args *a, size_t n, const double *r, double *z, void *stream)
{
  if (!a->dblock) return insdg_gpu_jacobi(n, insdg_starpu_gpu_static(a->dinv, sizeof(double) * n), r, z, stream);
  const int Np = a->op->ref->Np;
  return insdg_gpu_block_jacobi(n, Np, insdg_starpu_gpu_static(a->dinv, sizeof(double) * n * (size_t)Np), r, z, stream);
}

/* vec_run on the GPU (vec_op's CUDA/HIP function, or fused work's: insdg_then) */
static void vec_run_gpu(vec_args a, void *buffers[])
{
#ifdef INSDG_GPU_CODELETS_ON_CPU
  if (a.kind == V_DOTS || a.kind == V_PCG_DOTS) {   /* the emulation runs the 256-block reduction in ~0.1 s: too slow for a run */
    vec_run(a, buffers);
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
    case V_JACOBI: rc = gpu_dinv(&a, n, VEC(0), VEC(1), stream); break;
    case V_PCG_UPDATE: {   /* the same launches as the unfused updates */
      const int k = a.flag ? 5 : 4;
      vec_args b = a;
      b.sign = 1.0;
      const insdg_gpu_coef cx = coefficient_dev(&b, buffers, k);
      b.sign = -1.0;
      const insdg_gpu_coef cr = coefficient_dev(&b, buffers, k);
      rc = a.flag ? insdg_gpu_copy(n, VEC(3), VEC(4), stream) : 0;
      if (!rc) rc = insdg_gpu_axpy(n, cx, VEC(0), VEC(2), stream);
      if (!rc) rc = insdg_gpu_axpy(n, cr, VEC(1), VEC(3), stream);
      break;
    }
    case V_PCG_DOTS: {
      const double *x[3] = {VEC(0), VEC(0), VEC(0)}, *y[3] = {VEC(1), VEC(0), VEC(1)};
      double *partial = VEC(a.flag ? 3 : 2);
      double *work = insdg_starpu_gpu_scratch(2, sizeof(double) * (n + 3 * INSDG_GPU_DOTS_BLOCKS), stream);
      rc = 0;
      if (a.flag) rc = insdg_gpu_sub(n, VEC(0), VEC(2), work + 3 * INSDG_GPU_DOTS_BLOCKS, stream), x[2] = work + 3 * INSDG_GPU_DOTS_BLOCKS;
      if (!rc) rc = insdg_gpu_dots(n, 3, x, y, partial, work, stream);
      break;
    }
    case V_CHEB_FIRST: {   /* the fused local gradient is CPU-only (insdg_task_fuse_local_gradient) */
      INSDG_CHECK(!a.gpos);
      const int k = a.flag & 2 ? 2 : 1;
      double *z = insdg_starpu_gpu_scratch(0, sizeof(double) * n, stream);
      rc = a.flag & 2 ? insdg_gpu_sub(n, VEC(0), VEC(1), VEC(k), stream) : insdg_gpu_copy(n, VEC(0), VEC(k), stream);
      if (!rc) rc = gpu_dinv(&a, n, VEC(k), z, stream);
      if (!rc) rc = insdg_gpu_axpby(n, a.alpha, z, 0.0, VEC(k + 1), stream);
      if (!rc) rc = a.flag & 1 ? insdg_gpu_copy(n, VEC(k + 1), VEC(k + 2), stream)
                               : insdg_gpu_axpby(n, 1.0, VEC(k + 1), 1.0, VEC(k + 2), stream);
      break;
    }
    case V_CHEB_STEP: {   /* [Ad, r, d, (d_out), x]; d_out given where the directions alternate (pmg.c) */
      INSDG_CHECK(!a.gpos);
      double *z = insdg_starpu_gpu_scratch(0, sizeof(double) * n, stream);
      double *dout = VEC(a.flag ? 3 : 2), *x = VEC(a.flag ? 4 : 3);
      rc = insdg_gpu_axpby(n, -1.0, VEC(0), 1.0, VEC(1), stream);
      if (!rc) rc = gpu_dinv(&a, n, VEC(1), z, stream);
      if (!rc && a.flag) rc = insdg_gpu_copy(n, VEC(2), dout, stream);
      if (!rc) rc = insdg_gpu_axpby(n, a.alpha, z, a.beta, dout, stream);
      if (!rc) rc = insdg_gpu_axpby(n, 1.0, dout, 1.0, x, stream);
      break;
    }
    case V_DOTS: {   /* in groups of at most INSDG_GPU_DOTS_MAX components */
      const double *x[INSDG_DSCALAR_MAX], *y[INSDG_DSCALAR_MAX];
      for (int k = 0; k < a.ndots; ++k) x[k] = VEC(2 * k), y[k] = VEC(2 * k + 1);
      double *work = insdg_starpu_gpu_scratch(2, sizeof(double) * INSDG_GPU_DOTS_MAX * INSDG_GPU_DOTS_BLOCKS, stream);
      rc = 0;
      for (int k0 = 0; k0 < a.ndots && !rc; k0 += INSDG_GPU_DOTS_MAX) {
        const int nk = a.ndots - k0 < INSDG_GPU_DOTS_MAX ? a.ndots - k0 : INSDG_GPU_DOTS_MAX;
        rc = insdg_gpu_dots(n, nk, x + k0, y + k0, VEC(2 * a.ndots) + k0, work, stream);
      }
      break;
    }
    case V_COMBINE: {   /* y = z or 0, then y += (sign c_k) x_k: the same sums in the same order */
      const int m = a.ndots;
      const double *c = VEC(m + a.flag);
      double *y = VEC(m + a.flag + 1);
      rc = a.flag ? insdg_gpu_copy(n, VEC(m), y, stream) : insdg_gpu_axpby(n, 0.0, VEC(0), 0.0, y, stream);
      for (int k = 0; k < m && !rc; ++k) rc = insdg_gpu_axpy(n, (insdg_gpu_coef){a.sign, c + k, NULL}, VEC(k), y, stream);
      break;
    }
    default:
      INSDG_CHECK(!"vector operation without a CUDA implementation");
  }
#undef VEC
  insdg_starpu_gpu_check(rc, "vector operation");
}

static void vec_op_cuda(void *buffers[], void *cl_arg)
{
  vec_args a;
  starpu_codelet_unpack_args(cl_arg, &a);
  vec_run_gpu(a, buffers);
}
#endif

/* every vector operation but the reduction, which sums a few partials on a CPU */
static struct starpu_codelet vec_cl = {
    INSDG_CODELET_FUNCS(vec_op_cpu, vec_op_cuda)
    .nbuffers = STARPU_VARIABLE_NBUFFERS, .name = "insdg_vec"};
static struct starpu_codelet reduce_cl = {
    .cpu_funcs = {vec_op_cpu}, .nbuffers = STARPU_VARIABLE_NBUFFERS, .name = "insdg_reduce"};
static const char *vec_name[] = {"axpy",       "xpay",     "copy",       "sub",       "inverse_mass",
                                 "jacobi",     "dots",     "reduce",     "axpby",     "mass",
                                 "pcg_update", "pcg_dots", "cheb_first", "cheb_step", "combine",
                                 "pcg_tail",   "pcg_start"};

static void insert(insdg_tasks *T, vec_args *a, struct starpu_data_descr *d, int nd)
{
#ifdef INSDG_STARPU_GPU
  vec_cl.where = insdg_starpu_gpu_where();
#endif
  struct starpu_codelet *cl = a->kind == V_REDUCE ? &reduce_cl : &vec_cl;
  (void)T;
  const int status = INSDG_TASK_INSERT(cl, STARPU_DATA_MODE_ARRAY, d, nd, STARPU_VALUE, a, sizeof *a, STARPU_NAME,
                                       vec_name[a->kind], 0);
  INSDG_CHECK(status == 0);
}

/* block b's task of a per-block operation on vectors vec[] (modes[]) and the coefficient's
   scalars: its arguments *a and data d[] (returns their number) */
static int block_task(const vec_args *proto, insdg_dfield *const *vec, const enum starpu_data_access_mode *modes,
                      int nvec, const insdg_coef *c, int b, vec_args *a, struct starpu_data_descr *d)
{
  const insdg_layout *L = vec[0]->T->L;
  const int Np = L->mesh->ref->Np;
  *a = *proto;
  a->n = L->block[b]->K * Np, a->op = vec[0]->T->op, a->b = L->block[b];
  if (a->dinv) a->dinv += (size_t)L->block_start[b] * Np * (a->dblock ? Np : 1);
  int nd = 0;
  for (int k = 0; k < nvec; ++k) d[nd++] = (struct starpu_data_descr){vec[k]->block[b], modes[k]};
  if (c) {
    a->sign = c->sign, a->has_num = c->num.s != NULL, a->has_den = c->den.s != NULL;
    a->num_comp = c->num.comp, a->den_comp = c->den.comp;
    if (a->has_num) d[nd++] = (struct starpu_data_descr){c->num.s->value, STARPU_R};
    if (a->has_den) d[nd++] = (struct starpu_data_descr){c->den.s->value, STARPU_R};
  }
  return nd;
}

/* one task per block on vectors vec[] (modes[]) and the coefficient's scalars */
static void per_block(vec_args proto, insdg_dfield **vec, const enum starpu_data_access_mode *modes, int nvec,
                      const insdg_coef *c)
{
  insdg_tasks *T = vec[0]->T;
  for (int b = T->b_begin; b < T->b_end; ++b) {
    vec_args a;
    struct starpu_data_descr d[INSDG_THEN_MAXD];
    const int nd = block_task(&proto, vec, modes, nvec, c, b, &a, d);
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

void insdg_task_combine(insdg_dfield *z, double sign, insdg_dscalar *c, int m, insdg_dfield *const *x, insdg_dfield *y)
{
  INSDG_CHECK(m >= 0 && m <= c->ncomp && (m > 0 || z));
  insdg_tasks *T = y->T;
  const insdg_layout *L = T->L;
  const int Np = L->mesh->ref->Np;
  for (int b = T->b_begin; b < T->b_end; ++b) {
    vec_args a = {.kind = V_COMBINE, .n = L->block[b]->K * Np, .ndots = m, .sign = sign, .flag = z != NULL};
    struct starpu_data_descr d[INSDG_DSCALAR_MAX + 3];
    int nd = 0;
    for (int k = 0; k < m; ++k) d[nd++] = (struct starpu_data_descr){x[k]->block[b], STARPU_R};
    if (z) d[nd++] = (struct starpu_data_descr){z->block[b], STARPU_R};
    d[nd++] = (struct starpu_data_descr){c->value, STARPU_R};
    d[nd++] = (struct starpu_data_descr){y->block[b], STARPU_W};
    insert(T, &a, d, nd);
  }
}

/* insdg_task_lincomb: a block's [x_0 .. x_{m-1}, y] */
typedef struct {
  int n, m;
  double alpha[INSDG_LINCOMB_MAX];
} lincomb_args;

static void lincomb_cpu(void *buffers[], void *cl_arg)
{
  lincomb_args a;
  starpu_codelet_unpack_args(cl_arg, &a);
  double *y = (double *)STARPU_VECTOR_GET_PTR(buffers[a.m]);
  for (int k = 0; k < a.m; ++k)
    axpby_run(a.n, a.alpha[k], (const double *)STARPU_VECTOR_GET_PTR(buffers[k]), k == 0 ? 0.0 : 1.0, y);
}

#ifdef INSDG_STARPU_GPU
static void lincomb_cuda(void *buffers[], void *cl_arg)   /* the axpby tasks' launches, one per term */
{
  lincomb_args a;
  starpu_codelet_unpack_args(cl_arg, &a);
  void *stream = insdg_starpu_gpu_stream();
  double *y = (double *)STARPU_VECTOR_GET_PTR(buffers[a.m]);
  int rc = 0;
  for (int k = 0; k < a.m && !rc; ++k)
    rc = insdg_gpu_axpby((size_t)a.n, a.alpha[k], (const double *)STARPU_VECTOR_GET_PTR(buffers[k]), k == 0 ? 0.0 : 1.0,
                         y, stream);
  insdg_starpu_gpu_check(rc, "vector operation");
}
#endif

static struct starpu_codelet lincomb_cl = {
    INSDG_CODELET_FUNCS(lincomb_cpu, lincomb_cuda)
    .nbuffers = STARPU_VARIABLE_NBUFFERS, .name = "insdg_lincomb"};

void insdg_task_lincomb(int m, const double *alpha, insdg_dfield *const *x, insdg_dfield *y)
{
  INSDG_CHECK(m >= 1 && m <= INSDG_LINCOMB_MAX);
  for (int k = 0; k < m; ++k) INSDG_CHECK(x[k] != y);
  insdg_tasks *T = y->T;
  const insdg_layout *L = T->L;
#ifdef INSDG_STARPU_GPU
  lincomb_cl.where = insdg_starpu_gpu_where();
#endif
  for (int b = T->b_begin; b < T->b_end; ++b) {
    lincomb_args a = {.n = L->block[b]->K * L->mesh->ref->Np, .m = m};
    for (int k = 0; k < m; ++k) a.alpha[k] = alpha[k];
    struct starpu_data_descr d[INSDG_LINCOMB_MAX + 1];
    for (int k = 0; k < m; ++k) d[k] = (struct starpu_data_descr){x[k]->block[b], STARPU_R};
    d[m] = (struct starpu_data_descr){y->block[b], STARPU_W};
    const int status = INSDG_TASK_INSERT(&lincomb_cl, STARPU_DATA_MODE_ARRAY, d, m + 1, STARPU_VALUE, &a, sizeof a,
                                         STARPU_NAME, "lincomb", 0);
    INSDG_CHECK(status == 0);
  }
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
  insdg_task_dinv((insdg_dinv){dinv, 0}, r, z);
}

void insdg_task_dinv(insdg_dinv D, insdg_dfield *r, insdg_dfield *z)
{
  per_block((vec_args){.kind = V_JACOBI, .dinv = D.d, .dblock = D.block}, (insdg_dfield *[]){r, z},
            (enum starpu_data_access_mode[]){STARPU_R, STARPU_W}, 2, NULL);
}

/* One block on this rank: its dot task writes the value itself (the reduce task would copy
   0 + partial, the same bits), and on several ranks with CPU codelets (which
   insdg_task_fuse_local_gradient reports) sums the ranks' values in the same task as the
   reduce task would (rank_sum_descr): no reduce task. */
static int direct(const insdg_dscalar *s)
{
  const insdg_tasks *T = s->T;
  return T->b_end - T->b_begin == 1 && (T->size == 1 || insdg_task_fuse_local_gradient(T));
}

/* After a producer's value descriptor (at value_at in its task's list): with the ranks' sum in
   the producer (direct, several ranks), the communication token, and the sum in *a; returns
   the descriptors added (0 or 1) */
static int rank_sum_descr(const insdg_dscalar *s, vec_args *a, int value_at, struct starpu_data_descr *d)
{
  if (!direct(s) || s->T->size == 1) return 0;
  a->rank_sum = s->T->size, a->value_at = value_at;
  d[0] = (struct starpu_data_descr){insdg_runtime_comm_token(), STARPU_RW};
  return 1;
}

/* one reduce task on this rank: the m components of its partials in block order, then across
   ranks (as many as a rank of one block sums in its producer, rank_sum_descr) */
static void submit_reduce(insdg_dscalar *s, int m)
{
  if (direct(s)) return;
  insdg_tasks *T = s->T;
  const int nb = T->b_end - T->b_begin, first = T->size > 1;
  struct starpu_data_descr *d = insdg_thread_scratch_descr(nb + 2);
  if (first) d[0] = (struct starpu_data_descr){insdg_runtime_comm_token(), STARPU_RW};
  for (int b = T->b_begin; b < T->b_end; ++b) d[first + b - T->b_begin] = (struct starpu_data_descr){s->partial[b], STARPU_R};
  d[first + nb] = (struct starpu_data_descr){s->value, STARPU_W};
  vec_args a = {.kind = V_REDUCE, .n = nb, .ndots = m, .size = T->size};
  insert(T, &a, d, first + nb + 1);
}

void insdg_task_dots(insdg_dfield *const *x, insdg_dfield *const *y, insdg_dscalar *s)
{
  insdg_task_dots_n(x, y, s->ncomp, s);
}

void insdg_task_dots_n(insdg_dfield *const *x, insdg_dfield *const *y, int m, insdg_dscalar *s)
{
  insdg_tasks *T = s->T;
  const insdg_layout *L = T->L;
  const int Np = L->mesh->ref->Np;
  INSDG_CHECK(m >= 1 && m <= s->ncomp);
  for (int b = T->b_begin; b < T->b_end; ++b) {
    vec_args a = {.kind = V_DOTS, .n = L->block[b]->K * Np, .ndots = m};
    struct starpu_data_descr d[2 * INSDG_DSCALAR_MAX + 2];
    int nd = 0;
    for (int k = 0; k < m; ++k)
      d[nd++] = (struct starpu_data_descr){x[k]->block[b], STARPU_R}, d[nd++] = (struct starpu_data_descr){y[k]->block[b], STARPU_R};
    d[nd++] = (struct starpu_data_descr){direct(s) ? s->value : s->partial[b], STARPU_W};
    nd += rank_sum_descr(s, &a, nd - 1, d + nd);
    insert(T, &a, d, nd);
  }
  submit_reduce(s, m);
}

void insdg_task_pcg_dots(insdg_dfield *r, insdg_dfield *z, insdg_dfield *r_prev, insdg_dscalar *s)
{
  insdg_tasks *T = s->T;
  const insdg_layout *L = T->L;
  INSDG_CHECK(s->ncomp == 3);
  for (int b = T->b_begin; b < T->b_end; ++b) {
    vec_args a = {.kind = V_PCG_DOTS, .n = L->block[b]->K * L->mesh->ref->Np, .ndots = 3, .flag = r_prev != NULL};
    struct starpu_data_descr d[5];
    int nd = 0;
    d[nd++] = (struct starpu_data_descr){r->block[b], STARPU_R}, d[nd++] = (struct starpu_data_descr){z->block[b], STARPU_R};
    if (r_prev) d[nd++] = (struct starpu_data_descr){r_prev->block[b], STARPU_R};
    d[nd++] = (struct starpu_data_descr){direct(s) ? s->value : s->partial[b], STARPU_W};
    nd += rank_sum_descr(s, &a, nd - 1, d + nd);
    insert(T, &a, d, nd);
  }
  submit_reduce(s, 3);
}

void insdg_task_pcg_update(insdg_sref num, insdg_sref den, insdg_dfield *p, insdg_dfield *Ap, insdg_dfield *x,
                           insdg_dfield *r, insdg_dfield *r_prev)
{
  const insdg_coef c = {1.0, num, den};   /* the sign is set per update inside the task */
  if (r_prev)
    per_block((vec_args){.kind = V_PCG_UPDATE, .flag = 1}, (insdg_dfield *[]){p, Ap, x, r, r_prev},
              (enum starpu_data_access_mode[]){STARPU_R, STARPU_R, STARPU_RW, STARPU_RW, STARPU_W}, 5, &c);
  else
    per_block((vec_args){.kind = V_PCG_UPDATE}, (insdg_dfield *[]){p, Ap, x, r},
              (enum starpu_data_access_mode[]){STARPU_R, STARPU_R, STARPU_RW, STARPU_RW}, 4, &c);
}

void insdg_task_pcg_tail(insdg_sref num, insdg_sref den, insdg_dfield *p, insdg_dfield *Ap, insdg_dfield *x,
                         insdg_dfield *r, insdg_dfield *r_prev, const insdg_dinv *D, insdg_dfield *z, insdg_dscalar *s)
{
  insdg_tasks *T = s->T;
  const insdg_layout *L = T->L;
  const int Np = L->mesh->ref->Np;
  INSDG_CHECK(s->ncomp == 3 && insdg_task_fuse_local_gradient(T));
  for (int b = T->b_begin; b < T->b_end; ++b) {
    vec_args a = {.kind = V_PCG_TAIL, .n = L->block[b]->K * Np, .ndots = 3, .flag = r_prev != NULL, .op = T->op,
                  .b = L->block[b], .prec = D ? V_JACOBI : V_INVMASS, .sign = 1.0, .has_num = num.s != NULL,
                  .has_den = den.s != NULL, .num_comp = num.comp, .den_comp = den.comp};
    if (D) a.dinv = D->d + (size_t)L->block_start[b] * Np * (D->block ? Np : 1), a.dblock = D->block;
    struct starpu_data_descr d[10];
    int nd = 0;
    d[nd++] = (struct starpu_data_descr){p->block[b], STARPU_R}, d[nd++] = (struct starpu_data_descr){Ap->block[b], STARPU_R};
    d[nd++] = (struct starpu_data_descr){x->block[b], STARPU_RW}, d[nd++] = (struct starpu_data_descr){r->block[b], STARPU_RW};
    if (r_prev) d[nd++] = (struct starpu_data_descr){r_prev->block[b], STARPU_W};
    d[nd++] = (struct starpu_data_descr){z->block[b], STARPU_W};
    const int value_at = nd;
    d[nd++] = (struct starpu_data_descr){direct(s) ? s->value : s->partial[b], STARPU_W};
    if (a.has_num) d[nd++] = (struct starpu_data_descr){num.s->value, STARPU_R};
    if (a.has_den) d[nd++] = (struct starpu_data_descr){den.s->value, STARPU_R};
    nd += rank_sum_descr(s, &a, value_at, d + nd);
    insert(T, &a, d, nd);
  }
  submit_reduce(s, 3);
}

/* the gradient outputs of a Chebyshev update: appended to its n vectors (g->of among them) */
static int append_gradient(vec_args *a, const insdg_grad_out *g, insdg_dfield **vec, enum starpu_data_access_mode *modes,
                           int n)
{
  if (!g) return n;
  INSDG_CHECK(insdg_task_fuse_local_gradient(g->of->T));
  a->gsrc = -1;
  for (int k = 0; k < n; ++k)
    if (vec[k] == g->of) a->gsrc = k;
  INSDG_CHECK(a->gsrc >= 0);
  a->gpos = n;
  vec[n] = g->ux, modes[n] = STARPU_W, vec[n + 1] = g->uy, modes[n + 1] = STARPU_W;
  return n + 2;
}

void insdg_task_cheb_first(insdg_dinv D, double c, insdg_dfield *b, insdg_dfield *Ad, insdg_dfield *r,
                           insdg_dfield *d, insdg_dfield *x, int zero_guess, const insdg_grad_out *g)
{
  vec_args a = {.kind = V_CHEB_FIRST, .alpha = c, .dinv = D.d, .dblock = D.block, .flag = (zero_guess ? 1 : 0) | (Ad ? 2 : 0)};
  const enum starpu_data_access_mode xm = zero_guess ? STARPU_W : STARPU_RW;
  insdg_dfield *vec[7];
  enum starpu_data_access_mode modes[7];
  int n = 0;
  vec[n] = b, modes[n++] = STARPU_R;
  if (Ad) vec[n] = Ad, modes[n++] = STARPU_R;
  vec[n] = r, modes[n++] = STARPU_W;
  vec[n] = d, modes[n++] = STARPU_W;
  vec[n] = x, modes[n++] = xm;
  n = append_gradient(&a, g, vec, modes, n);
  per_block(a, vec, modes, n, NULL);
}

/* insdg_task_cheb_step's arguments and vectors (returns their number) */
static int cheb_step_spec(insdg_dinv D, double c1, double c2, insdg_dfield *Ad, insdg_dfield *r, insdg_dfield *d,
                          insdg_dfield *d_out, insdg_dfield *x, const insdg_grad_out *g, vec_args *a,
                          insdg_dfield **vec, enum starpu_data_access_mode *modes)
{
  *a = (vec_args){.kind = V_CHEB_STEP, .alpha = c1, .beta = c2, .dinv = D.d, .dblock = D.block, .flag = d_out != d};
  int n = 0;
  vec[n] = Ad, modes[n++] = STARPU_R;
  vec[n] = r, modes[n++] = STARPU_RW;
  vec[n] = d, modes[n++] = d_out != d ? STARPU_R : STARPU_RW;
  if (d_out != d) vec[n] = d_out, modes[n++] = STARPU_W;
  vec[n] = x, modes[n++] = STARPU_RW;
  return append_gradient(a, g, vec, modes, n);
}

void insdg_task_cheb_step(insdg_dinv D, double c1, double c2, insdg_dfield *Ad, insdg_dfield *r,
                          insdg_dfield *d, insdg_dfield *d_out, insdg_dfield *x, const insdg_grad_out *g)
{
  vec_args a;
  insdg_dfield *vec[7];
  enum starpu_data_access_mode modes[7];
  const int n = cheb_step_spec(D, c1, c2, Ad, r, d, d_out, x, g, &a, vec, modes);
  per_block(a, vec, modes, n, NULL);
}

void insdg_task_xpay_gradient(insdg_dfield *x, insdg_coef c, insdg_dfield *y, const insdg_grad_out *g)
{
  INSDG_CHECK(g && g->of == y);
  vec_args a = {.kind = V_XPAY};
  insdg_dfield *vec[4] = {x, y};
  enum starpu_data_access_mode modes[4] = {STARPU_R, STARPU_RW};
  const int n = append_gradient(&a, g, vec, modes, 2);
  per_block(a, vec, modes, n, &c);
}

/* ---- vector work fused into an operator's task (insdg_then) ---------------------------- */
typedef struct {
  vec_args proto;
  int nvec;
  insdg_dfield *vec[INSDG_THEN_MAXD];
  enum starpu_data_access_mode modes[INSDG_THEN_MAXD];
  insdg_dscalar *dots;   /* V_DOTS: the scalar whose partials the blocks write */
} then_spec;

_Static_assert(sizeof(then_spec) <= sizeof(insdg_then), "insdg_then: too small for then_spec");
_Static_assert(sizeof(vec_args) <= sizeof(((insdg_block_then *)0)->args), "insdg_block_then: too small for vec_args");

static void then_block(const insdg_then *t, int b, insdg_block_then *out, struct starpu_data_descr *d);
static void then_done(const insdg_then *t);

void insdg_then_cheb_step(insdg_then *t, insdg_dinv D, double c1, double c2, insdg_dfield *Ad, insdg_dfield *r,
                          insdg_dfield *d, insdg_dfield *d_out, insdg_dfield *x, const insdg_grad_out *g)
{
  then_spec *sp = (then_spec *)t->bytes;
  *sp = (then_spec){.dots = NULL};
  sp->nvec = cheb_step_spec(D, c1, c2, Ad, r, d, d_out, x, g, &sp->proto, sp->vec, sp->modes);
  t->block = then_block, t->done = NULL;
}

void insdg_then_dot(insdg_then *t, insdg_dfield *x, insdg_dfield *y, insdg_dscalar *s)
{
  then_spec *sp = (then_spec *)t->bytes;
  INSDG_CHECK(s->ncomp == 1);
  *sp = (then_spec){.proto = {.kind = V_DOTS, .ndots = 1}, .nvec = 2, .vec = {x, y}, .modes = {STARPU_R, STARPU_R},
                    .dots = s};
  t->block = then_block, t->done = then_done;
}

void insdg_then_sub(insdg_then *t, insdg_dfield *a, insdg_dfield *b, insdg_dfield *y)
{
  then_spec *sp = (then_spec *)t->bytes;
  *sp = (then_spec){.proto = {.kind = V_SUB}, .nvec = 3, .vec = {a, b, y}, .modes = {STARPU_R, STARPU_R, STARPU_W}};
  t->block = then_block, t->done = NULL;
}

void insdg_then_pcg_start(insdg_then *t, insdg_dfield *b, insdg_dfield *Ax, insdg_dfield *r, const insdg_dinv *D,
                          insdg_dfield *z, insdg_dfield *p, insdg_dscalar *s)
{
  then_spec *sp = (then_spec *)t->bytes;
  INSDG_CHECK(s->ncomp == 3 && insdg_task_fuse_local_gradient(s->T));   /* no GPU function */
  *sp = (then_spec){.proto = {.kind = V_PCG_START, .ndots = 3, .prec = D ? V_JACOBI : V_INVMASS},
                    .nvec = 5, .vec = {b, Ax, r, z, p}, .modes = {STARPU_R, STARPU_R, STARPU_W, STARPU_W, STARPU_W},
                    .dots = s};
  if (D) sp->proto.dinv = D->d, sp->proto.dblock = D->block;
  t->block = then_block, t->done = then_done;
}

static void then_run(void *buffers[], const void *args)
{
  vec_args a;
  memcpy(&a, args, sizeof a);
  vec_run(a, buffers);
}

#ifdef INSDG_STARPU_GPU
static void then_run_gpu(void *buffers[], const void *args)
{
  vec_args a;
  memcpy(&a, args, sizeof a);
  vec_run_gpu(a, buffers);
}
#endif

static void then_block(const insdg_then *t, int b, insdg_block_then *out, struct starpu_data_descr *d)
{
  const then_spec *sp = (const then_spec *)t->bytes;
  vec_args a;
  out->run = then_run;
#ifdef INSDG_STARPU_GPU
  out->run_gpu = then_run_gpu;
#else
  out->run_gpu = NULL;
#endif
  out->nd = block_task(&sp->proto, sp->vec, sp->modes, sp->nvec, NULL, b, &a, d);
  INSDG_CHECK(out->nd + 2 * (sp->dots != NULL) <= INSDG_THEN_MAXD);
  if (sp->dots) {
    d[out->nd++] = (struct starpu_data_descr){direct(sp->dots) ? sp->dots->value : sp->dots->partial[b], STARPU_W};
    out->nd += rank_sum_descr(sp->dots, &a, out->nd - 1, d + out->nd);
  }
  memcpy(out->args, &a, sizeof a);
}

static void then_done(const insdg_then *t)
{
  const then_spec *sp = (const then_spec *)t->bytes;
  submit_reduce(sp->dots, sp->proto.ndots);
}

int insdg_then_append(const insdg_then *t, int b, insdg_block_then *bt, struct starpu_data_descr *descr, int n)
{
  struct starpu_data_descr d[INSDG_THEN_MAXD];
  t->block(t, b, bt, d);
  for (int i = 0; i < bt->nd; ++i) {
    int j = 0;
    while (j < n && descr[j].handle != d[i].handle) ++j;
    if (j == n) descr[n++] = d[i];
    else INSDG_CHECK(d[i].mode == STARPU_R || (descr[j].mode & STARPU_W));
    bt->at[i] = j;
  }
  return n;
}

void insdg_then_run(const insdg_block_then *bt, void *buffers[], int gpu)
{
  void *work[INSDG_THEN_MAXD];
  for (int i = 0; i < bt->nd; ++i) work[i] = buffers[bt->at[i]];
  INSDG_CHECK(gpu ? bt->run_gpu != NULL : bt->run != NULL);
  (gpu ? bt->run_gpu : bt->run)(work, bt->args);
}
