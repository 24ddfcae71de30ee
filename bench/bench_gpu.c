/* bench_gpu.c -- the GPU kernels against the empirical roofline of Karakus et al. §5.1,
 * measured on the device the benchmark runs on.
 *
 * Device bounds, measured first:
 *  - device-to-device copy: cudaMemcpy/hipMemcpy of a large buffer; bandwidth B_g counts
 *    bytes read plus bytes written;
 *  - shared memory: B_sh from a kernel streaming conflict-free doubles out of shared
 *    memory on every SM (insdg_gpu_probe_smem_bandwidth), printed beside the paper's
 *    formula #SMs x 32 banks x 4 bytes x clock.
 * Then for N = NMIN..NMAX on a jittered rectangle of at least KMIN (default 100 000)
 * triangles, and enough of them that one field set (8 fields) is at least 4x the L2
 * cache, every kernel (each version of the four studied ones) is timed: two warm-up
 * launches, then REPS launches each between two events, the median kept. For each:
 *   W     flops per element of the algorithm as written (2 per multiply-add), the same
 *         for every version of a kernel;
 *   D     compulsory device-memory bytes per element (fields read and written once,
 *         exterior traces, face maps, geometric factors; operator matrices cached);
 *   S     shared-memory bytes per element the implementation reads and writes
 *         (counted per thread; cuda/README.md lists the formulas);
 *   copy bound  = W K / t_copy, t_copy the measured time of a device-to-device copy of
 *                 D K / 2 bytes (the paper's "(D_in + D_out)/2 bytes");
 *   smem bound  = B_sh W / S;
 *   bound       = min(copy bound, smem bound); fraction = achieved / bound.
 * A table goes to stdout and, with --csv, every number to a CSV file that
 * tools/plot_gpu_roofline.py draws.
 *
 * Usage: bench_gpu [--kmin K] [--nmin N] [--nmax N] [--reps R] [--copy-mib M] [--csv FILE] [--sweep]
 *                  [--only NAME[,NAME...]]
 *   --only: time these kernels alone (names as in the table: local_gradient, mass, ...)
 *   --copy-mib: size of the copy that measures the device-to-device bandwidth (1024)
 *   --sweep: also time every launch candidate (threads per block, elements per thread) of
 *            each element kernel, rows "c<k>" (CSV column candidate = k; -1 on the other
 *            rows): the per-N tuning of cuda/README.md "Tuning". Needs a build with
 *            -DINSDG_GPU_TUNING=ON to see more than the tuned candidate.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "assemble.h"
#include "block.h"
#include "csr.h"
#include "error.h"
#include "insdg_gpu.h"
#include "mesh.h"
#include "ops.h"
#include "ref_tri.h"

/* every GPU call is checked; a failure stops the benchmark */
static void gpu_check(int rc, const char *what, int line)
{
  if (rc == INSDG_GPU_OK) return;
  fprintf(stderr, "bench_gpu: line %d: %s returned %d (%s) %s\n", line, what, rc, insdg_gpu_strerror(rc),
          insdg_gpu_last_error());
  exit(1);
}
#define GPU(call) gpu_check((call), #call, __LINE__)

static int reps = 20, sweep = 0;
static double smem_Bps = 0, copy_Bps = 0;
static FILE *csv = NULL;
static insdg_gpu_info dev;
static insdg_gpu_timer *timer;

static int cmp_double(const void *a, const void *b)
{
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* ---- timing ------------------------------------------------------------------------------ */
typedef int (*run_fn)(void *ctx);

static double median_ms(run_fn run, void *ctx)
{
  double *t = insdg_malloc(sizeof(double) * (size_t)reps);
  for (int w = 0; w < 2; ++w) GPU(run(ctx));
  GPU(insdg_gpu_synchronize());
  for (int r = 0; r < reps; ++r) {
    GPU(insdg_gpu_timer_start(timer, NULL));
    GPU(run(ctx));
    GPU(insdg_gpu_timer_stop(timer, NULL));
    GPU(insdg_gpu_timer_elapsed_ms(timer, &t[r]));
  }
  qsort(t, (size_t)reps, sizeof(double), cmp_double);
  const double m = t[reps / 2];
  free(t);
  return m;
}

/* device-to-device copies */
static double *copy_src, *copy_dst;
static size_t copy_cap, copy_bytes;
static int run_copy(void *ctx)
{
  (void)ctx;
  return insdg_gpu_memcpy_d2d(copy_dst, copy_src, copy_bytes, NULL);
}
static double copy_ms(size_t bytes)
{
  if (bytes > copy_cap) {
    GPU(insdg_gpu_free(copy_src)), GPU(insdg_gpu_free(copy_dst));
    copy_cap = bytes;
    GPU(insdg_gpu_malloc((void **)&copy_src, copy_cap));
    GPU(insdg_gpu_malloc((void **)&copy_dst, copy_cap));
    GPU(insdg_gpu_memset(copy_src, 0x3F, copy_cap));
  }
  copy_bytes = bytes;
  return median_ms(run_copy, NULL);
}

/* ---- the kernels and their costs -------------------------------------------------------- */
enum {
  K_LOCAL_GRADIENT, K_SIPDG, K_ADV_VOLUME, K_ADV_SURFACE, K_GRADIENT_SURFACE, K_DIVERGENCE_VOLUME,
  K_DIVERGENCE_SURFACE, K_MASS, K_INVERSE_MASS, K_PROLONG, K_RESTRICT, K_AXPY, K_AXPBY, K_DOTS, K_LSERK,
  K_CHEB_STEP, K_JACOBI, K_PACK, K_CSR, K_COUNT
};
static const char *kname[K_COUNT] = {
    "local_gradient", "sipdg",  "adv_volume", "adv_surface", "gradient_surface", "divergence_volume",
    "divergence_surface", "mass", "inverse_mass", "pmg_prolong", "pmg_restrict", "axpy", "axpby", "dots(1)",
    "lserk_stage", "chebyshev_step", "jacobi", "pack", "csr_spmv(N=1 SIPDG)"};
static unsigned char only[K_COUNT];   /* --only: the kernels timed (all without it) */
static int nversions(int k) { return k <= K_ADV_SURFACE ? INSDG_GPU_NVERSIONS : 1; }
static int gpu_kernel_id(int k)
{
  switch (k) {
    case K_LOCAL_GRADIENT: return INSDG_GPU_KERNEL_LOCAL_GRADIENT;
    case K_SIPDG: return INSDG_GPU_KERNEL_SIPDG;
    case K_ADV_VOLUME: return INSDG_GPU_KERNEL_ADV_VOLUME;
    case K_ADV_SURFACE: return INSDG_GPU_KERNEL_ADV_SURFACE;
    case K_GRADIENT_SURFACE: return INSDG_GPU_KERNEL_GRADIENT_SURFACE;
    case K_DIVERGENCE_VOLUME: return INSDG_GPU_KERNEL_DIVERGENCE_VOLUME;
    case K_DIVERGENCE_SURFACE: return INSDG_GPU_KERNEL_DIVERGENCE_SURFACE;
    case K_MASS: case K_INVERSE_MASS: return INSDG_GPU_KERNEL_MASS;
    case K_PROLONG: return INSDG_GPU_KERNEL_PMG_PROLONG;
    case K_RESTRICT: return INSDG_GPU_KERNEL_PMG_RESTRICT;
    default: return -1;
  }
}

typedef struct {
  double W, D, S;   /* flops, device bytes, shared bytes; per element (per row for CSR) */
} cost;

/* Per element, degree N (Np nodes, Nfp per face, Nc and Nfc cubature points). The shared
   traffic S follows the implementation of each version (the kernels in cuda/). */
static cost cost_of(int k, int v, int N, int Npc)
{
  const double Np = (N + 1) * (N + 2) / 2.0, Nfp = N + 1, Nq = (3 * N + 2) / 2;
  const double Nc = Nq * Nq, Nf = 3 * Nfp, Nfc = 3 * Nq;   /* Nf, Nfc: per element */
  const double vgeo = 40, sgeo = 120, map = 4 * Nf, bc = 3, trace = 8 * Nf;
  cost c = {0, 0, 0};
  switch (k) {
    case K_LOCAL_GRADIENT:
      c.W = 4 * Np * Np + 6 * Np;
      c.D = 8 * Np + 16 * Np + vgeo;
      c.S = v == 0 ? 0 : 8 * (Np + Np * Np);
      break;
    case K_SIPDG:
      c.W = 6 * Np * Np + 6 * Np * Nf + 10 * Np + 10 * Nf;
      c.D = 24 * Np + 3 * trace + map + sgeo + vgeo + bc + 8 * Np;
      c.S = v == 0 ? 8 * (5 * Np + Nf + 3 * Np * Np + Np * Nf + 2 * Nf)
                   : 8 * (3 * Nf + 5 * Np + 3 * Np * Np + 3 * Np * Nf + 2 * Nf);
      break;
    case K_ADV_VOLUME:
      c.W = 16 * Np * Nc + 10 * Nc;
      c.D = 32 * Np + 16 * Np + vgeo;
      c.S = v == 0 ? 8 * (4 * Nc + 4 * Np * Nc) : 8 * (4 * Np + 4 * Nc + 8 * Np * Nc);
      break;
    case K_ADV_SURFACE:
      c.W = 16 * Nfc * Nfp + 20 * Nfc + 4 * Np * Nfc;   /* = 48 Nfc1 Nfp + 60 Nfc1 + 12 Np Nfc1 */
      c.D = 4 * trace + 4 * trace + map + sgeo + bc + 32 * Np;
      c.S = v == 0 ? 8 * (2 * Nfc + 2 * Np * Nfc) : 8 * (8 * Nf + 2 * Nfc + 8 * Nfc * Nfp + 2 * Np * Nfc);
      break;
    case K_GRADIENT_SURFACE:
      c.W = 4 * Np * Nf + 7 * Nf;
      c.D = 2 * trace + map + sgeo + bc + 32 * Np;
      c.S = 8 * (2 * Nf + 2 * Np * Nf);
      break;
    case K_DIVERGENCE_VOLUME:
      c.W = 4 * Np * Np + 6 * Np;
      c.D = 16 * Np + 8 * Np + vgeo;
      c.S = 8 * (2 * Np + 2 * Np * Np);
      break;
    case K_DIVERGENCE_SURFACE:
      c.W = 2 * Np * Nf + 9 * Nf;
      c.D = 4 * trace + map + sgeo + bc + 16 * Np;
      c.S = 8 * (Nf + Np * Nf);
      break;
    case K_MASS:
    case K_INVERSE_MASS:
      c.W = 2 * Np * Np + Np;
      c.D = 16 * Np + 8;
      c.S = 8 * (Np + Np * Np);
      break;
    case K_PROLONG:
      c.W = 2 * Np * Npc + Np;
      c.D = 8 * Npc + 16 * Np;
      break;
    case K_RESTRICT:
      c.W = 2 * Np * Npc;
      c.D = 8 * Np + 8 * Npc;
      break;
    case K_AXPY: c.W = 2 * Np, c.D = 24 * Np; break;
    case K_AXPBY: c.W = 3 * Np, c.D = 24 * Np; break;
    case K_DOTS: c.W = 2 * Np, c.D = 16 * Np; break;
    case K_LSERK: c.W = 5 * Np, c.D = 40 * Np; break;
    case K_CHEB_STEP: c.W = 6 * Np, c.D = 64 * Np; break;
    case K_JACOBI: c.W = Np, c.D = 24 * Np; break;
    case K_PACK: c.W = 0, c.D = 20 * Nf; break;   /* gather of the exterior traces through mapP */
    default: break;
  }
  return c;
}

/* ---- one degree's data and the launch of kernel k, version v ------------------------------ */
typedef struct {
  int N, K, k, v, Nc;
  insdg_gpu_ref R;
  insdg_gpu_block B;
  signed char *bc;
  double *f[10];
  double *g, *P, *work, *scal, *trace;   /* trace: [K][3Nfp], the pack's output */
  int *idx;
  size_t n;
  /* CSR (N = 1) */
  int nrows, *row_ptr, *col;
  double *val;
} bench;

static int run_kernel(void *ctx)
{
  bench *b = ctx;
  double **f = b->f;
  const insdg_gpu_vec_in U = {f[0], f[1], NULL, NULL, b->g, b->g}, Ut = {f[2], f[3], NULL, NULL, b->g, b->g};
  switch (b->k) {
    case K_LOCAL_GRADIENT: return insdg_gpu_local_gradient(&b->R, &b->B, b->v, f[0], f[4], f[5], NULL);
    case K_SIPDG:
      return insdg_gpu_sipdg(&b->R, &b->B, b->v, b->bc, b->g, 1.0, f[0], f[1], f[2], NULL, NULL, NULL, f[4], NULL);
    case K_ADV_VOLUME: return insdg_gpu_adv_volume(&b->R, &b->B, b->v, f[0], f[1], f[2], f[3], f[4], f[5], NULL);
    case K_ADV_SURFACE: return insdg_gpu_adv_surface(&b->R, &b->B, b->v, b->bc, 1.0, &U, &Ut, f[4], f[5], NULL, NULL);
    case K_GRADIENT_SURFACE: return insdg_gpu_gradient_surface(&b->R, &b->B, b->bc, b->g, f[0], NULL, f[4], f[5], NULL, NULL);
    case K_DIVERGENCE_VOLUME: return insdg_gpu_divergence_volume(&b->R, &b->B, f[0], f[1], f[4], NULL);
    case K_DIVERGENCE_SURFACE: return insdg_gpu_divergence_surface(&b->R, &b->B, b->bc, &U, f[4], NULL, NULL);
    case K_MASS: return insdg_gpu_mass(&b->R, &b->B, 0.5, f[0], f[4], NULL);
    case K_INVERSE_MASS: return insdg_gpu_inverse_mass(&b->R, &b->B, f[0], f[4], NULL);
    case K_PROLONG: return insdg_gpu_pmg_prolong(b->N, b->Nc, b->K, b->P, f[6], f[4], NULL);
    case K_RESTRICT: return insdg_gpu_pmg_restrict(b->N, b->Nc, b->K, b->P, f[0], f[6], NULL);
    case K_AXPY: {
      const insdg_gpu_coef c = {1e-3, b->scal, b->scal + 1};
      return insdg_gpu_axpy(b->n, c, f[0], f[4], NULL);
    }
    case K_AXPBY: return insdg_gpu_axpby(b->n, 0.5, f[0], 0.5, f[4], NULL);
    case K_DOTS: {
      const double *x[1] = {f[0]}, *y[1] = {f[1]};
      return insdg_gpu_dots(b->n, 1, x, y, b->scal + 2, b->work, NULL);
    }
    case K_LSERK: return insdg_gpu_lserk_stage(b->n, -0.4, 0.3, 1e-3, f[0], f[4], f[5], NULL);
    case K_CHEB_STEP: return insdg_gpu_chebyshev_step(b->n, 0.1, 0.2, f[0], f[1], f[4], f[5], f[7], NULL);
    case K_JACOBI: return insdg_gpu_jacobi(b->n, f[0], f[1], f[4], NULL);
    case K_PACK: return insdg_gpu_pack((size_t)b->K * 3 * (b->N + 1), b->idx, f[0], b->trace, NULL);
    case K_CSR:
      return insdg_gpu_csr_spmv(b->nrows, b->row_ptr, b->col, b->val, f[0], NULL, f[4], INSDG_GPU_SPMV_SET, NULL);
    default: return INSDG_GPU_EBADARG;
  }
}

/* cand: the launch candidate a --sweep row ran (-1: the build's per-N choice) */
static void report(bench *b, double flops, double bytes, double sbytes, double ms, int cand)
{
  const double t = ms * 1e-3;
  const double cms = copy_ms((size_t)(bytes / 2));
  const double gflops = flops / t * 1e-9, gbs = bytes / t * 1e-9;
  const double copy_bound = flops > 0 ? flops / (cms * 1e-3) * 1e-9 : 0;
  const double smem_bound = sbytes > 0 ? smem_Bps * flops / sbytes * 1e-9 : INFINITY;
  const double bound = fmin(copy_bound, smem_bound);
  const double frac = flops > 0 ? gflops / bound : (cms / ms);   /* no flops: copy time / kernel time */
  insdg_gpu_launch li = {0, 0, 0, 0};
  const int id = gpu_kernel_id(b->k);
  if (id >= 0) GPU(insdg_gpu_launch_info(id, b->N, b->v, &li));
  char vname[16];
  if (cand >= 0) snprintf(vname, sizeof vname, "c%d", cand);
  else snprintf(vname, sizeof vname, "v%d", b->v);
  printf("%2d %8d  %-20s %-3s %5d %4d %2d %10.2f %9.1f %8.1f %10.1f %10.1f %9.1f %7.1f%%\n", b->N, b->K, kname[b->k],
         vname, li.threads, li.elements_per_block, li.elements_per_thread, 1e6 * t / b->K * 1e3, gflops, gbs,
         copy_bound, smem_bound, bound, 100 * frac);
  if (csv)
    fprintf(csv,
            "\"%s\",%d,%d,%s,%d,%d,%d,%d,%d,%.6e,%.6e,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.1f,%.1f,%.1f,%.3f,%.3f,%.3f,%d\n",
            dev.name, b->N, b->K, kname[b->k], b->v, li.threads, li.elements_per_block, li.elements_per_thread,
            li.shared_bytes, t, t / b->K, gflops, gbs, copy_bound, isinf(smem_bound) ? -1.0 : smem_bound, bound, frac,
            flops / b->K, bytes / b->K, sbytes / b->K, copy_Bps * 1e-9, smem_Bps * 1e-9, bytes / (cms * 1e-3) * 1e-9,
            cand);
  fflush(stdout);
}

static double urand(void)
{
  static uint64_t s = 0x243f6a8885a308d3ull;
  s ^= s << 13, s ^= s >> 7, s ^= s << 17;
  return 2.0 * ((double)(s >> 11) / 9007199254740992.0) - 1.0;
}

static double *dev_random(size_t n, double offset)
{
  double *h = insdg_malloc(sizeof(double) * (n > 0 ? n : 1)), *d = NULL;
  for (size_t i = 0; i < n; ++i) h[i] = offset + urand();
  GPU(insdg_gpu_malloc((void **)&d, sizeof(double) * n));
  GPU(insdg_gpu_memcpy_h2d(d, h, sizeof(double) * n));
  free(h);
  return d;
}

static void bench_degree(int N, int kmin)
{
  insdg_ref *ref = insdg_ref_create(N);
  insdg_ops *op = insdg_ops_create(ref);
  const double field_bytes = 8.0 * 8 * ref->Np;   /* eight fields per element */
  const double kwant = fmax(kmin, 4.0 * dev.l2_bytes / field_bytes);
  const int nx = (int)ceil(sqrt(kwant / 2));
  insdg_mesh *m = insdg_mesh_rectangle(nx, nx, 0.0, 1.0, 0.0, 1.0, 0.2, 11u);
  insdg_mesh_set_ref(m, ref);
  insdg_block *blk = insdg_block_create(m, 0, m->K);
  signed char codes[INSDG_MAX_BOUNDARIES], *bc = insdg_malloc(3 * (size_t)m->K);
  for (int i = 0; i < INSDG_MAX_BOUNDARIES; ++i) codes[i] = INSDG_BC_DIRICHLET;
  codes[insdg_mesh_boundary(m, "right")] = INSDG_BC_NEUMANN;
  insdg_block_bc_codes(blk, codes, bc);

  bench b;
  memset(&b, 0, sizeof b);
  b.N = N, b.K = m->K, b.n = (size_t)m->K * ref->Np;
  b.Nc = N > 1 ? (N + 1) / 2 : 0;
  GPU(insdg_gpu_ref_create(ref, &b.R));
  GPU(insdg_gpu_block_create(blk, &b.B));
  GPU(insdg_gpu_malloc((void **)&b.bc, 3 * (size_t)m->K));
  GPU(insdg_gpu_memcpy_h2d(b.bc, bc, 3 * (size_t)m->K));
  for (int i = 0; i < 10; ++i) b.f[i] = dev_random(b.n, i == 0 ? 1.5 : 0.0);   /* f[0] > 0: dinv of Jacobi */
  b.g = dev_random((size_t)m->K * 3 * ref->Nfp, 0.0);
  b.trace = dev_random((size_t)m->K * 3 * ref->Nfp, 0.0);
  b.work = dev_random(INSDG_GPU_DOTS_BLOCKS, 0.0);
  b.scal = dev_random(4, 2.0);
  b.idx = NULL;
  GPU(insdg_gpu_malloc((void **)&b.idx, sizeof(int) * (size_t)m->K * 3 * ref->Nfp));
  GPU(insdg_gpu_memcpy_h2d(b.idx, blk->mapP, sizeof(int) * (size_t)m->K * 3 * ref->Nfp));
  int Npc = 0;
  if (N > 1) {
    insdg_ref *rc = insdg_ref_create(b.Nc);
    Npc = rc->Np;
    double *P = insdg_malloc(sizeof(double) * (size_t)ref->Np * Npc);
    insdg_ref_interp_matrix(rc, ref, P);
    GPU(insdg_gpu_malloc((void **)&b.P, sizeof(double) * (size_t)ref->Np * Npc));
    GPU(insdg_gpu_memcpy_h2d(b.P, P, sizeof(double) * (size_t)ref->Np * Npc));
    free(P);
    insdg_ref_destroy(rc);
  }
  insdg_csr *A = NULL;
  if (N == 1) {   /* the degree-1 level of pMG-AMG: the assembled SIPDG matrix */
    A = insdg_assemble_sipdg(m, op, bc, 1.0);
    b.nrows = A->nrows;
    GPU(insdg_gpu_malloc((void **)&b.row_ptr, sizeof(int) * ((size_t)A->nrows + 1)));
    GPU(insdg_gpu_malloc((void **)&b.col, sizeof(int) * (size_t)A->nnz));
    GPU(insdg_gpu_malloc((void **)&b.val, sizeof(double) * (size_t)A->nnz));
    GPU(insdg_gpu_memcpy_h2d(b.row_ptr, A->row_ptr, sizeof(int) * ((size_t)A->nrows + 1)));
    GPU(insdg_gpu_memcpy_h2d(b.col, A->col, sizeof(int) * (size_t)A->nnz));
    GPU(insdg_gpu_memcpy_h2d(b.val, A->val, sizeof(double) * (size_t)A->nnz));
  }
  for (int k = 0; k < K_COUNT; ++k) {
    if (!only[k] || ((k == K_PROLONG || k == K_RESTRICT) && N < 2)) continue;
    if (k == K_CSR && N != 1) continue;
    for (int v = 0; v < nversions(k); ++v) {
      b.k = k, b.v = v;
      const double ms = median_ms(run_kernel, &b);
      const cost c = cost_of(k, v, N, Npc);
      double W = c.W * b.K, D = c.D * b.K, S = c.S * b.K;
      if (k == K_CSR) W = 2.0 * A->nnz, D = 12.0 * A->nnz + 4.0 * (A->nrows + 1) + 16.0 * A->nrows, S = 0;
      report(&b, W, D, S, ms, -1);
    }
  }
  /* --sweep: every launch candidate of each element kernel that has them (a build with
     -DINSDG_GPU_TUNING=ON compiles them all; otherwise only the tuned one runs) */
  for (int k = 0; sweep && k < K_COUNT; ++k) {
    const int id = gpu_kernel_id(k);
    if (id < 0 || !only[k] || ((k == K_PROLONG || k == K_RESTRICT) && N < 2)) continue;
    const int v = k <= K_ADV_SURFACE ? INSDG_GPU_NVERSIONS - 1 : 0;
    for (int c = 0; c < INSDG_GPU_NCANDIDATES; ++c) {
      insdg_gpu_launch li;
      GPU(insdg_gpu_select_candidate(id, c));
      if (insdg_gpu_launch_info(id, N, v, &li) != INSDG_GPU_OK) continue;   /* not compiled, or too much shared */
      b.k = k, b.v = v;
      const double ms = median_ms(run_kernel, &b);
      const cost co = cost_of(k, v, N, Npc);
      report(&b, co.W * b.K, co.D * b.K, co.S * b.K, ms, c);
    }
    GPU(insdg_gpu_select_candidate(id, -1));
  }
  if (A) {
    GPU(insdg_gpu_free(b.row_ptr)), GPU(insdg_gpu_free(b.col)), GPU(insdg_gpu_free(b.val));
    insdg_csr_destroy(A);
  }
  for (int i = 0; i < 10; ++i) GPU(insdg_gpu_free(b.f[i]));
  GPU(insdg_gpu_free(b.g)), GPU(insdg_gpu_free(b.work)), GPU(insdg_gpu_free(b.scal)), GPU(insdg_gpu_free(b.idx));
  GPU(insdg_gpu_free(b.P)), GPU(insdg_gpu_free(b.bc)), GPU(insdg_gpu_free(b.trace));
  insdg_gpu_block_destroy(&b.B);
  insdg_gpu_ref_destroy(&b.R);
  free(bc);
  insdg_block_destroy(blk);
  insdg_mesh_destroy(m);
  insdg_ops_destroy(op);
  insdg_ref_destroy(ref);
}

int main(int argc, char **argv)
{
  int kmin = 100000, nmin = 1, nmax = INSDG_GPU_NMAX, copy_mib = 1024;
  const char *csv_path = NULL;
  memset(only, 1, sizeof only);
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--kmin") && i + 1 < argc) kmin = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--nmin") && i + 1 < argc) nmin = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--nmax") && i + 1 < argc) nmax = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--copy-mib") && i + 1 < argc) copy_mib = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--csv") && i + 1 < argc) csv_path = argv[++i];
    else if (!strcmp(argv[i], "--sweep")) sweep = 1;
    else if (!strcmp(argv[i], "--only") && i + 1 < argc) {
      const char *list = argv[++i];
      memset(only, 0, sizeof only);
      for (const char *p = list; *p;) {
        const size_t len = strcspn(p, ",");
        int found = 0;
        for (int k = 0; k < K_COUNT; ++k)
          if (strlen(kname[k]) == len && !strncmp(kname[k], p, len)) only[k] = 1, found = 1;
        if (!found) {
          fprintf(stderr, "bench_gpu: --only: no kernel named '%.*s'\n", (int)len, p);
          return 2;
        }
        p += len + (p[len] == ',');
      }
    } else {
      fprintf(stderr, "usage: bench_gpu [--kmin K] [--nmin N] [--nmax N<=%d] [--reps R] [--copy-mib M] [--csv FILE] [--sweep] "
              "[--only NAME[,NAME...]]\n", INSDG_GPU_NMAX);
      return 2;
    }
  }
  if (kmin < 2 || nmin < 1 || nmax < nmin || nmax > INSDG_GPU_NMAX || reps < 1 || copy_mib < 1) {
    fprintf(stderr, "bench_gpu: need --kmin >= 2, 1 <= --nmin <= --nmax <= %d, --reps >= 1, --copy-mib >= 1\n",
            INSDG_GPU_NMAX);
    return 2;
  }
  if (insdg_gpu_device_count() < 1) {
    fprintf(stderr, "bench_gpu: no GPU visible (%s)\n", insdg_gpu_last_error());
    return 1;
  }
  GPU(insdg_gpu_set_device(0));
  GPU(insdg_gpu_device_info(0, &dev));
  GPU(insdg_gpu_timer_create(&timer));
  /* device-to-device copy bandwidth (bytes read + written) */
  const size_t big = (size_t)copy_mib << 20;
  copy_Bps = 2.0 * big / (copy_ms(big) * 1e-3);
  GPU(insdg_gpu_probe_smem_bandwidth(&smem_Bps));
  printf("# device: %s, %d SMs at %.0f MHz, L2 %.0f MiB, warp %d\n", dev.name, dev.sm_count, dev.clock_khz / 1e3,
         dev.l2_bytes / 1048576.0, dev.warp_size);
  printf("# device-to-device copy: %.1f GB/s (read + write, %d MiB copied)\n", copy_Bps * 1e-9, copy_mib);
  printf("# shared memory: %.1f GB/s measured, %.1f GB/s by the paper's formula (SMs x 32 x 4 B x clock)\n",
         smem_Bps * 1e-9, dev.smem_bandwidth_formula * 1e-9);
  printf("# median of %d runs; bounds: copy = W / t(copy of D/2 bytes), smem = B_sh W / S, bound = min\n", reps);
  printf("%2s %8s  %-20s %2s %5s %4s %2s %10s %9s %8s %10s %10s %9s %8s\n", "N", "K", "kernel", "v", "thr", "e/b", "e/t",
         "ns/elem", "GFLOP/s", "GB/s", "copy bnd", "smem bnd", "bound", "fraction");
  if (csv_path) {
    csv = fopen(csv_path, "w");
    if (!csv) {
      fprintf(stderr, "bench_gpu: cannot write %s\n", csv_path);
      return 2;
    }
    fprintf(csv, "device,N,K,kernel,version,threads,elements_per_block,elements_per_thread,shared_bytes,seconds,"
                 "seconds_per_element,gflops,gbs,copy_bound_gflops,smem_bound_gflops,bound_gflops,fraction,"
                 "flops_per_element,bytes_per_element,smem_bytes_per_element,copy_gbs,smem_gbs,copy_gbs_at_size,candidate\n");
  }
  for (int N = nmin; N <= nmax; ++N) bench_degree(N, kmin);
  if (csv) fclose(csv);
  GPU(insdg_gpu_free(copy_src)), GPU(insdg_gpu_free(copy_dst));
  insdg_gpu_timer_destroy(timer);
  return 0;
}
