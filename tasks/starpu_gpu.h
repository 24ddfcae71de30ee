/* starpu_gpu.h -- what the StarPU GPU codelets share (see tasks/README.md "GPU codelets").
 *
 * The codelets that touch field data have a GPU function beside their CPU one (named
 * *_cuda; the same function serves HIP, since cuda/insdg_gpu.h is one API for both):
 *   INSDG_STARPU_CUDA   a StarPU with CUDA (STARPU_USE_CUDA) and the insdg_cuda kernels:
 *                       listed as cuda_funcs;
 *   INSDG_STARPU_HIP    a StarPU >= 1.4 with HIP (STARPU_USE_HIP) and insdg_hip: hip_funcs;
 *   INSDG_GPU_CODELETS_ON_CPU  the test build insdg_cudaemu (tests/gpu_emu.cmake): listed
 *                       as the CPU function, run on CPU workers with the CPU emulation of
 *                       the kernels (device pointers are host pointers, the stream is NULL);
 * any of them defines INSDG_STARPU_GPU, under which the GPU functions and this file's
 * helpers are compiled.
 *
 * The CPU codelets read the static data of a block (geometry, face map, boundary codes,
 * halo index lists, Jacobi diagonals, transfer matrices, CSR rows) through host pointers
 * in their cl_arg. A GPU codelet gets the same pointers and asks this cache for their
 * device copy on the device of the worker running it: uploaded on first use, kept until
 * insdg_starpu_gpu_release(). Only data that does not change during a run may go through
 * the cache; per-step data (boundary values) goes through insdg_starpu_gpu_upload(), and
 * whoever frees cached host data calls insdg_starpu_gpu_invalidate() first.
 *
 * Placement: when StarPU has GPU workers, every task of a codelet that has a GPU
 * implementation runs on a GPU (insdg_starpu_gpu_where), so that which kernel computes
 * a result never depends on scheduling: the same case gives the same bits for any
 * worker count, as on CPUs. Codelets with only a CPU implementation (the coarse solve,
 * the reduction of dot-product partials) run on CPU workers, StarPU moving their data.
 */
#ifndef INSDG_STARPU_GPU_H
#define INSDG_STARPU_GPU_H

#if defined INSDG_STARPU_CUDA || defined INSDG_STARPU_HIP || defined INSDG_GPU_CODELETS_ON_CPU
#define INSDG_STARPU_GPU 1
#endif

/* The implementations a codelet lists (a designated-initialiser fragment). */
#if defined INSDG_GPU_CODELETS_ON_CPU
#define INSDG_CODELET_FUNCS(cpu, gpu) .cpu_funcs = {gpu},
#elif defined INSDG_STARPU_CUDA
#define INSDG_CODELET_FUNCS(cpu, gpu) .cpu_funcs = {cpu}, .cuda_funcs = {gpu}, .cuda_flags = {STARPU_CUDA_ASYNC},
#elif defined INSDG_STARPU_HIP
#define INSDG_CODELET_FUNCS(cpu, gpu) .cpu_funcs = {cpu}, .hip_funcs = {gpu}, .hip_flags = {STARPU_HIP_ASYNC},
#else
#define INSDG_CODELET_FUNCS(cpu, gpu) .cpu_funcs = {cpu},
#endif

#ifdef INSDG_STARPU_GPU

#include <starpu.h>
#include <stddef.h>
#include <stdint.h>

#include "block.h"
#include "insdg_gpu.h"
#include "partition.h"
#include "ref_tri.h"

/* STARPU_CUDA (STARPU_HIP) when StarPU runs CUDA (HIP) workers, else STARPU_CPU: set it
   as the `where` of a codelet with both implementations before submitting its tasks. */
uint32_t insdg_starpu_gpu_where(void);
/* The stream a GPU codelet launches on: StarPU's for this worker (NULL in the emulation). */
void *insdg_starpu_gpu_stream(void);

/* The device copy of `bytes` bytes of static host data at `host` on this worker's device. */
const void *insdg_starpu_gpu_static(const void *host, size_t bytes);
/* The device mirrors of a reference element and of a block on this worker's device. */
const insdg_gpu_ref *insdg_starpu_gpu_ref(const insdg_ref *ref);
const insdg_gpu_block *insdg_starpu_gpu_block(const insdg_block *b);

/* This worker's device scratch of at least `bytes` (slot 0..INSDG_STARPU_GPU_SLOTS-1: the
   buffers one task needs at once). Growing it waits for `stream`, whose kernels may still
   read the old one. */
enum { INSDG_STARPU_GPU_SLOTS = 3 };
void *insdg_starpu_gpu_scratch(int slot, size_t bytes, void *stream);
/* Copy per-step host arrays host[0..count-1] (n doubles each; NULL entries stay NULL)
   into this worker's scratch slot and set dev[k] to their device copies. Waits for
   `stream` first: its kernels may still read the slot's previous contents. */
void insdg_starpu_gpu_upload(int slot, const double *const *host, int count, size_t n, const double **dev,
                             void *stream);

/* Block d's halo array dst from its halo sources buffers[first ..] (exchange.h:
   neighbouring blocks, gathered by node, and receive buffers, copied) on the stream. */
struct insdg_xplan;
void insdg_starpu_gpu_gather_halos(const struct insdg_xplan *x, int d, void *buffers[], int first, double *dst,
                                   void *stream);

/* Abort with the kernel library's message when a launcher or runtime call failed. */
void insdg_starpu_gpu_check(int rc, const char *what);

/* Free every cached copy and scratch buffer (after the last task). */
void insdg_starpu_gpu_release(void);
/* Wait for every task, then release: code that frees or rewrites host data that may have
   gone through the cache calls this first (the cache knows its entries by address, and a
   later allocation may reuse one: ins.c rebuilds the velocity Jacobi diagonal when the
   start-up changes lambda; the solvers' destroy functions). */
void insdg_starpu_gpu_invalidate(void);

#endif /* INSDG_STARPU_GPU */
#endif /* INSDG_STARPU_GPU_H */
