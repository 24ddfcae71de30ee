// gpu_emu.h -- a CPU emulation of the small part of CUDA/HIP that insdg's kernels use,
// so that CI (no GPU) runs the real kernel sources against the CPU kernels
// (tests/gpu_emu.cmake, ctest gpu_kernels_emulated). Included by cuda/gpu_port.h when
// INSDG_GPU_EMULATE is defined; the launches `k<<<grid, block, shmem, stream>>>(args)` of
// the .cu files are rewritten to insdg_emu::launch(insdg_emu::cfg(grid, block, shmem,
// stream), k, args) by emulate_launches.py at build time (the sources are not copied by
// hand).
//
// Execution model: blocks run one after another; the threads of a block are fibers
// (ucontext) run one at a time from one barrier to the next, so __syncthreads() has its
// exact meaning, and the order in which the threads of a block run changes from one
// barrier interval to the next (forward, backward, shuffled), so that a read of shared
// memory that lacks its barrier sees unwritten or stale data and fails the comparison.
// __shared__ arrays are static, shared by the fibers of a block. Launches from several host
// threads (insdg_cudaemu with STARPU_NCPU > 1: each worker a device) take turns: one
// mutex around each launch; the last error is each thread's own. Launch errors (empty
// grid, more than 1024 threads per block) are reported by gpuGetLastError() as on a GPU.
// Device memory is host memory, filled with 0xFF (NaN) bytes when allocated.
// Not emulated: warps, timing (events read a host clock), concurrency between blocks,
// and the poisoning of shared memory between blocks (a kernel reading shared memory it
// did not write in this block would see the previous block's data, as it may on a GPU).
#ifndef INSDG_GPU_EMU_H
#define INSDG_GPU_EMU_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

#include <chrono>
#include <mutex>
#include <tuple>
#include <utility>
#include <vector>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __shared__ static
#define __launch_bounds__(...)

typedef int gpuError_t;
#define gpuSuccess 0
#define gpuErrorInvalidConfiguration 9
#define gpuErrorInvalidValue 1
#define gpuErrorMemoryAllocation 2
typedef void *gpuStream_t;

namespace insdg_emu {

struct dim { unsigned x, y, z; };

struct Fiber {
    ucontext_t ctx;
    dim tid;
    bool done, waiting;
    std::vector<char> stack;
};

struct State {
    dim block_idx{0, 0, 0}, block_dim{1, 1, 1}, grid_dim{1, 1, 1};
    Fiber *cur = nullptr;
    ucontext_t sched;
    std::vector<Fiber> fibers;
    void (*body)(void *) = nullptr;
    void *body_arg = nullptr;
    uint64_t rng = 0x2545f4914f6cdd1dull;
    unsigned long phase = 0;
};
inline State g;
inline std::mutex launch_mutex;   // one launch at a time: g and the __shared__ arrays are global
inline thread_local gpuError_t last_error = gpuSuccess;

inline void fiber_entry()
{
    g.body(g.body_arg);
    g.cur->done = true;  // then uc_link resumes the scheduler
}

inline void syncthreads()
{
    Fiber *f = g.cur;
    f->waiting = true;
    swapcontext(&f->ctx, &g.sched);
}

// mma.sync.m8n8k4.f64 of the calling thread's warp (cuda/gpu_common.cuh, mma_m8n8k4): each
// lane leaves its fragments, the block meets at a barrier, each lane computes its two
// values of D = A B + C (the sum over k in increasing order), and a second barrier keeps
// the fragments until every lane has read them. Like the hardware's, every lane of the
// warp must call it; here every thread of the block must, the same number of times.
inline void mma_m8n8k4(double &c0, double &c1, double a, double b)
{
    static double fa[1024], fb[1024];
    const unsigned t = g.cur->tid.x, w = t & ~31u, l = t & 31u;
    fa[t] = a, fb[t] = b;
    syncthreads();
    const unsigned row = l >> 2, col = 2 * (l & 3);
    double d0 = c0, d1 = c1;
    for (unsigned k = 0; k < 4; ++k) {
        d0 = fma(fa[w + 4 * row + k], fb[w + 4 * col + k], d0);
        d1 = fma(fa[w + 4 * row + k], fb[w + 4 * (col + 1) + k], d1);
    }
    syncthreads();
    c0 = d0, c1 = d1;
}

// Run one block of nt fibers, each calling body(arg), barrier by barrier.
inline void run_block(unsigned nt, void (*body)(void *), void *arg)
{
    constexpr size_t kStack = 256 * 1024;
    if (g.fibers.size() < nt) g.fibers.resize(nt);
    g.body = body, g.body_arg = arg;
    for (unsigned t = 0; t < nt; ++t) {
        Fiber &f = g.fibers[t];
        if (f.stack.size() < kStack) f.stack.resize(kStack);
        f.tid = {t, 0, 0}, f.done = false, f.waiting = false;
        getcontext(&f.ctx);
        f.ctx.uc_stack.ss_sp = f.stack.data();
        f.ctx.uc_stack.ss_size = f.stack.size();
        f.ctx.uc_link = &g.sched;
        makecontext(&f.ctx, fiber_entry, 0);
    }
    std::vector<unsigned> order(nt);
    for (;;) {
        // the order of this barrier interval: forward, backward or shuffled
        for (unsigned t = 0; t < nt; ++t) order[t] = t;
        const unsigned mode = (unsigned)(g.phase++ % 3);
        if (mode == 1) {
            for (unsigned t = 0; t < nt / 2; ++t) std::swap(order[t], order[nt - 1 - t]);
        } else if (mode == 2) {
            for (unsigned t = nt; t > 1; --t) {
                g.rng ^= g.rng << 13, g.rng ^= g.rng >> 7, g.rng ^= g.rng << 17;
                std::swap(order[t - 1], order[(unsigned)(g.rng % t)]);
            }
        }
        for (unsigned k = 0; k < nt; ++k) {
            Fiber &f = g.fibers[order[k]];
            if (f.done || f.waiting) continue;
            g.cur = &f;
            swapcontext(&g.sched, &f.ctx);
        }
        bool all_done = true;
        for (unsigned t = 0; t < nt; ++t) all_done = all_done && g.fibers[t].done;
        if (all_done) break;
        for (unsigned t = 0; t < nt; ++t) g.fibers[t].waiting = false;  // release the barrier
    }
    g.cur = nullptr;
}

struct Cfg {
    long long grid, block;
};
inline Cfg cfg(long long grid, long long block, size_t shmem = 0, gpuStream_t stream = nullptr)
{
    (void)shmem, (void)stream;
    return Cfg{grid, block};
}

template <class Tuple, class Kernel>
struct Call {
    Kernel k;
    Tuple *args;
    static void run(void *p)
    {
        Call *c = (Call *)p;
        std::apply(c->k, *c->args);
    }
};

template <class... P, class... A>
void launch(Cfg c, void (*k)(P...), A &&...a)
{
    if (c.grid < 1 || c.block < 1 || c.block > 1024 || c.grid > 2147483647LL) {
        last_error = gpuErrorInvalidConfiguration;
        return;
    }
    std::lock_guard<std::mutex> lock(launch_mutex);
    std::tuple<P...> args(std::forward<A>(a)...);
    using C = Call<std::tuple<P...>, void (*)(P...)>;
    C call{k, &args};
    g.grid_dim = {(unsigned)c.grid, 1, 1}, g.block_dim = {(unsigned)c.block, 1, 1};
    for (long long b = 0; b < c.grid; ++b) {
        g.block_idx = {(unsigned)b, 0, 0};
        run_block((unsigned)c.block, &C::run, &call);
    }
}

} // namespace insdg_emu

#define threadIdx (insdg_emu::g.cur->tid)
#define blockIdx (insdg_emu::g.block_idx)
#define blockDim (insdg_emu::g.block_dim)
#define gridDim (insdg_emu::g.grid_dim)
inline void __syncthreads() { insdg_emu::syncthreads(); }

// ---- the runtime ---------------------------------------------------------------------------
enum { gpuMemcpyHostToDevice, gpuMemcpyDeviceToHost, gpuMemcpyDeviceToDevice };
typedef int gpuMemcpyKind_;
enum {
    gpuDevAttrClockRate, gpuDevAttrMultiProcessorCount, gpuDevAttrMemoryClockRate, gpuDevAttrGlobalMemoryBusWidth,
    gpuDevAttrL2CacheSize, gpuDevAttrMaxSharedMemoryPerBlock, gpuDevAttrWarpSize, gpuDevAttrComputeCapabilityMajor,
    gpuDevAttrComputeCapabilityMinor
};
struct gpuDeviceProp_t {
    char name[256];
};
struct insdg_emu_event {
    double t;
};
typedef insdg_emu_event *gpuEvent_t;

inline const char *gpuGetErrorString(gpuError_t e)
{
    switch (e) {
    case gpuSuccess: return "no error (emulation)";
    case gpuErrorInvalidConfiguration: return "invalid configuration argument (emulation)";
    case gpuErrorMemoryAllocation: return "out of memory (emulation)";
    default: return "invalid value (emulation)";
    }
}
inline gpuError_t gpuGetLastError()
{
    const gpuError_t e = insdg_emu::last_error;
    insdg_emu::last_error = gpuSuccess;
    return e;
}
inline gpuError_t gpuGetDeviceCount(int *n) { return *n = 1, gpuSuccess; }
inline gpuError_t gpuSetDevice(int d) { return d == 0 ? gpuSuccess : gpuErrorInvalidValue; }
inline gpuError_t gpuGetDevice(int *d) { return *d = 0, gpuSuccess; }
inline gpuError_t gpuGetDeviceProperties(gpuDeviceProp_t *p, int d)
{
    snprintf(p->name, sizeof p->name, "CPU emulation (tests/gpu_emu)");
    return d == 0 ? gpuSuccess : gpuErrorInvalidValue;
}
inline gpuError_t gpuDeviceGetAttribute(int *v, int attr, int d)
{
    static const int values[] = {1000000, 1, 1000000, 64, 64 * 1024, 48 * 1024, 32, 0, 0};  // L2: 64 KiB
    if (attr < 0 || attr > gpuDevAttrComputeCapabilityMinor) return gpuErrorInvalidValue;
    *v = values[attr];
    return d == 0 ? gpuSuccess : gpuErrorInvalidValue;
}
inline gpuError_t gpuMalloc(void **p, size_t bytes)
{
    *p = malloc(bytes > 0 ? bytes : 1);
    if (!*p) return gpuErrorMemoryAllocation;
    memset(*p, 0xFF, bytes);
    return gpuSuccess;
}
inline gpuError_t gpuFree(void *p) { return free(p), gpuSuccess; }
inline gpuError_t gpuMemcpy(void *dst, const void *src, size_t bytes, int kind)
{
    (void)kind;
    if (bytes && (!dst || !src)) return gpuErrorInvalidValue;
    memmove(dst, src, bytes);
    return gpuSuccess;
}
inline gpuError_t gpuMemcpyAsync(void *dst, const void *src, size_t bytes, int kind, gpuStream_t s)
{
    (void)s;
    return gpuMemcpy(dst, src, bytes, kind);
}
inline gpuError_t gpuMemset(void *dst, int byte, size_t bytes)
{
    if (bytes && !dst) return gpuErrorInvalidValue;
    memset(dst, byte, bytes);
    return gpuSuccess;
}
inline gpuError_t gpuDeviceSynchronize() { return gpuSuccess; }
inline gpuError_t gpuStreamCreate(gpuStream_t *s)
{
    static int dummy;
    return *s = &dummy, gpuSuccess;
}
inline gpuError_t gpuStreamDestroy(gpuStream_t) { return gpuSuccess; }
inline gpuError_t gpuStreamSynchronize(gpuStream_t) { return gpuSuccess; }
inline gpuError_t gpuEventCreate(gpuEvent_t *e)
{
    *e = new insdg_emu_event{0.0};
    return gpuSuccess;
}
inline gpuError_t gpuEventRecord(gpuEvent_t e, gpuStream_t)
{
    e->t = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
    return gpuSuccess;
}
inline gpuError_t gpuEventSynchronize(gpuEvent_t) { return gpuSuccess; }
inline gpuError_t gpuEventElapsedTime(float *ms, gpuEvent_t a, gpuEvent_t b)
{
    *ms = (float)(1e3 * (b->t - a->t));
    return gpuSuccess;
}
inline gpuError_t gpuEventDestroy(gpuEvent_t e)
{
    delete e;
    return gpuSuccess;
}

#endif // INSDG_GPU_EMU_H
