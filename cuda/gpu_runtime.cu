// gpu_runtime.cu -- the host side of insdg_gpu.h: device queries, allocation and
// copies with checked return codes, event timers, the shared-memory throughput probe
// of the roofline (paper §5.1), the upload of a degree's reference operators and of a
// block's geometry, and the launch-configuration query.

#include "gpu_common.cuh"

#include <stdlib.h>
#include <string.h>

extern "C" {
#include "block.h"
#include "ref_tri.h"
}

namespace {

thread_local char g_last_error[512] = "";

// A failed runtime call: remember the runtime's message, clear the error state.
int fail(gpuError_t err, const char *what)
{
    if (err == gpuSuccess) snprintf(g_last_error, sizeof g_last_error, "%s", what);
    else snprintf(g_last_error, sizeof g_last_error, "%s: %s", what, gpuGetErrorString(err));
    (void)gpuGetLastError();
    return INSDG_GPU_ERUNTIME;
}

#define INSDG_RT(call)                                                                                 \
    do {                                                                                               \
        const gpuError_t err_ = (call);                                                                \
        if (err_ != gpuSuccess) return fail(err_, #call);                                              \
    } while (0)

template <class T>
int upload(T **dst, const T *src, size_t count)
{
    *dst = nullptr;
    if (count == 0) return INSDG_GPU_OK;
    INSDG_RT(gpuMalloc((void **)dst, sizeof(T) * count));
    const gpuError_t err = gpuMemcpy(*dst, src, sizeof(T) * count, gpuMemcpyHostToDevice);
    if (err != gpuSuccess) {
        (void)gpuFree(*dst);
        *dst = nullptr;
        return fail(err, "gpuMemcpy(host to device)");
    }
    return INSDG_GPU_OK;
}

// T[j*rows + i] = A[i*cols + j], uploaded
int upload_transposed(double **dst, const double *A, int rows, int cols)
{
    const size_t n = (size_t)rows * cols;
    double *T = (double *)malloc(sizeof(double) * (n > 0 ? n : 1));
    if (!T) {
        snprintf(g_last_error, sizeof g_last_error, "out of host memory");
        return INSDG_GPU_ERUNTIME;
    }
    for (int i = 0; i < rows; ++i)
        for (int j = 0; j < cols; ++j) T[(size_t)j * rows + i] = A[(size_t)i * cols + j];
    const int rc = upload(dst, (const double *)T, n);
    free(T);
    return rc;
}

// Reads doubles out of shared memory, consecutive threads consecutive words (no bank
// conflicts), eight independent sums per thread; volatile reads, so that no load can
// be hoisted out of the loop or merged with another.
constexpr int kProbeThreads = 256, kProbeWords = 2048, kProbeUnroll = 8;
__global__ void __launch_bounds__(kProbeThreads) smem_probe_kernel(int iters, double *out)
{
    __shared__ double s[kProbeWords];
    const int t = threadIdx.x;
    for (int k = t; k < kProbeWords; k += kProbeThreads) s[k] = 1.0 + 1e-3 * k;
    __syncthreads();
    volatile double *vs = s;
    double acc[kProbeUnroll];
#pragma unroll
    for (int u = 0; u < kProbeUnroll; ++u) acc[u] = 0.0;
    for (int it = 0; it < iters; ++it) {
        const int base = t + (it & 7) * 32;
#pragma unroll
        for (int u = 0; u < kProbeUnroll; ++u) acc[u] += vs[(base + u * kProbeThreads) & (kProbeWords - 1)];
    }
    double sum = 0.0;
#pragma unroll
    for (int u = 0; u < kProbeUnroll; ++u) sum += acc[u];
    out[(size_t)blockIdx.x * kProbeThreads + t] = sum;
}

} // namespace

// for the other sources (gpu_common.cuh)
int insdg_gpu::runtime_failure(gpuError_t err, const char *what) { return fail(err, what); }

namespace insdg_gpu {
int g_candidate[INSDG_GPU_NKERNELS] = {-1, -1, -1, -1, -1, -1, -1, -1, -1, -1};
static_assert(INSDG_GPU_NKERNELS == 10, "one -1 per kernel above");
int selected_candidate(int kernel) { return g_candidate[kernel]; }
} // namespace insdg_gpu

struct insdg_gpu_timer {
    gpuEvent_t start, stop;
};

extern "C" {

int insdg_gpu_device_count(void)
{
    int n = 0;
    const gpuError_t err = gpuGetDeviceCount(&n);
    if (err != gpuSuccess) {
        fail(err, "gpuGetDeviceCount");
        return 0;
    }
    return n;
}

int insdg_gpu_set_device(int device)
{
    INSDG_RT(gpuSetDevice(device));
    return INSDG_GPU_OK;
}

const char *insdg_gpu_last_error(void) { return g_last_error; }

const char *insdg_gpu_strerror(int code)
{
    switch (code) {
    case INSDG_GPU_OK: return "ok";
    case INSDG_GPU_EBADN: return "degree N not supported (or ref and block disagree)";
    case INSDG_GPU_EBADVERSION: return "kernel version not implemented";
    case INSDG_GPU_EBADARG: return "bad argument";
    case INSDG_GPU_ELAUNCH: return "kernel launch failed";
    case INSDG_GPU_ERUNTIME: return "GPU runtime call failed";
    default: return "unknown error";
    }
}

int insdg_gpu_device_info(int device, insdg_gpu_info *info)
{
    if (!info) return INSDG_GPU_EBADARG;
    memset(info, 0, sizeof *info);
    gpuDeviceProp_t prop;
    INSDG_RT(gpuGetDeviceProperties(&prop, device));
    snprintf(info->name, sizeof info->name, "%s", prop.name);
    INSDG_RT(gpuDeviceGetAttribute(&info->sm_count, gpuDevAttrMultiProcessorCount, device));
    INSDG_RT(gpuDeviceGetAttribute(&info->clock_khz, gpuDevAttrClockRate, device));
    INSDG_RT(gpuDeviceGetAttribute(&info->mem_clock_khz, gpuDevAttrMemoryClockRate, device));
    INSDG_RT(gpuDeviceGetAttribute(&info->bus_width_bits, gpuDevAttrGlobalMemoryBusWidth, device));
    INSDG_RT(gpuDeviceGetAttribute(&info->l2_bytes, gpuDevAttrL2CacheSize, device));
    INSDG_RT(gpuDeviceGetAttribute(&info->smem_per_block, gpuDevAttrMaxSharedMemoryPerBlock, device));
    INSDG_RT(gpuDeviceGetAttribute(&info->warp_size, gpuDevAttrWarpSize, device));
    INSDG_RT(gpuDeviceGetAttribute(&info->cc_major, gpuDevAttrComputeCapabilityMajor, device));
    INSDG_RT(gpuDeviceGetAttribute(&info->cc_minor, gpuDevAttrComputeCapabilityMinor, device));
    info->smem_bandwidth_formula = (double)info->sm_count * 32.0 * 4.0 * (double)info->clock_khz * 1e3;
    return INSDG_GPU_OK;
}

int insdg_gpu_malloc(void **ptr, size_t bytes)
{
    if (!ptr) return INSDG_GPU_EBADARG;
    *ptr = nullptr;
    INSDG_RT(gpuMalloc(ptr, bytes > 0 ? bytes : 1));
    return INSDG_GPU_OK;
}

int insdg_gpu_free(void *ptr)
{
    if (ptr) INSDG_RT(gpuFree(ptr));
    return INSDG_GPU_OK;
}

int insdg_gpu_memcpy_h2d(void *dst, const void *src, size_t bytes)
{
    if (bytes == 0) return INSDG_GPU_OK;
    INSDG_RT(gpuMemcpy(dst, src, bytes, gpuMemcpyHostToDevice));
    return INSDG_GPU_OK;
}

int insdg_gpu_memcpy_d2h(void *dst, const void *src, size_t bytes)
{
    if (bytes == 0) return INSDG_GPU_OK;
    INSDG_RT(gpuMemcpy(dst, src, bytes, gpuMemcpyDeviceToHost));
    return INSDG_GPU_OK;
}

int insdg_gpu_memcpy_d2d(void *dst, const void *src, size_t bytes, void *stream)
{
    if (bytes == 0) return INSDG_GPU_OK;
    INSDG_RT(gpuMemcpyAsync(dst, src, bytes, gpuMemcpyDeviceToDevice, (gpuStream_t)stream));
    return INSDG_GPU_OK;
}

int insdg_gpu_memset(void *dst, int byte, size_t bytes)
{
    if (bytes == 0) return INSDG_GPU_OK;
    INSDG_RT(gpuMemset(dst, byte, bytes));
    INSDG_RT(gpuDeviceSynchronize());
    return INSDG_GPU_OK;
}

int insdg_gpu_synchronize(void)
{
    INSDG_RT(gpuDeviceSynchronize());
    return INSDG_GPU_OK;
}

int insdg_gpu_stream_synchronize(void *stream)
{
    INSDG_RT(gpuStreamSynchronize((gpuStream_t)stream));
    return INSDG_GPU_OK;
}

int insdg_gpu_stream_create(void **stream)
{
    if (!stream) return INSDG_GPU_EBADARG;
    gpuStream_t s;
    INSDG_RT(gpuStreamCreate(&s));
    *stream = (void *)s;
    return INSDG_GPU_OK;
}

int insdg_gpu_stream_destroy(void *stream)
{
    if (stream) INSDG_RT(gpuStreamDestroy((gpuStream_t)stream));
    return INSDG_GPU_OK;
}

int insdg_gpu_timer_create(insdg_gpu_timer **t)
{
    if (!t) return INSDG_GPU_EBADARG;
    *t = (insdg_gpu_timer *)calloc(1, sizeof **t);
    if (!*t) return INSDG_GPU_ERUNTIME;
    gpuError_t err = gpuEventCreate(&(*t)->start);
    if (err == gpuSuccess) {
        err = gpuEventCreate(&(*t)->stop);
        if (err != gpuSuccess) (void)gpuEventDestroy((*t)->start);
    }
    if (err != gpuSuccess) {
        free(*t);
        *t = nullptr;
        return fail(err, "gpuEventCreate");
    }
    return INSDG_GPU_OK;
}

int insdg_gpu_timer_start(insdg_gpu_timer *t, void *stream)
{
    if (!t) return INSDG_GPU_EBADARG;
    INSDG_RT(gpuEventRecord(t->start, (gpuStream_t)stream));
    return INSDG_GPU_OK;
}

int insdg_gpu_timer_stop(insdg_gpu_timer *t, void *stream)
{
    if (!t) return INSDG_GPU_EBADARG;
    INSDG_RT(gpuEventRecord(t->stop, (gpuStream_t)stream));
    return INSDG_GPU_OK;
}

int insdg_gpu_timer_elapsed_ms(insdg_gpu_timer *t, double *ms)
{
    if (!t || !ms) return INSDG_GPU_EBADARG;
    INSDG_RT(gpuEventSynchronize(t->stop));
    float f = 0.0f;
    INSDG_RT(gpuEventElapsedTime(&f, t->start, t->stop));
    *ms = f;
    return INSDG_GPU_OK;
}

void insdg_gpu_timer_destroy(insdg_gpu_timer *t)
{
    if (!t) return;
    (void)gpuEventDestroy(t->start);
    (void)gpuEventDestroy(t->stop);
    free(t);
}

int insdg_gpu_probe_smem_bandwidth(double *bytes_per_s)
{
    if (!bytes_per_s) return INSDG_GPU_EBADARG;
    int dev = 0, sms = 0;
    INSDG_RT(gpuGetDevice(&dev));
    INSDG_RT(gpuDeviceGetAttribute(&sms, gpuDevAttrMultiProcessorCount, dev));
    const int blocks = 8 * sms, iters = 4096;
    double *out = nullptr;
    int rc = insdg_gpu_malloc((void **)&out, sizeof(double) * (size_t)blocks * kProbeThreads);
    if (rc != INSDG_GPU_OK) return rc;
    insdg_gpu_timer *t = nullptr;
    rc = insdg_gpu_timer_create(&t);
    double best = 0.0;
    for (int rep = 0; rc == INSDG_GPU_OK && rep < 4; ++rep) {  // rep 0 warms up
        rc = insdg_gpu_timer_start(t, nullptr);
        if (rc != INSDG_GPU_OK) break;
        smem_probe_kernel<<<blocks, kProbeThreads>>>(iters, out);
        rc = insdg_gpu::launch_status();
        if (rc == INSDG_GPU_OK) rc = insdg_gpu_timer_stop(t, nullptr);
        double ms = 0.0;
        if (rc == INSDG_GPU_OK) rc = insdg_gpu_timer_elapsed_ms(t, &ms);
        const double bytes = (double)blocks * kProbeThreads * iters * kProbeUnroll * sizeof(double);
        if (rc == INSDG_GPU_OK && rep > 0 && ms > 0.0 && bytes / (ms * 1e-3) > best) best = bytes / (ms * 1e-3);
    }
    insdg_gpu_timer_destroy(t);
    const int rc_free = insdg_gpu_free(out);
    if (rc == INSDG_GPU_OK) rc = rc_free;
    *bytes_per_s = best;
    return rc;
}

int insdg_gpu_ref_create(const struct insdg_ref *ref, insdg_gpu_ref *out)
{
    if (!ref || !out) return INSDG_GPU_EBADARG;
    memset(out, 0, sizeof *out);
    const int N = ref->N, Np = ref->Np, Nfp = ref->Nfp, Nq = (3 * N + 2) / 2;
    if (N < 1 || N > INSDG_GPU_NMAX || ref->Ncub != Nq * Nq || ref->Nfcub != Nq) return INSDG_GPU_EBADN;
    out->N = N, out->Np = Np, out->Nfp = Nfp, out->Ncub = ref->Ncub, out->Nfcub = ref->Nfcub;
    int rc = INSDG_GPU_OK;
    if (rc == INSDG_GPU_OK) rc = upload_transposed(&out->DrT, ref->Dr, Np, Np);
    if (rc == INSDG_GPU_OK) rc = upload_transposed(&out->DsT, ref->Ds, Np, Np);
    if (rc == INSDG_GPU_OK) rc = upload_transposed(&out->LIFTT, ref->LIFT, Np, 3 * Nfp);
    if (rc == INSDG_GPU_OK) rc = upload(&out->M, (const double *)ref->M, (size_t)Np * Np);
    if (rc == INSDG_GPU_OK) rc = upload_transposed(&out->MT, ref->M, Np, Np);
    if (rc == INSDG_GPU_OK) rc = upload_transposed(&out->invMT, ref->invM, Np, Np);
    if (rc == INSDG_GPU_OK) rc = upload_transposed(&out->cub_interpT, ref->cub_interp, ref->Ncub, Np);
    if (rc == INSDG_GPU_OK) rc = upload_transposed(&out->cub_PrT, ref->cub_Pr, Np, ref->Ncub);
    if (rc == INSDG_GPU_OK) rc = upload_transposed(&out->cub_PsT, ref->cub_Ps, Np, ref->Ncub);
    if (rc == INSDG_GPU_OK) rc = upload(&out->face_interp, (const double *)ref->face_interp, (size_t)ref->Nfcub * Nfp);
    if (rc == INSDG_GPU_OK) rc = upload_transposed(&out->cub_LIFTT, ref->cub_LIFT, Np, 3 * ref->Nfcub);
    if (rc == INSDG_GPU_OK) rc = upload(&out->face_nodes, (const int *)ref->face_nodes, (size_t)3 * Nfp);
    if (rc != INSDG_GPU_OK) insdg_gpu_ref_destroy(out);
    return rc;
}

void insdg_gpu_ref_destroy(insdg_gpu_ref *r)
{
    if (!r) return;
    double **d[] = {&r->DrT, &r->DsT, &r->LIFTT, &r->M, &r->MT, &r->invMT, &r->cub_interpT, &r->cub_PrT,
                    &r->cub_PsT, &r->face_interp, &r->cub_LIFTT};
    for (double **p : d) {
        (void)gpuFree(*p);
        *p = nullptr;
    }
    (void)gpuFree(r->face_nodes);
    r->face_nodes = nullptr;
}

int insdg_gpu_block_create(const struct insdg_block *b, insdg_gpu_block *out)
{
    if (!b || !out) return INSDG_GPU_EBADARG;
    memset(out, 0, sizeof *out);
    if (b->N < 1 || b->N > INSDG_GPU_NMAX) return INSDG_GPU_EBADN;
    out->K = b->K, out->N = b->N, out->Np = b->Np, out->Nfp = b->Nfp, out->nhalo = b->nhalo;
    const size_t K = (size_t)b->K;
    int rc = upload(&out->vgeo, b->vgeo, K * INSDG_NVGEO);
    if (rc == INSDG_GPU_OK) rc = upload(&out->sgeo, b->sgeo, K * 3 * INSDG_NSGEO);
    if (rc == INSDG_GPU_OK) rc = upload(&out->mapP, (const int *)b->mapP, K * 3 * (size_t)b->Nfp);
    if (rc == INSDG_GPU_OK) rc = insdg_gpu::curved_upload(b, out->sgeo, out->mapP, &out->curved);
    if (rc != INSDG_GPU_OK) insdg_gpu_block_destroy(out);
    return rc;
}

void insdg_gpu_block_destroy(insdg_gpu_block *b)
{
    if (!b) return;
    (void)gpuFree(b->vgeo);
    (void)gpuFree(b->sgeo);
    (void)gpuFree(b->mapP);
    insdg_gpu::curved_free(b->curved);
    b->vgeo = b->sgeo = nullptr;
    b->mapP = nullptr;
    b->curved = nullptr;
}

int insdg_gpu_launch_info(int kernel, int N, int version, insdg_gpu_launch *out)
{
    using namespace insdg_gpu;
    if (!out) return INSDG_GPU_EBADARG;
    if (N < 1 || N > INSDG_GPU_NMAX) return INSDG_GPU_EBADN;
    const bool single = version == 0 || version == INSDG_GPU_VERSION_DEFAULT;
    switch (kernel) {
    case INSDG_GPU_KERNEL_LOCAL_GRADIENT: return launch_info_local_gradient(N, version, out);
    case INSDG_GPU_KERNEL_SIPDG: return launch_info_sipdg(N, version, out);
    case INSDG_GPU_KERNEL_ADV_VOLUME: return launch_info_adv_volume(N, version, out);
    case INSDG_GPU_KERNEL_ADV_SURFACE: return launch_info_adv_surface(N, version, out);
    case INSDG_GPU_KERNEL_GRADIENT_SURFACE:
    case INSDG_GPU_KERNEL_DIVERGENCE_VOLUME:
    case INSDG_GPU_KERNEL_DIVERGENCE_SURFACE:
        return single ? launch_info_grad_div(kernel, N, out) : INSDG_GPU_EBADVERSION;
    case INSDG_GPU_KERNEL_MASS: return single ? launch_info_mass(N, out) : INSDG_GPU_EBADVERSION;
    case INSDG_GPU_KERNEL_PMG_PROLONG:
    case INSDG_GPU_KERNEL_PMG_RESTRICT:
        if (N < 2) return INSDG_GPU_EBADN;
        return single ? launch_info_transfer(kernel, N, out) : INSDG_GPU_EBADVERSION;
    default: return INSDG_GPU_EBADARG;
    }
}

int insdg_gpu_tuning_build(void)
{
#if defined(INSDG_GPU_TUNING) && INSDG_GPU_TUNING
    return 1;
#else
    return 0;
#endif
}

int insdg_gpu_select_candidate(int kernel, int c)
{
    if (kernel < 0 || kernel >= INSDG_GPU_NKERNELS) return INSDG_GPU_EBADARG;
    if (c < -1 || c >= INSDG_GPU_NCANDIDATES) return INSDG_GPU_EBADVERSION;
    insdg_gpu::g_candidate[kernel] = c;
    return INSDG_GPU_OK;
}

} // extern "C"
