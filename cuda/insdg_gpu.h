/* insdg_gpu.h -- plain C interface to insdg's GPU kernels (CUDA or HIP).
 *
 * No CUDA/HIP types appear here: streams are passed as void* (a cudaStream_t /
 * hipStream_t, or NULL for the default stream) and every array argument of a kernel
 * launcher is a device pointer. Link against insdg_cuda (nvcc build) or insdg_hip
 * (hipcc build); both export the same symbols from the same sources, so link exactly one.
 *
 * Every kernel computes what its CPU counterpart computes, on the same data layouts
 * (src/ops.h, src/block.h, tasks/vec_tasks.c, tasks/pmg.c, src/csr.h):
 *   fields [K][Np] of one block; exterior traces through mapP, from the field's halo
 *   array when mapP >= K*Np; boundary codes bc[K][3] (INSDG_BC_*); boundary data
 *   g[K][3*Nfp] or NULL (zero).
 * The static data of a degree (reference operators) and of a block (geometry, face map)
 * are uploaded once into an insdg_gpu_ref and an insdg_gpu_block.
 *
 * Launchers are asynchronous on `stream` and return INSDG_GPU_OK or a negative code:
 * argument errors are found before anything is launched, launch errors by
 * get-last-error right after the launch. Runtime wrappers (allocation, copies, timers)
 * return INSDG_GPU_ERUNTIME on a runtime failure and keep the runtime's message for
 * insdg_gpu_last_error().
 *
 * The four kernels studied in Karakus et al. §5 (local gradient, SIPDG, advection
 * volume SAV, advection surface SAS) come in versions 0..INSDG_GPU_NVERSIONS-1 (see
 * cuda/README.md): 0 is the paper's Kernel 0 (a direct implementation), the others add
 * its optimisations one by one; INSDG_GPU_VERSION_DEFAULT picks the last.
 */
#ifndef INSDG_GPU_H
#define INSDG_GPU_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Return codes. */
#define INSDG_GPU_OK 0
#define INSDG_GPU_EBADN (-1)       /* polynomial degree N outside 1..INSDG_GPU_NMAX, or ref and block disagree */
#define INSDG_GPU_EBADVERSION (-2) /* kernel version not implemented */
#define INSDG_GPU_EBADARG (-3)     /* negative size, NULL where data is needed, bad mode */
#define INSDG_GPU_ELAUNCH (-4)     /* the runtime reported a launch error */
#define INSDG_GPU_ERUNTIME (-5)    /* a runtime call (malloc, memcpy, event, ...) failed */

#define INSDG_GPU_NMAX 10            /* element kernels are instantiated for N = 1..10 */
#define INSDG_GPU_NVERSIONS 4        /* versions of the four studied kernels */
#define INSDG_GPU_VERSION_DEFAULT (-1)
#define INSDG_GPU_DOTS_MAX 4         /* components of one insdg_gpu_dots call */
#define INSDG_GPU_DOTS_BLOCKS 256    /* work doubles per component of insdg_gpu_dots */

/* ---- runtime ------------------------------------------------------------------------- */

/* Number of visible GPUs; 0 when there is none or the runtime/driver fails. */
int insdg_gpu_device_count(void);
int insdg_gpu_set_device(int device);
/* The runtime's message for the last failed runtime call of this library ("" if none). */
const char *insdg_gpu_last_error(void);
/* A short name for a return code. */
const char *insdg_gpu_strerror(int code);

typedef struct {
  char name[256];
  int sm_count;            /* multiprocessors (CUDA) / compute units (HIP) */
  int clock_khz;           /* SM clock */
  int mem_clock_khz;
  int bus_width_bits;
  int l2_bytes;
  int smem_per_block;      /* bytes of static+dynamic shared memory a block may use */
  int warp_size;
  int cc_major, cc_minor;  /* compute capability (CUDA); gfx major/minor (HIP) */
  /* paper §5.1: B_sh = #SMs x 32 banks x 4 bytes x clock (bytes/s) */
  double smem_bandwidth_formula;
} insdg_gpu_info;
int insdg_gpu_device_info(int device, insdg_gpu_info *info);

int insdg_gpu_malloc(void **ptr, size_t bytes);
int insdg_gpu_free(void *ptr);                 /* NULL is fine */
int insdg_gpu_memcpy_h2d(void *dst, const void *src, size_t bytes);   /* synchronous */
int insdg_gpu_memcpy_d2h(void *dst, const void *src, size_t bytes);   /* synchronous */
int insdg_gpu_memcpy_d2d(void *dst, const void *src, size_t bytes, void *stream);  /* async */
int insdg_gpu_memset(void *dst, int byte, size_t bytes);              /* synchronous */
int insdg_gpu_synchronize(void);               /* the whole device */
int insdg_gpu_stream_synchronize(void *stream);
int insdg_gpu_stream_create(void **stream);
int insdg_gpu_stream_destroy(void *stream);

/* Event timer: start and stop record events on a stream; elapsed waits for stop. */
typedef struct insdg_gpu_timer insdg_gpu_timer;
int insdg_gpu_timer_create(insdg_gpu_timer **t);
int insdg_gpu_timer_start(insdg_gpu_timer *t, void *stream);
int insdg_gpu_timer_stop(insdg_gpu_timer *t, void *stream);
int insdg_gpu_timer_elapsed_ms(insdg_gpu_timer *t, double *ms);
void insdg_gpu_timer_destroy(insdg_gpu_timer *t);

/* Shared-memory throughput (bytes/s, reads counted) measured by a kernel that streams
   doubles out of shared memory on every SM with conflict-free access. */
int insdg_gpu_probe_smem_bandwidth(double *bytes_per_s);

/* ---- static data of a degree and of a block ----------------------------------------- */

struct insdg_ref;     /* src/ref_tri.h */
struct insdg_block;   /* src/block.h */

/* Reference operators of degree N on the device (device pointers), transposed where the
   kernels read columns: XT[j*rows + i] = X[i][j]. */
typedef struct {
  int N, Np, Nfp, Ncub, Nfcub;
  double *DrT, *DsT;        /* [Np][Np] */
  double *LIFTT;            /* [3Nfp][Np] */
  double *M;                /* [Np][Np] as in ref (SIPDG reads M[j*Np+i], as the CPU kernel) */
  double *MT, *invMT;       /* [Np][Np] transposes of M, invM */
  double *cub_interpT;      /* [Np][Ncub] */
  double *cub_PrT, *cub_PsT;  /* [Ncub][Np] */
  double *face_interp;      /* [Nfcub][Nfp] as in ref */
  double *cub_LIFTT;        /* [3Nfcub][Np] */
  int *face_nodes;          /* [3Nfp] */
} insdg_gpu_ref;

int insdg_gpu_ref_create(const struct insdg_ref *ref, insdg_gpu_ref *out);
void insdg_gpu_ref_destroy(insdg_gpu_ref *r);

/* A block's geometry and face map on the device. */
struct insdg_gpu_curved;   /* cuda/curved.cu */
typedef struct {
  int K, N, Np, Nfp, nhalo;
  double *vgeo;   /* [K][5] */
  double *sgeo;   /* [K][3][5] */
  int *mapP;      /* [K][3Nfp] block-local: < K*Np inside, else halo slot + K*Np */
  /* The block's curved elements (src/curved.h) and their geometry, NULL when it has none.
     Every element operator below handles them as the CPU does (src/ops_cpu.c): after the
     affine kernel, one thread per curved element runs src/curved_elem.inc, the CPU's own
     element code. */
  struct insdg_gpu_curved *curved;
} insdg_gpu_block;

/* Doubles of device work the surface operators need on B (2 x curved elements x Np; 0
   without curved elements): they keep the curved elements' outputs across the affine
   kernel there. */
size_t insdg_gpu_curved_work_doubles(const insdg_gpu_block *B);

int insdg_gpu_block_create(const struct insdg_block *b, insdg_gpu_block *out);
void insdg_gpu_block_destroy(insdg_gpu_block *b);

/* A velocity-like pair with halos and Dirichlet data (all device pointers; halos may be
   NULL when the block has no halo, g* NULL for zero data). */
typedef struct {
  const double *u, *v;
  const double *u_halo, *v_halo;
  const double *gu, *gv;
} insdg_gpu_vec_in;

/* ---- element operators (src/ops.h) ------------------------------------------------------ */

/* ux, uy = local gradient of u (versions 0..3). */
int insdg_gpu_local_gradient(const insdg_gpu_ref *R, const insdg_gpu_block *B, int version, const double *u,
                             double *ux, double *uy, void *stream);
/* px, py += lift of the central-flux jumps of p (insdg_op_gradient_surface). The three
   surface operators take curved_work: device scratch of insdg_gpu_curved_work_doubles(B)
   doubles (NULL allowed when that is 0), which must not be in use by another stream. */
int insdg_gpu_gradient_surface(const insdg_gpu_ref *R, const insdg_gpu_block *B, const signed char *bc,
                               const double *g, const double *p, const double *p_halo, double *px, double *py,
                               double *curved_work, void *stream);
/* G p = local gradient (default version) then gradient_surface. */
int insdg_gpu_gradient(const insdg_gpu_ref *R, const insdg_gpu_block *B, const signed char *bc, const double *g,
                       const double *p, const double *p_halo, double *px, double *py, void *stream);
/* divu = volume part of D u (writes). */
int insdg_gpu_divergence_volume(const insdg_gpu_ref *R, const insdg_gpu_block *B, const double *u, const double *v,
                                double *divu, void *stream);
/* divu += surface part of D u. */
int insdg_gpu_divergence_surface(const insdg_gpu_ref *R, const insdg_gpu_block *B, const signed char *bc,
                                 const insdg_gpu_vec_in *U, double *divu, double *curved_work, void *stream);
int insdg_gpu_divergence(const insdg_gpu_ref *R, const insdg_gpu_block *B, const signed char *bc,
                         const insdg_gpu_vec_in *U, double *divu, void *stream);
/* Au = SIPDG (insdg_op_sipdg_data; g NULL: insdg_op_sipdg), versions 0..3; ux, uy must
   be the local gradient of u, *_halo their exterior traces. */
int insdg_gpu_sipdg(const insdg_gpu_ref *R, const insdg_gpu_block *B, int version, const signed char *bc,
                    const double *g, double lambda, const double *u, const double *ux, const double *uy,
                    const double *u_halo, const double *ux_halo, const double *uy_halo, double *Au, void *stream);
/* Nu, Nv = advection volume term (SAV, versions 0..3; writes). */
int insdg_gpu_adv_volume(const insdg_gpu_ref *R, const insdg_gpu_block *B, int version, const double *ub,
                         const double *vb, const double *ut, const double *vt, double *Nu, double *Nv,
                         void *stream);
/* Nu, Nv += advection surface term (SAS, versions 0..3), dissipation lambda_factor x
   max(|n.Ubar-|, |n.Ubar+|). */
int insdg_gpu_adv_surface(const insdg_gpu_ref *R, const insdg_gpu_block *B, int version, const signed char *bc,
                          double lambda_factor, const insdg_gpu_vec_in *Ubar, const insdg_gpu_vec_in *Ut,
                          double *Nu, double *Nv, double *curved_work, void *stream);
/* N(U) (lambda factor 2) and Ntilde(Ubar, Ut) (lambda factor 1): volume then surface,
   default versions. */
int insdg_gpu_advection(const insdg_gpu_ref *R, const insdg_gpu_block *B, const signed char *bc,
                        const insdg_gpu_vec_in *U, double *Nu, double *Nv, void *stream);
int insdg_gpu_subcycle(const insdg_gpu_ref *R, const insdg_gpu_block *B, const signed char *bc,
                       const insdg_gpu_vec_in *Ubar, const insdg_gpu_vec_in *Ut, double *Nu, double *Nv,
                       void *stream);

/* z = (J M)^{-1} r and z = alpha J M r per element (vec_tasks.c V_INVMASS, V_MASS). */
int insdg_gpu_inverse_mass(const insdg_gpu_ref *R, const insdg_gpu_block *B, const double *r, double *z,
                           void *stream);
int insdg_gpu_mass(const insdg_gpu_ref *R, const insdg_gpu_block *B, double alpha, const double *r, double *z,
                   void *stream);

/* ---- vector updates (tasks/vec_tasks.c), n = K*Np --------------------------------------- */

/* A coefficient c = sign * (*num) / (*den), scalars in device memory (NULL: factor 1),
   read by the kernel itself so that PCG's alpha never goes through the host. */
typedef struct {
  double sign;
  const double *num, *den;
} insdg_gpu_coef;

int insdg_gpu_axpy(size_t n, insdg_gpu_coef c, const double *x, double *y, void *stream);   /* y += c x */
int insdg_gpu_xpay(size_t n, const double *x, insdg_gpu_coef c, double *y, void *stream);   /* y = x + c y */
/* y = alpha x + beta y; beta == 0 never reads y */
int insdg_gpu_axpby(size_t n, double alpha, const double *x, double beta, double *y, void *stream);
int insdg_gpu_copy(size_t n, const double *x, double *y, void *stream);                    /* y = x */
int insdg_gpu_sub(size_t n, const double *a, const double *b, double *y, void *stream);    /* y = a - b */
int insdg_gpu_jacobi(size_t n, const double *dinv, const double *r, double *z, void *stream);  /* z = dinv .* r */
/* z_e = B_e r_e per element: n = K Np nodes, B [K][Np][Np] row-major per element */
int insdg_gpu_block_jacobi(size_t n, int Np, const double *binv, const double *r, double *z, void *stream);
/* partial[k] = x[k] . y[k], k < ndots <= INSDG_GPU_DOTS_MAX (device array of ndots);
   work: device scratch of ndots * INSDG_GPU_DOTS_BLOCKS doubles. Deterministic: a fixed
   grid and a fixed reduction tree, so the same bits on every run and every device. */
int insdg_gpu_dots(size_t n, int ndots, const double *const *x, const double *const *y, double *partial,
                   double *work, void *stream);
/* One LSERK stage of tasks/ins.c on one field:
     res = -dt rhs + a res   (a == 0: res = -dt rhs, res not read)
     w   = b res + w */
int insdg_gpu_lserk_stage(size_t n, double a, double b, double dt, const double *rhs, double *res, double *w,
                          void *stream);
/* Halo pack (tasks/ops_tasks.c pack): buf[k] = field[idx[k]], k < n. */
int insdg_gpu_pack(size_t n, const int *idx, const double *field, double *buf, void *stream);

/* ---- p-multigrid (tasks/pmg.c) ------------------------------------------------------------ */

/* Per element, P [Npf][Npc] row-major (insdg_ref_interp_matrix(coarse, fine)), Nc < Nf:
   prolong  fine[e] += P coarse[e];   restrict  coarse[e] = P^T fine[e]. */
int insdg_gpu_pmg_prolong(int Nf, int Nc, int K, const double *P, const double *coarse, double *fine, void *stream);
int insdg_gpu_pmg_restrict(int Nf, int Nc, int K, const double *P, const double *fine, double *coarse,
                           void *stream);
/* Chebyshev smoothing in D^{-1} A (pmg.c and amg.c), split around the operator:
   first step:  r = b (zero_guess) or b - Ad;  d = inv_theta (dinv .* r);
                x = d (zero_guess) or x + d     (Ad = A x, not read when zero_guess)
   later steps: r -= Ad;  d = c_d d + c_r (dinv .* r);  x += d   (Ad = A d) */
int insdg_gpu_chebyshev_first(size_t n, int zero_guess, double inv_theta, const double *dinv, const double *b,
                              const double *Ad, double *r, double *d, double *x, void *stream);
int insdg_gpu_chebyshev_step(size_t n, double c_r, double c_d, const double *dinv, const double *Ad, double *r,
                             double *d, double *x, void *stream);

/* ---- sparse matrices (src/csr.h), the AMG levels ------------------------------------------- */

enum { INSDG_GPU_SPMV_SET = 0, INSDG_GPU_SPMV_RESIDUAL = 1, INSDG_GPU_SPMV_ADD = 2 };
/* mode SET: y = A x; RESIDUAL: y = b - A x; ADD: y += A x (the AMG prolongation z += P e).
   One thread per row, entries summed in storage order (as insdg_csr_matvec). */
int insdg_gpu_csr_spmv(int nrows, const int *row_ptr, const int *col, const double *val, const double *x,
                       const double *b, double *y, int mode, void *stream);

/* ---- launch configuration, for benchmarks ------------------------------------------------ */

enum {
  INSDG_GPU_KERNEL_LOCAL_GRADIENT = 0,
  INSDG_GPU_KERNEL_SIPDG,
  INSDG_GPU_KERNEL_ADV_VOLUME,
  INSDG_GPU_KERNEL_ADV_SURFACE,
  INSDG_GPU_KERNEL_GRADIENT_SURFACE,
  INSDG_GPU_KERNEL_DIVERGENCE_VOLUME,
  INSDG_GPU_KERNEL_DIVERGENCE_SURFACE,
  INSDG_GPU_KERNEL_MASS,   /* mass and inverse mass */
  INSDG_GPU_KERNEL_PMG_PROLONG,  /* launch info: N is the fine degree, the coarse one (N+1)/2 */
  INSDG_GPU_KERNEL_PMG_RESTRICT,
  INSDG_GPU_NKERNELS
};
typedef struct {
  int threads;              /* per block */
  int elements_per_block;
  int elements_per_thread;
  int shared_bytes;         /* static shared memory per block */
} insdg_gpu_launch;
/* version: 0..INSDG_GPU_NVERSIONS-1 for the studied kernels (or DEFAULT), 0 for the rest */
int insdg_gpu_launch_info(int kernel, int N, int version, insdg_gpu_launch *out);

/* ---- launch candidates (per-N tuning; for bench_gpu and test_gpu) --------------------------
 * Version 3 of the studied kernels and the only version of the element kernels (gradient
 * and divergence terms, mass, inverse mass, p-multigrid transfers) pick, per degree N,
 * one of INSDG_GPU_NCANDIDATES launch configurations (threads per block aimed at, elements
 * per thread, and for the local gradient, mass and inverse mass nodes per thread, or, for
 * those three, candidates 16..22: the products on the FP64 tensor cores, CUDA only):
 * cuda/README.md "Tuning". A normal build compiles only the chosen
 * one; a build with -DINSDG_GPU_TUNING=ON compiles all of them. */
#define INSDG_GPU_NCANDIDATES 23
/* 1 when this build compiles every candidate (INSDG_GPU_TUNING), else 0. */
int insdg_gpu_tuning_build(void);
/* Make `kernel` launch candidate c (0..INSDG_GPU_NCANDIDATES-1) from now on, or its per-N
   choice again (c = -1). A launch of a candidate this build does not compile, or whose
   shared memory exceeds 48 KiB at that N, returns INSDG_GPU_EBADVERSION. Process-wide and
   not thread-safe: for benchmarks and tests, never for the solver. */
int insdg_gpu_select_candidate(int kernel, int c);

#ifdef __cplusplus
}
#endif

#endif /* INSDG_GPU_H */
