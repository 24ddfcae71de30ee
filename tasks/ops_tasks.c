/* ops_tasks.c -- codelets and task submission for the block operators (ops_tasks.h).
 *
 * One codelet, `block_op`, runs one operator on one block; its buffers, in order, are
 *   [inputs (nin)] [halo sources: nhalo_fields x ndeps(d)] [outputs (nout)]
 * where the halo sources of a field are the neighbouring blocks of the same rank and the
 * field's receive buffers from neighbour ranks (exchange.h). The halo values of a field
 * are gathered into the block's contiguous halo array (block.h layout, per-thread
 * scratch) before the kernel runs: surface-sized work, no task and no copy of its own.
 */
#include "ops_tasks.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "exchange.h"
#include "starpu_gpu.h"
#include "vec_tasks.h"

enum op_kind { OP_LOCAL_GRADIENT, OP_GRADIENT_SURFACE, OP_DIVERGENCE_VOLUME, OP_DIVERGENCE_SURFACE, OP_SIPDG,
               OP_ADV_VOLUME, OP_ADV_SURFACE };
enum { MAX_FIELDS = 4 };

typedef struct {
  int kind;
  const insdg_ops *op;
  const insdg_block *b;
  const insdg_xplan *x;
  int d;                          /* the block */
  int nin, nhalo_fields, nout;
  const signed char *bc;          /* block's [K][3] */
  const double *g[MAX_FIELDS];    /* block's [K][3Nfp] or NULL */
  double lambda;                  /* SIPDG lambda, or advection lambda factor */
  int part;                       /* SIPDG: PART_* */
  int x_in_task;                  /* the halo exchange in this task (insdg_xplan_in_task) */
} op_args;

/* The SIPDG operator of a block runs as one task (PART_ALL), or on CPUs as two: its
   elements [0, Kin), which read no halo, as soon as the block's own local gradient is
   there (PART_INNER), and the rest once the neighbours' are (PART_CUT). A block's workers
   then wait for a neighbour only at the cut part, which is short. */
enum { PART_ALL, PART_INNER, PART_CUT };

/* ---- block operators ------------------------------------------------------------------- */
/* The block's input and output buffers (the CPU and the GPU function read the same
   layout): returns the number of halo sources per field. */
static int block_buffers(void *buffers[], const op_args *a, const double **in, double **out)
{
  const int ndeps = insdg_xplan_ndeps(a->x, a->d);
  for (int i = 0; i < a->nin; ++i) in[i] = (const double *)STARPU_VECTOR_GET_PTR(buffers[i]);
  for (int i = 0; i < a->nout; ++i)
    out[i] = (double *)STARPU_VECTOR_GET_PTR(buffers[a->nin + a->nhalo_fields * ndeps + i]);
  return ndeps;
}

static void block_op_run(op_args a, void *buffers[])
{
  const double *in[MAX_FIELDS] = {0}, *halo[MAX_FIELDS] = {0};
  double *out[2] = {0};
  const int ndeps = block_buffers(buffers, &a, in, out);
  int e_begin = a.part == PART_CUT ? a.b->Kin : 0;   /* SIPDG: the elements left to do */
  if (a.x_in_task) {   /* post; the SIPDG's inner elements while the messages travel; finish */
    void *own[MAX_FIELDS];
    for (int fld = 0; fld < a.nhalo_fields; ++fld) own[fld] = buffers[fld];
    insdg_xplan_post_in_task(a.x, a.nhalo_fields, own);
    if (a.kind == OP_SIPDG && a.b->Kin > 0) {
      insdg_op_sipdg_elements(a.op, a.b, a.bc, a.g[0], a.lambda, in[0], in[1], in[2], NULL, NULL, NULL, out[0], 0,
                              a.b->Kin);
      e_begin = a.b->Kin;
    }
    insdg_xplan_finish_in_task(a.x, a.d, a.nhalo_fields, buffers, a.nin);
  }
  if (a.nhalo_fields > 0) {
    const size_t nhalo = (size_t)a.b->nhalo;
    double *scratch = insdg_thread_scratch(0, (size_t)a.nhalo_fields * nhalo + 1);
    for (int fld = 0; fld < a.nhalo_fields; ++fld) {
      double *h = scratch + (size_t)fld * nhalo;
      insdg_xplan_gather(a.x, a.d, buffers, a.nin + fld * ndeps, h);
      halo[fld] = h;
    }
  }
  switch (a.kind) {
    case OP_LOCAL_GRADIENT:
      insdg_op_local_gradient(a.op, a.b, in[0], out[0], out[1]);
      break;
    case OP_GRADIENT_SURFACE:
      insdg_op_gradient_surface(a.op, a.b, a.bc, a.g[0], in[0], halo[0], out[0], out[1]);
      break;
    case OP_DIVERGENCE_VOLUME:
      insdg_op_divergence_volume(a.op, a.b, in[0], in[1], out[0]);
      break;
    case OP_DIVERGENCE_SURFACE: {
      insdg_vec_in U = {in[0], in[1], halo[0], halo[1], a.g[0], a.g[1]};
      insdg_op_divergence_surface(a.op, a.b, a.bc, &U, out[0]);
      break;
    }
    case OP_SIPDG: {
      const int e_end = a.part == PART_INNER ? a.b->Kin : a.b->K;
      insdg_op_sipdg_elements(a.op, a.b, a.bc, a.g[0], a.lambda, in[0], in[1], in[2], halo[0], halo[1], halo[2], out[0],
                              e_begin, e_end);
      break;
    }
    case OP_ADV_VOLUME:
      insdg_op_adv_volume(a.op, a.b, in[0], in[1], in[2], in[3], out[0], out[1]);
      break;
    case OP_ADV_SURFACE: {
      insdg_vec_in Ub = {in[0], in[1], halo[0], halo[1], a.g[0], a.g[1]};
      insdg_vec_in Ut = {in[2], in[3], halo[2], halo[3], a.g[2], a.g[3]};
      insdg_op_adv_surface(a.op, a.b, a.bc, a.lambda, &Ub, &Ut, out[0], out[1]);
      break;
    }
    default:
      INSDG_CHECK(!"unknown operator");
  }
}

static void block_op_cpu(void *buffers[], void *cl_arg)
{
  op_args a;
  starpu_codelet_unpack_args(cl_arg, &a);
  block_op_run(a, buffers);
}

/* the operator, then the fused vector work on the block's nodes (insdg_task_sipdg_then):
   buffers [the operator's] [the work's not among them] (insdg_then_append) */
static void block_op_then_cpu(void *buffers[], void *cl_arg)
{
  op_args a;
  insdg_block_then bt;
  starpu_codelet_unpack_args(cl_arg, &a, &bt);
  block_op_run(a, buffers);
  insdg_then_run(&bt, buffers, 0);
}

#ifdef INSDG_STARPU_GPU
/* block_op on the GPU: the same buffers; the pair halos are gathered into scratch slot 0
   on the stream, the boundary data (host, per step) uploaded into slot 1, and the kernel
   of insdg_gpu.h that matches the CPU operator runs (default versions; curved elements
   included, slot 2 their surface operators' work). */
static void block_op_run_gpu(op_args a, void *buffers[])
{
  void *stream = insdg_starpu_gpu_stream();
  const insdg_gpu_ref *R = insdg_starpu_gpu_ref(a.op->ref);
  const insdg_gpu_block *B = insdg_starpu_gpu_block(a.b);
  const double *in[MAX_FIELDS] = {0}, *halo[MAX_FIELDS] = {0}, *g[MAX_FIELDS] = {0};
  double *out[2] = {0};
  const int ndeps = block_buffers(buffers, &a, in, out);
  if (a.nhalo_fields > 0 && a.b->nhalo > 0) {
    const size_t nhalo = (size_t)a.b->nhalo;
    double *h = insdg_starpu_gpu_scratch(0, sizeof(double) * nhalo * (size_t)a.nhalo_fields, stream);
    for (int fld = 0; fld < a.nhalo_fields; ++fld) {
      insdg_starpu_gpu_gather_halos(a.x, a.d, buffers, a.nin + fld * ndeps, h + fld * nhalo, stream);
      halo[fld] = h + fld * nhalo;
    }
  }
  const size_t K = (size_t)a.b->K, Nfp = (size_t)a.b->Nfp;
  insdg_starpu_gpu_upload(1, a.g, MAX_FIELDS, K * 3 * Nfp, g, stream);
  const signed char *bc = insdg_starpu_gpu_static(a.bc, K * 3);
  const int v = INSDG_GPU_VERSION_DEFAULT;
  /* the surface operators keep a block's curved elements' outputs here (insdg_gpu.h) */
  const size_t nwork = insdg_gpu_curved_work_doubles(B);
  double *work = nwork ? insdg_starpu_gpu_scratch(2, sizeof(double) * nwork, stream) : NULL;
  int rc = INSDG_GPU_EBADARG;
  switch (a.kind) {
    case OP_LOCAL_GRADIENT:
      rc = insdg_gpu_local_gradient(R, B, v, in[0], out[0], out[1], stream);
      break;
    case OP_GRADIENT_SURFACE:
      rc = insdg_gpu_gradient_surface(R, B, bc, g[0], in[0], halo[0], out[0], out[1], work, stream);
      break;
    case OP_DIVERGENCE_VOLUME:
      rc = insdg_gpu_divergence_volume(R, B, in[0], in[1], out[0], stream);
      break;
    case OP_DIVERGENCE_SURFACE: {
      insdg_gpu_vec_in U = {in[0], in[1], halo[0], halo[1], g[0], g[1]};
      rc = insdg_gpu_divergence_surface(R, B, bc, &U, out[0], work, stream);
      break;
    }
    case OP_SIPDG:
      INSDG_CHECK(a.part == PART_ALL);   /* insdg_task_sipdg_in_parts */
      rc = insdg_gpu_sipdg(R, B, v, bc, g[0], a.lambda, in[0], in[1], in[2], halo[0], halo[1], halo[2], out[0],
                           stream);
      break;
    case OP_ADV_VOLUME:
      rc = insdg_gpu_adv_volume(R, B, v, in[0], in[1], in[2], in[3], out[0], out[1], stream);
      break;
    case OP_ADV_SURFACE: {
      insdg_gpu_vec_in Ub = {in[0], in[1], halo[0], halo[1], g[0], g[1]};
      insdg_gpu_vec_in Ut = {in[2], in[3], halo[2], halo[3], g[2], g[3]};
      rc = insdg_gpu_adv_surface(R, B, v, bc, a.lambda, &Ub, &Ut, out[0], out[1], work, stream);
      break;
    }
    default:
      INSDG_CHECK(!"unknown operator");
  }
  insdg_starpu_gpu_check(rc, "block operator");
}

static void block_op_cuda(void *buffers[], void *cl_arg)
{
  op_args a;
  starpu_codelet_unpack_args(cl_arg, &a);
  block_op_run_gpu(a, buffers);
}

/* block_op_then_cpu's GPU function: the fused work's launches after the kernel's */
static void block_op_then_cuda(void *buffers[], void *cl_arg)
{
  op_args a;
  insdg_block_then bt;
  starpu_codelet_unpack_args(cl_arg, &a, &bt);
  block_op_run_gpu(a, buffers);
  insdg_then_run(&bt, buffers, 1);
}
#endif

static struct starpu_codelet block_op_cl = {
    INSDG_CODELET_FUNCS(block_op_cpu, block_op_cuda)
    .nbuffers = STARPU_VARIABLE_NBUFFERS, .name = "insdg_block_op"};
static struct starpu_codelet block_op_then_cl = {
    INSDG_CODELET_FUNCS(block_op_then_cpu, block_op_then_cuda)
    .nbuffers = STARPU_VARIABLE_NBUFFERS, .name = "insdg_block_op_then"};


static const char *op_name[] = {"local_gradient",     "gradient_surface", "divergence_volume", "divergence_surface",
                                "sipdg",              "adv_volume",       "adv_surface"};

/* Submit kind on every block of this rank: inputs read, halos of the first nhalo_fields
   inputs read (neighbouring blocks and receive buffers), outputs written (or
   read-written when accumulate, for the surface term). then (or NULL): vector work each
   block's task runs after its kernel (insdg_task_sipdg_then). */
static void submit_block_ops(op_args proto, insdg_dfield **in, insdg_dfield **out, int accumulate,
                             const double *const *g_global, const insdg_then *then)
{
  insdg_tasks *T = in[0]->T;
  const insdg_layout *L = T->L;
  const int Nfp = L->mesh->ref->Nfp;
#ifdef INSDG_STARPU_GPU
  block_op_cl.where = block_op_then_cl.where = insdg_starpu_gpu_where();
#endif
  for (int d = T->b_begin; d < T->b_end; ++d) {
    op_args a = proto;
    a.x = T->x, a.op = T->op, a.d = d, a.b = L->block[d];
    const int Kin = a.b->Kin;
    if ((a.part == PART_INNER && Kin == 0) || (a.part == PART_CUT && Kin == a.b->K && !then)) continue;   /* empty part */
    const int out_mode = accumulate || (a.part == PART_CUT && Kin > 0) ? STARPU_RW : STARPU_W;
    const int e0 = L->block_start[d];
    if (a.bc) a.bc += 3 * (size_t)e0;
    for (int k = 0; k < MAX_FIELDS; ++k) a.g[k] = g_global && g_global[k] ? g_global[k] + (size_t)e0 * 3 * Nfp : NULL;
    const int nbuf = a.nin + a.nhalo_fields * insdg_xplan_ndeps(T->x, d) + a.nout + a.x_in_task;
    struct starpu_data_descr *descr = insdg_thread_scratch_descr(nbuf + (then ? INSDG_THEN_MAXD : 0));
    int n = 0;
    for (int i = 0; i < a.nin; ++i) descr[n++] = (struct starpu_data_descr){in[i]->block[d], STARPU_R};
    for (int fld = 0; fld < a.nhalo_fields; ++fld)
      n += insdg_xplan_halo_descr(T->x, d, in[fld]->block, in[fld]->recv, descr + n, a.x_in_task ? STARPU_W : STARPU_R);
    for (int i = 0; i < a.nout; ++i)
      descr[n++] = (struct starpu_data_descr){out[i]->block[d], out_mode};
    if (a.x_in_task) descr[n++] = (struct starpu_data_descr){insdg_runtime_comm_token(), STARPU_RW};
    const char *name = a.part == PART_CUT ? "sipdg_cut" : op_name[a.kind];
    int status;
    if (then) {   /* the work's data after the operator's, each handle once */
      insdg_block_then bt;
      const int nall = insdg_then_append(then, d, &bt, descr, nbuf);
      status = INSDG_TASK_INSERT(&block_op_then_cl, STARPU_DATA_MODE_ARRAY, descr, nall, STARPU_VALUE, &a,
                                 sizeof a, STARPU_VALUE, &bt, sizeof bt, STARPU_NAME, name, 0);
    } else {
      status = INSDG_TASK_INSERT(&block_op_cl, STARPU_DATA_MODE_ARRAY, descr, nbuf, STARPU_VALUE, &a, sizeof a,
                                 STARPU_NAME, name, 0);
    }
    INSDG_CHECK(status == 0);
  }
  if (then && then->done) then->done(then);
}

/* The exchange of the halo fields f[0 .. a->nhalo_fields) of the operator a (its inputs
   f[0 ..], distinct fields): one task per rank before the operator's, or, with one block on
   this rank and CPU codelets, inside the operator's task (insdg_xplan_in_task): on several
   ranks of one worker each (the default there) that spares a task and a dependent hop per
   exchange, and the SIPDG's inner elements run while the messages travel. */
static void halo_exchange(op_args *a, insdg_dfield *const *f)
{
  if (insdg_task_exchange_in_task(f[0]->T->x)) a->x_in_task = 1;
  else insdg_dfield_exchange(a->nhalo_fields, f);
}

void insdg_task_local_gradient(insdg_dfield *u, insdg_dfield *ux, insdg_dfield *uy)
{
  op_args a = {.kind = OP_LOCAL_GRADIENT, .nin = 1, .nout = 2};
  submit_block_ops(a, (insdg_dfield *[]){u}, (insdg_dfield *[]){ux, uy}, 0, NULL, NULL);
}

void insdg_task_gradient(const signed char *bc, const double *g, insdg_dfield *p, insdg_dfield *px,
                         insdg_dfield *py)
{
  insdg_task_local_gradient(p, px, py);   /* volume: no halo */
  op_args a = {.kind = OP_GRADIENT_SURFACE, .nin = 1, .nhalo_fields = 1, .nout = 2, .bc = bc};
  halo_exchange(&a, (insdg_dfield *[]){p});
  submit_block_ops(a, (insdg_dfield *[]){p}, (insdg_dfield *[]){px, py}, 1, (const double *[]){g, 0, 0, 0}, NULL);
}

void insdg_task_divergence(const signed char *bc, const double *gu, const double *gv, insdg_dfield *u,
                           insdg_dfield *v, insdg_dfield *divu)
{
  op_args vol = {.kind = OP_DIVERGENCE_VOLUME, .nin = 2, .nout = 1};
  submit_block_ops(vol, (insdg_dfield *[]){u, v}, (insdg_dfield *[]){divu}, 0, NULL, NULL);
  op_args a = {.kind = OP_DIVERGENCE_SURFACE, .nin = 2, .nhalo_fields = 2, .nout = 1, .bc = bc};
  halo_exchange(&a, (insdg_dfield *[]){u, v});
  submit_block_ops(a, (insdg_dfield *[]){u, v}, (insdg_dfield *[]){divu}, 1, (const double *[]){gu, gv, 0, 0}, NULL);
}

/* 1 where the codelets run on CPU workers (not GPU codelets, nor their CPU emulation) */
static int cpu_codelets(void)
{
#if defined INSDG_GPU_CODELETS_ON_CPU
  return 0;
#elif defined INSDG_STARPU_GPU
  return insdg_starpu_gpu_where() == STARPU_CPU;
#else
  return 1;
#endif
}

int insdg_task_sipdg_in_parts(const insdg_tasks *T)
{
  return T->size > 1 && T->b_end - T->b_begin >= 2 && cpu_codelets();
}

int insdg_task_exchange_in_task(const insdg_xplan *x) { return insdg_xplan_in_task(x) && cpu_codelets(); }

int insdg_task_fuse_local_gradient(const insdg_tasks *T)
{
  (void)T;
  return cpu_codelets();
}

/* A u, the local gradient (ux, uy) of u made here unless given; then: fused work, or NULL */
static void sipdg_tasks(const signed char *bc, const double *g, double lambda, insdg_dfield *u, insdg_dfield *ux,
                        insdg_dfield *uy, insdg_dfield *Au, int gradient_given, const insdg_then *then)
{
  insdg_dfield *in[3] = {u, ux, uy};
  const double *gs[MAX_FIELDS] = {g};
  if (!gradient_given) insdg_task_local_gradient(u, ux, uy);
  op_args a = {.kind = OP_SIPDG, .nin = 3, .nhalo_fields = 3, .nout = 1, .bc = bc, .lambda = lambda};
  if (insdg_task_sipdg_in_parts(u->T)) {   /* the inner parts run while the halos travel */
    op_args inner = a;
    inner.nhalo_fields = 0, inner.part = PART_INNER;
    insdg_dfield_exchange_post(3, in);
    submit_block_ops(inner, in, (insdg_dfield *[]){Au}, 0, gs, NULL);
    insdg_dfield_exchange_finish(3, in);
    a.part = PART_CUT;
  } else {
    halo_exchange(&a, in);   /* one message per neighbour rank */
  }
  submit_block_ops(a, in, (insdg_dfield *[]){Au}, 0, gs, then);
}

void insdg_task_sipdg_data(const signed char *bc, const double *g, double lambda, insdg_dfield *u,
                           insdg_dfield *ux, insdg_dfield *uy, insdg_dfield *Au)
{
  sipdg_tasks(bc, g, lambda, u, ux, uy, Au, 0, NULL);
}

void insdg_task_sipdg(const signed char *bc, double lambda, insdg_dfield *u, insdg_dfield *ux,
                      insdg_dfield *uy, insdg_dfield *Au)
{
  sipdg_tasks(bc, NULL, lambda, u, ux, uy, Au, 0, NULL);
}

void insdg_task_sipdg_given_gradient(const signed char *bc, double lambda, insdg_dfield *u, insdg_dfield *ux,
                                     insdg_dfield *uy, insdg_dfield *Au)
{
  sipdg_tasks(bc, NULL, lambda, u, ux, uy, Au, 1, NULL);
}

void insdg_task_sipdg_then(const signed char *bc, double lambda, insdg_dfield *u, insdg_dfield *ux, insdg_dfield *uy,
                           insdg_dfield *Au, int gradient_given, const insdg_then *t)
{
  INSDG_CHECK(t != NULL);
  sipdg_tasks(bc, NULL, lambda, u, ux, uy, Au, gradient_given, t);
}

static void advection_tasks(const signed char *bc, double lambda_factor, const double *const *g,
                            insdg_dfield **fields, insdg_dfield *Nu, insdg_dfield *Nv)
{
  op_args vol = {.kind = OP_ADV_VOLUME, .nin = 4, .nout = 2};
  submit_block_ops(vol, fields, (insdg_dfield *[]){Nu, Nv}, 0, NULL, NULL);
  insdg_dfield *distinct[4];
  int nd = 0;
  for (int k = 0; k < 4; ++k) {
    int seen = 0;   /* N(U) passes u, v twice: exchange each field once */
    for (int j = 0; j < k; ++j) seen |= fields[j] == fields[k];
    if (!seen) distinct[nd++] = fields[k];
  }
  insdg_dfield_exchange(nd, distinct);
  op_args surf = {.kind = OP_ADV_SURFACE, .nin = 4, .nhalo_fields = 4, .nout = 2, .bc = bc, .lambda = lambda_factor};
  submit_block_ops(surf, fields, (insdg_dfield *[]){Nu, Nv}, 1, g, NULL);
}

void insdg_task_advection(const signed char *bc, const double *gu, const double *gv, insdg_dfield *u,
                          insdg_dfield *v, insdg_dfield *Nu, insdg_dfield *Nv)
{
  advection_tasks(bc, 2.0, (const double *[]){gu, gv, gu, gv}, (insdg_dfield *[]){u, v, u, v}, Nu, Nv);
}

void insdg_task_subcycle(const signed char *bc, const double *gub, const double *gvb, const double *gut,
                         const double *gvt, insdg_dfield *ub, insdg_dfield *vb, insdg_dfield *ut,
                         insdg_dfield *vt, insdg_dfield *Nu, insdg_dfield *Nv)
{
  advection_tasks(bc, 1.0, (const double *[]){gub, gvb, gut, gvt}, (insdg_dfield *[]){ub, vb, ut, vt}, Nu, Nv);
}
