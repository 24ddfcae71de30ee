// local_gradient.cu -- the local gradient kernel of Karakus et al. §5 ("Local Gradient
// Kernel"), the CPU reference being local_gradient in src/ops_kernels.inc:
//   ur = sum_j Dr[i][j] u[e][j],   us = sum_j Ds[i][j] u[e][j]
//   ux[e][i] = rx*ur + sx*us,      uy[e][i] = ry*ur + sy*us
// summed over j in increasing order, as on the CPU. Versions (the paper's ladder):
//   0  Kernel 0: one element per block, one thread per node, u read from global
//      memory inside the product, loop not unrolled;
//   1  Kernels 1+2: u staged in shared memory, products fully unrolled;
//   2  Kernel 3: several elements per block (about 256 threads);
//   3  Kernel 4: several elements per block and P elements per thread, so that each
//      loaded entry of Dr, Ds serves P elements (results in registers), and with R > 1
//      nodes per thread each staged u value R*P products; elements per block, elements
//      and nodes per thread chosen per N (TUNED, a launch candidate of gpu_common.cuh),
//      or, on CUDA, the products on the FP64 tensor cores (lg_mma; TUNED_MMA).
// const and __restrict__ (the paper's Kernel 2) are on every version.

#include "gpu_common.cuh"

namespace insdg_gpu {
namespace {

template <int N>
__global__ void __launch_bounds__(Dim<N>::NP)
lg_v0(int K, const double *__restrict__ DrT, const double *__restrict__ DsT, const double *__restrict__ vgeo,
      const double *__restrict__ u, double *__restrict__ ux, double *__restrict__ uy)
{
    constexpr int NP = Dim<N>::NP;
    const int e = blockIdx.x, i = threadIdx.x;
    if (e >= K || i >= NP) return;
    double ur = 0.0, us = 0.0;
#pragma unroll 1
    for (int j = 0; j < NP; ++j) {
        const double uj = u[(size_t)e * NP + j];
        ur += DrT[j * NP + i] * uj;
        us += DsT[j * NP + i] * uj;
    }
    const double *g = vgeo + (size_t)e * NVGEO;
    const size_t id = (size_t)e * NP + i;
    ux[id] = g[RX] * ur + g[SX] * us;
    uy[id] = g[RY] * ur + g[SY] * us;
}

// G groups of T = ceil(NP/R) threads; group g handles the block's elements p*G + g, p < P,
// and its thread i the nodes i + r*T < NP, r < R: each Dr, Ds entry serves P elements and
// each staged u value R*P products.
template <int N, int G, int P, int R = 1>
__global__ void __launch_bounds__(G * node_threads(Dim<N>::NP, R))
lg_blocked(int K, const double *__restrict__ DrT, const double *__restrict__ DsT,
           const double *__restrict__ vgeo, const double *__restrict__ u, double *__restrict__ ux,
           double *__restrict__ uy)
{
    constexpr int NP = Dim<N>::NP, T = node_threads(NP, R), NE = G * P, NT = G * T;
    __shared__ double s_u[NE * NP];
    const int t = threadIdx.x;
    const size_t e_first = (size_t)blockIdx.x * NE;
    const size_t base = e_first * NP, total = (size_t)K * NP;
    stage_doubles<NT>(u, base, total, NE * NP, s_u);
    __syncthreads();

    const int g = t / T, i = t - g * T;
    int col[R];
    node_columns<NP, R>(i, col);
    double ur[R][P], us[R][P];
#pragma unroll
    for (int r = 0; r < R; ++r)
#pragma unroll
        for (int p = 0; p < P; ++p) ur[r][p] = 0.0, us[r][p] = 0.0;
#pragma unroll
    for (int j = 0; j < NP; ++j) {
        double uj[P];
#pragma unroll
        for (int p = 0; p < P; ++p) uj[p] = s_u[(p * G + g) * NP + j];
#pragma unroll
        for (int r = 0; r < R; ++r) {
            const double dr = DrT[j * NP + col[r]], ds = DsT[j * NP + col[r]];
#pragma unroll
            for (int p = 0; p < P; ++p) {
                ur[r][p] += dr * uj[p];
                us[r][p] += ds * uj[p];
            }
        }
    }
#pragma unroll
    for (int p = 0; p < P; ++p) {
        const size_t e = e_first + p * G + g;
        if (e < (size_t)K) {
            const double *gg = vgeo + e * NVGEO;
#pragma unroll
            for (int r = 0; r < R; ++r)
                if (i + r * T < NP) {
                    const size_t id = e * NP + i + r * T;
                    ux[id] = gg[RX] * ur[r][p] + gg[SX] * us[r][p];
                    uy[id] = gg[RY] * ur[r][p] + gg[SY] * us[r][p];
                }
        }
    }
}

// On the FP64 tensor cores (an MMA candidate, gpu_common.cuh): W warps, each ET tiles of 8
// elements, the block's u staged with stride S; lane l ends with ur, us of node 8 mt + l/4
// for elements 2(l%4) and 2(l%4) + 1 of a tile. ORDER 1: row tile by row tile, the Dr and
// Ds fragments of the row tile in registers for the warp's tiles; ORDER 2: all row tiles
// of a tile at once (mma_all_rows). Both sum the same products in the same order.
template <int N, int W, int ET, int ORDER>
__global__ void __launch_bounds__(32 * W)
lg_mma(int K, const double *__restrict__ DrT, const double *__restrict__ DsT, const double *__restrict__ vgeo,
       const double *__restrict__ u, double *__restrict__ ux, double *__restrict__ uy)
{
    constexpr int NP = Dim<N>::NP, MT = MmaShape<NP>::MT, KT = MmaShape<NP>::KT, S = MmaShape<NP>::S;
    constexpr int NE = 8 * W * ET;
    __shared__ double s_u[NE * S];
    const size_t e_first = (size_t)blockIdx.x * NE;
    stage_strided<32 * W, NP, S>(u, e_first, K, NE, s_u);
    __syncthreads();
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, row = lane >> 2, quad = lane & 3;
    if constexpr (ORDER == 1) {
#pragma unroll
        for (int mt = 0; mt < MT; ++mt) {
            double ar[KT], as[KT];
#pragma unroll
            for (int kt = 0; kt < KT; ++kt) ar[kt] = mma_a<NP>(DrT, mt, kt, lane), as[kt] = mma_a<NP>(DsT, mt, kt, lane);
            const int i = 8 * mt + row;
#pragma unroll
            for (int t = 0; t < ET; ++t) {
                const int el0 = (warp * ET + t) * 8;
                double r0 = 0.0, r1 = 0.0, s0 = 0.0, s1 = 0.0;
#pragma unroll
                for (int kt = 0; kt < KT; ++kt) {
                    const int j = 4 * kt + quad;
                    const double b = j < NP ? s_u[(el0 + row) * S + j] : 0.0;
                    mma_m8n8k4(r0, r1, ar[kt], b);
                    mma_m8n8k4(s0, s1, as[kt], b);
                }
                if (i < NP) {
                    const double ur[2] = {r0, r1}, us[2] = {s0, s1};
#pragma unroll
                    for (int c = 0; c < 2; ++c) {
                        const size_t e = e_first + el0 + 2 * quad + c;
                        if (e < (size_t)K) {
                            const double *gg = vgeo + e * NVGEO;
                            ux[e * NP + i] = gg[RX] * ur[c] + gg[SX] * us[c];
                            uy[e * NP + i] = gg[RY] * ur[c] + gg[SY] * us[c];
                        }
                    }
                }
            }
        }
    } else {
        const double *const AT[2] = {DrT, DsT};
#pragma unroll
        for (int t = 0; t < ET; ++t) {
            const int el0 = (warp * ET + t) * 8;
            double c[2][MT][2];
            mma_all_rows<NP, 2>(AT, s_u + (el0 + row) * S, lane, c);
#pragma unroll
            for (int q = 0; q < 2; ++q) {
                const size_t e = e_first + el0 + 2 * quad + q;
                if (e >= (size_t)K) continue;
                const double *gg = vgeo + e * NVGEO;
                const double rx = gg[RX], sx = gg[SX], ry = gg[RY], sy = gg[SY];
#pragma unroll
                for (int mt = 0; mt < MT; ++mt) {
                    const int i = 8 * mt + row;
                    if (i < NP) {
                        ux[e * NP + i] = rx * c[0][mt][q] + sx * c[1][mt][q];
                        uy[e * NP + i] = ry * c[0][mt][q] + sy * c[1][mt][q];
                    }
                }
            }
        }
    }
}

// Version 2: about 256 threads, one element per thread. Version 3: the candidate tuned(N)
// (gpu_common.cuh), chosen per degree on a GPU.
template <int N>
struct LgConfig {
    static constexpr int NP = Dim<N>::NP;
    static constexpr int G2 = (256 + NP - 1) / NP;
};
// TUNED_MMA where the tensor cores are there (CUDA), TUNED without them (HIP)
constexpr int TUNED[INSDG_GPU_NMAX + 1] = {0, 9, 1, 11, 12, 15, 8, 8, 7, 7, 9};
constexpr int TUNED_MMA[INSDG_GPU_NMAX + 1] = {0, 9, 20, 20, 21, 20, 18, 18, 22, 22, 21};
constexpr int tuned(int N) { return HAS_MMA ? TUNED_MMA[N] : TUNED[N]; }

template <int N, int C>
using LgCand = NodeCand<Dim<N>::NP, C, true>;

template <int N, int G, int P, int NR = 1>
int launch_blocked(int K, const insdg_gpu_ref *R, const insdg_gpu_block *B, const double *u, double *ux,
                   double *uy, gpuStream_t s)
{
    constexpr int NE = G * P, T = node_threads(Dim<N>::NP, NR);
    lg_blocked<N, G, P, NR><<<nblocks_for((size_t)K, NE), G * T, 0, s>>>(K, R->DrT, R->DsT, B->vgeo, u, ux, uy);
    return launch_status();
}

template <int N>
int launch(int version, const insdg_gpu_ref *R, const insdg_gpu_block *B, const double *u, double *ux,
           double *uy, gpuStream_t s)
{
    using C = LgConfig<N>;
    const int K = B->K;
    switch (version) {
    case 0:
        lg_v0<N><<<K, Dim<N>::NP, 0, s>>>(K, R->DrT, R->DsT, B->vgeo, u, ux, uy);
        return launch_status();
    case 1: return launch_blocked<N, 1, 1>(K, R, B, u, ux, uy, s);
    case 2: return launch_blocked<N, C::G2, 1>(K, R, B, u, ux, uy, s);
    case 3:
        return dispatch_candidate<tuned(N)>(selected_candidate(INSDG_GPU_KERNEL_LOCAL_GRADIENT), [&](auto c) {
            using Q = LgCand<N, decltype(c)::value>;
            if constexpr (!Q::FITS) return INSDG_GPU_EBADVERSION;
            else if constexpr (Q::MMA) {
                lg_mma<N, Q::W, Q::P, Q::MMA><<<nblocks_for((size_t)K, Q::NE), Q::THREADS, 0, s>>>(
                    K, R->DrT, R->DsT, B->vgeo, u, ux, uy);
                return launch_status();
            } else return launch_blocked<N, Q::G, Q::P, Q::R>(K, R, B, u, ux, uy, s);
        });
    default: return INSDG_GPU_EBADVERSION;
    }
}

template <int N>
int info(int version, insdg_gpu_launch *out)
{
    using C = LgConfig<N>;
    constexpr int NP = Dim<N>::NP;
    switch (version) {
    case 0: set_launch(out, NP, 1, 1, 0); break;
    case 1: set_launch(out, NP, 1, 1, sizeof(double) * NP); break;
    case 2: set_launch(out, C::G2 * NP, C::G2, 1, sizeof(double) * C::G2 * NP); break;
    case 3:
        return dispatch_candidate<tuned(N)>(selected_candidate(INSDG_GPU_KERNEL_LOCAL_GRADIENT), [&](auto c) {
            using Q = LgCand<N, decltype(c)::value>;
            if constexpr (!Q::FITS) return INSDG_GPU_EBADVERSION;
            set_launch(out, Q::THREADS, Q::NE, Q::EPT, Q::SHARED);
            return INSDG_GPU_OK;
        });
    default: return INSDG_GPU_EBADVERSION;
    }
    return INSDG_GPU_OK;
}

} // namespace

int launch_info_local_gradient(int N, int version, insdg_gpu_launch *out)
{
    const int v = resolve_version(version);
    if (v < 0) return INSDG_GPU_EBADVERSION;
    return dispatch_n(N, [&](auto n) { return info<decltype(n)::value>(v, out); });
}

} // namespace insdg_gpu

using namespace insdg_gpu;

extern "C" int insdg_gpu_local_gradient(const insdg_gpu_ref *R, const insdg_gpu_block *B, int version,
                                        const double *u, double *ux, double *uy, void *stream)
{
    int rc = check_element_args(R, B);
    if (rc != INSDG_GPU_OK) return rc;
    const int v = resolve_version(version);
    if (v < 0) return INSDG_GPU_EBADVERSION;
    if (B->K == 0) return INSDG_GPU_OK;
    if (!R->DrT || !R->DsT || !u || !ux || !uy) return INSDG_GPU_EBADARG;
    gpuStream_t s = (gpuStream_t)stream;
    rc = dispatch_n(R->N, [&](auto n) { return launch<decltype(n)::value>(v, R, B, u, ux, uy, s); });
    CurvedArgs c{};
    c.op = CURVED_LOCAL_GRADIENT, c.in[0] = u, c.out[0] = ux, c.out[1] = uy;
    return rc == INSDG_GPU_OK ? curved_launch(B, c, s) : rc;
}
