// local_gradient.cu -- the local gradient kernel of Karakus et al.
// ("Local Gradient Kernel"), compiled unchanged by nvcc (CUDA) and by hipcc
// (HIP); see gpu_port.h. C interface in insdg_gpu.h.
//
// For element e and node i (Np = (N+1)(N+2)/2 nodes):
//   ur = sum_j Dr[i][j] u[e][j],   us = sum_j Ds[i][j] u[e][j]
//   ux[e][i] = rx*ur + sx*us,      uy[e][i] = ry*ur + sy*us
// vgeo[e*5 + {0:rx, 1:sx, 2:ry, 3:sy, 4:J}]; fields [K][Np]; Dr, Ds [Np][Np]
// row-major. Kernels are templated on NP so the j loop has a compile-time
// trip count, instantiated for N = 1..INSDG_GPU_NMAX and dispatched on N.

#include "gpu_port.h"
#include "insdg_gpu.h"

#include <stddef.h>

namespace {

constexpr int kNgeo = 5; // rx, sx, ry, sy, J
static_assert(INSDG_GPU_NMAX == 10, "update the INSDG_LG_CASE list below");

constexpr int np_of(int n) { return (n + 1) * (n + 2) / 2; }

// Elements per block for version 1: about 256 threads per block.
constexpr int ne_of(int np) { return (256 / np) > 0 ? (256 / np) : 1; }

// Kernel 0: one element per block, one thread per node; u read from global
// memory (every thread of the element re-reads the element's Np values).
template <int NP>
__global__ void __launch_bounds__(NP)
local_gradient_v0(int K, const double *__restrict__ Dr, const double *__restrict__ Ds,
                  const double *__restrict__ vgeo, const double *__restrict__ u,
                  double *__restrict__ ux, double *__restrict__ uy)
{
    const int e = blockIdx.x;
    const int i = threadIdx.x;
    if (e >= K || i >= NP) return;
    const double *ue = u + (size_t)e * NP;
    double ur = 0.0, us = 0.0;
#pragma unroll
    for (int j = 0; j < NP; j++) {
        const double uj = ue[j];
        ur += Dr[i * NP + j] * uj;
        us += Ds[i * NP + j] * uj;
    }
    const double *g = vgeo + (size_t)e * kNgeo;
    const double rx = g[0], sx = g[1], ry = g[2], sy = g[3];
    const size_t id = (size_t)e * NP + i;
    ux[id] = rx * ur + sx * us;
    uy[id] = ry * ur + sy * us;
}

// Kernel 1: NE elements per block (NE*NP threads), the block's u staged in
// shared memory with one coalesced load, then one thread per node.
template <int NP, int NE>
__global__ void __launch_bounds__(NP * NE)
local_gradient_v1(int K, const double *__restrict__ Dr, const double *__restrict__ Ds,
                  const double *__restrict__ vgeo, const double *__restrict__ u,
                  double *__restrict__ ux, double *__restrict__ uy)
{
    __shared__ double s_u[NE * NP];
    const int t = threadIdx.x;
    const size_t base = (size_t)blockIdx.x * (NE * NP);
    const size_t total = (size_t)K * NP;
    if (base + t < total) s_u[t] = u[base + t];
    __syncthreads();

    const int el = t / NP;        // element within the block
    const int i = t - el * NP;    // node within the element
    const size_t e = (size_t)blockIdx.x * NE + el;
    if (el >= NE || e >= (size_t)K) return;

    const double *ue = s_u + el * NP;
    double ur = 0.0, us = 0.0;
#pragma unroll
    for (int j = 0; j < NP; j++) {
        const double uj = ue[j];
        ur += Dr[i * NP + j] * uj;
        us += Ds[i * NP + j] * uj;
    }
    const double *g = vgeo + e * kNgeo;
    const double rx = g[0], sx = g[1], ry = g[2], sy = g[3];
    const size_t id = base + t;
    ux[id] = rx * ur + sx * us;
    uy[id] = ry * ur + sy * us;
}

template <int NP>
int launch_local_gradient(int version, int K, const double *Dr, const double *Ds,
                          const double *vgeo, const double *u, double *ux, double *uy,
                          gpuStream_t stream)
{
    switch (version) {
    case 0:
        local_gradient_v0<NP><<<K, NP, 0, stream>>>(K, Dr, Ds, vgeo, u, ux, uy);
        break;
    case 1: {
        constexpr int NE = ne_of(NP);
        const int nblocks = (K + NE - 1) / NE;
        local_gradient_v1<NP, NE><<<nblocks, NP * NE, 0, stream>>>(K, Dr, Ds, vgeo, u, ux, uy);
        break;
    }
    default:
        return INSDG_GPU_EBADVERSION;
    }
    return gpuGetLastError() == gpuSuccess ? INSDG_GPU_OK : INSDG_GPU_ELAUNCH;
}

} // namespace

extern "C" int insdg_gpu_device_count(void)
{
    int n = 0;
    gpuError_t err = gpuGetDeviceCount(&n);
    if (err != gpuSuccess) {
        (void)gpuGetLastError(); // clear the error state
        return 0;
    }
    return n;
}

extern "C" int insdg_gpu_local_gradient(int N, int version, int K, const double *d_Dr,
                                        const double *d_Ds, const double *d_vgeo,
                                        const double *d_u, double *d_ux, double *d_uy,
                                        void *stream)
{
    if (N < 1 || N > INSDG_GPU_NMAX) return INSDG_GPU_EBADN;
    if (version < 0 || version >= INSDG_GPU_LOCAL_GRADIENT_NVERSIONS)
        return INSDG_GPU_EBADVERSION;
    if (K < 0) return INSDG_GPU_EBADARG;
    if (K == 0) return INSDG_GPU_OK;
    if (!d_Dr || !d_Ds || !d_vgeo || !d_u || !d_ux || !d_uy) return INSDG_GPU_EBADARG;
    gpuStream_t s = (gpuStream_t)stream;

#define INSDG_LG_CASE(n)                                                                 \
    case n:                                                                              \
        return launch_local_gradient<np_of(n)>(version, K, d_Dr, d_Ds, d_vgeo, d_u, d_ux, \
                                               d_uy, s);
    switch (N) {
        INSDG_LG_CASE(1)
        INSDG_LG_CASE(2)
        INSDG_LG_CASE(3)
        INSDG_LG_CASE(4)
        INSDG_LG_CASE(5)
        INSDG_LG_CASE(6)
        INSDG_LG_CASE(7)
        INSDG_LG_CASE(8)
        INSDG_LG_CASE(9)
        INSDG_LG_CASE(10)
    default:
        return INSDG_GPU_EBADN;
    }
#undef INSDG_LG_CASE
}
