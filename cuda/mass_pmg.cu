// mass_pmg.cu -- per-element dense operators outside the paper's four studied kernels:
// the mass and inverse mass of tasks/vec_tasks.c (V_MASS, V_INVMASS) and the p-multigrid
// transfers of tasks/pmg.c (transfer_cpu), each in the CPU's summation order.
//   inverse mass:  z[e][i] = (1/J) sum_j invM[i][j] r[e][j]
//   mass:          z[e][i] = (alpha J) sum_j M[i][j] r[e][j]
//   prolong:       fine[e][i] += sum_j P[i][j] coarse[e][j]      (j < Npc)
//   restrict:      coarse[e][j] = sum_i P[i][j] fine[e][i]       (i < Npf)
// Each: G groups of threads, P elements per thread (each matrix entry loaded once for P
// elements), the input staged in shared memory; mass and inverse mass also R nodes per
// thread (each staged value used for R nodes), or on CUDA the products on the FP64 tensor
// cores (mass_mma); G, P and R a launch candidate per N (gpu_common.cuh). Transfers are specialised on the fine degree (the coarse degree of a
// p-multigrid level is any lower one, a run-time size).

#include "gpu_common.cuh"

namespace insdg_gpu {
namespace {

// the launch candidate of each degree (gpu_common.cuh): mass and inverse mass; transfers
// by fine degree
constexpr int TUNED_MASS[INSDG_GPU_NMAX + 1] = {0, 8, 15, 15, 11, 15, 13, 13, 15, 13, 14};  // HIP
constexpr int TUNED_MASS_MMA[INSDG_GPU_NMAX + 1] = {0, 8, 15, 20, 18, 20, 20, 18, 18, 18, 16};  // CUDA
constexpr int tuned_mass(int N) { return HAS_MMA ? TUNED_MASS_MMA[N] : TUNED_MASS[N]; }
constexpr int TUNED_PROLONG[INSDG_GPU_NMAX + 1] = {0, 2, 9, 9, 9, 7, 7, 9, 7, 9, 9};
constexpr int TUNED_RESTRICT[INSDG_GPU_NMAX + 1] = {0, 2, 9, 8, 8, 9, 8, 8, 7, 7, 7};

// G groups of T threads, P elements per thread, one element's input (Np doubles at most)
// in shared memory per element. The transfers: T = Np (fine Np), one node per thread
// (R = 1 candidates only); mass and inverse mass: T = ceil(Np/R), R nodes per thread.
template <int N, int C, bool NODES = false>
using ElemCand = NodeCand<Dim<N>::NP, C, NODES>;

// scale = inverse ? 1/J : alpha J;  AT[j*NP + i] = A[i][j]
// Group g handles the block's elements q*G + g, q < P, and its thread i the nodes
// i + r*T < NP, r < R: each AT entry serves P elements, each staged value R*P products.
template <int N, bool INVERSE, int G, int P, int R>
__global__ void __launch_bounds__(G * node_threads(Dim<N>::NP, R))
mass_kernel(int K, const double *__restrict__ vgeo, const double *__restrict__ AT, double alpha,
            const double *__restrict__ r, double *__restrict__ z)
{
    constexpr int NP = Dim<N>::NP, T = node_threads(NP, R), NE = G * P, NT = G * T;
    __shared__ double s_r[NE * NP];
    const int t = threadIdx.x;
    const size_t e_first = (size_t)blockIdx.x * NE;
    const size_t base = e_first * NP, total = (size_t)K * NP;
    stage_doubles<NT>(r, base, total, NE * NP, s_r);
    __syncthreads();
    const int gr = t / T, i = t - gr * T;
    int col[R];
    node_columns<NP, R>(i, col);
    double sum[R][P];
#pragma unroll
    for (int m = 0; m < R; ++m)
#pragma unroll
        for (int q = 0; q < P; ++q) sum[m][q] = 0.0;
#pragma unroll
    for (int j = 0; j < NP; ++j) {
        double rj[P];
#pragma unroll
        for (int q = 0; q < P; ++q) rj[q] = s_r[(q * G + gr) * NP + j];
#pragma unroll
        for (int m = 0; m < R; ++m) {
            const double a = AT[j * NP + col[m]];
#pragma unroll
            for (int q = 0; q < P; ++q) sum[m][q] += a * rj[q];
        }
    }
#pragma unroll
    for (int q = 0; q < P; ++q) {
        const size_t e = e_first + q * G + gr;
        if (e < (size_t)K) {
            const double J = vgeo[e * NVGEO + JAC];
            const double scale = INVERSE ? 1.0 / J : alpha * J;
#pragma unroll
            for (int m = 0; m < R; ++m)
                if (i + m * T < NP) z[e * NP + i + m * T] = scale * sum[m][q];
        }
    }
}

// The same on the FP64 tensor cores (an MMA candidate; lg_mma of local_gradient.cu has
// the layout and the two loop orders): W warps, each ET tiles of 8 elements.
template <int N, bool INVERSE, int W, int ET, int ORDER>
__global__ void __launch_bounds__(32 * W)
mass_mma(int K, const double *__restrict__ vgeo, const double *__restrict__ AT, double alpha,
         const double *__restrict__ r, double *__restrict__ z)
{
    constexpr int NP = Dim<N>::NP, MT = MmaShape<NP>::MT, KT = MmaShape<NP>::KT, S = MmaShape<NP>::S;
    constexpr int NE = 8 * W * ET;
    __shared__ double s_r[NE * S];
    const size_t e_first = (size_t)blockIdx.x * NE;
    stage_strided<32 * W, NP, S>(r, e_first, K, NE, s_r);
    __syncthreads();
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, row = lane >> 2, quad = lane & 3;
    if constexpr (ORDER == 1) {
#pragma unroll
        for (int mt = 0; mt < MT; ++mt) {
            double a[KT];
#pragma unroll
            for (int kt = 0; kt < KT; ++kt) a[kt] = mma_a<NP>(AT, mt, kt, lane);
            const int i = 8 * mt + row;
#pragma unroll
            for (int t = 0; t < ET; ++t) {
                const int el0 = (warp * ET + t) * 8;
                double c[2] = {0.0, 0.0};
#pragma unroll
                for (int kt = 0; kt < KT; ++kt) {
                    const int j = 4 * kt + quad;
                    mma_m8n8k4(c[0], c[1], a[kt], j < NP ? s_r[(el0 + row) * S + j] : 0.0);
                }
                if (i < NP) {
#pragma unroll
                    for (int q = 0; q < 2; ++q) {
                        const size_t e = e_first + el0 + 2 * quad + q;
                        if (e < (size_t)K) {
                            const double J = vgeo[e * NVGEO + JAC];
                            z[e * NP + i] = (INVERSE ? 1.0 / J : alpha * J) * c[q];
                        }
                    }
                }
            }
        }
    } else {
        const double *const A[1] = {AT};
#pragma unroll
        for (int t = 0; t < ET; ++t) {
            const int el0 = (warp * ET + t) * 8;
            double c[1][MT][2];
            mma_all_rows<NP, 1>(A, s_r + (el0 + row) * S, lane, c);
#pragma unroll
            for (int q = 0; q < 2; ++q) {
                const size_t e = e_first + el0 + 2 * quad + q;
                if (e >= (size_t)K) continue;
                const double J = vgeo[e * NVGEO + JAC], scale = INVERSE ? 1.0 / J : alpha * J;
#pragma unroll
                for (int mt = 0; mt < MT; ++mt)
                    if (8 * mt + row < NP) z[e * NP + 8 * mt + row] = scale * c[0][mt][q];
            }
        }
    }
}

template <int N, bool INVERSE>
int launch_mass(const insdg_gpu_ref *R, const insdg_gpu_block *B, double alpha, const double *r, double *z,
                gpuStream_t s)
{
    return dispatch_candidate<tuned_mass(N)>(selected_candidate(INSDG_GPU_KERNEL_MASS), [&](auto c) {
        using Q = ElemCand<N, decltype(c)::value, true>;
        if constexpr (!Q::FITS) return INSDG_GPU_EBADVERSION;
        else if constexpr (Q::MMA) {
            mass_mma<N, INVERSE, Q::W, Q::P, Q::MMA><<<nblocks_for((size_t)B->K, Q::NE), Q::THREADS, 0, s>>>(
                B->K, B->vgeo, INVERSE ? R->invMT : R->MT, alpha, r, z);
            return launch_status();
        } else {
            mass_kernel<N, INVERSE, Q::G, Q::P, Q::R><<<nblocks_for((size_t)B->K, Q::NE), Q::G * Q::T, 0, s>>>(
                B->K, B->vgeo, INVERSE ? R->invMT : R->MT, alpha, r, z);
            return launch_status();
        }
    });
}

// fine[e][i] += sum_{j < npc} P[i][j] coarse[e][j]: thread i of a group, P elements; the
// elements' coarse values staged in shared memory.
template <int NF, int G, int P>
__global__ void __launch_bounds__(G * Dim<NF>::NP)
prolong_kernel(int K, int npc, const double *__restrict__ Pm, const double *__restrict__ coarse,
               double *__restrict__ fine)
{
    constexpr int NPF = Dim<NF>::NP, NE = G * P, NT = G * NPF;
    __shared__ double s_c[NE * NPF];  // npc < NPF values per element
    const int t = threadIdx.x;
    const size_t e_first = (size_t)blockIdx.x * NE;
    const size_t base = e_first * (size_t)npc, total = (size_t)K * npc;
    stage_doubles<NT>(coarse, base, total, NE * npc, s_c);
    __syncthreads();
    const int gr = t / NPF, i = t - gr * NPF;
    double sum[P];
#pragma unroll
    for (int q = 0; q < P; ++q) sum[q] = 0.0;
    for (int j = 0; j < npc; ++j) {
        const double a = Pm[i * npc + j];
#pragma unroll
        for (int q = 0; q < P; ++q) sum[q] += a * s_c[(q * G + gr) * npc + j];
    }
#pragma unroll
    for (int q = 0; q < P; ++q) {
        const size_t e = e_first + q * G + gr;
        if (e < (size_t)K) fine[e * NPF + i] += sum[q];
    }
}

// coarse[e][j] = sum_i P[i][j] fine[e][i]: thread j < npc of a group, P elements; the
// elements' fine values staged in shared memory.
template <int NF, int G, int P>
__global__ void __launch_bounds__(G * Dim<NF>::NP)
restrict_kernel(int K, int npc, const double *__restrict__ Pm, const double *__restrict__ fine,
                double *__restrict__ coarse)
{
    constexpr int NPF = Dim<NF>::NP, NE = G * P, NT = G * NPF;
    __shared__ double s_f[NE * NPF];
    const int t = threadIdx.x;
    const size_t e_first = (size_t)blockIdx.x * NE;
    const size_t base = e_first * NPF, total = (size_t)K * NPF;
    stage_doubles<NT>(fine, base, total, NE * NPF, s_f);
    __syncthreads();
    const int gr = t / NPF, j = t - gr * NPF;
    if (j >= npc) return;
    double sum[P];
#pragma unroll
    for (int q = 0; q < P; ++q) sum[q] = 0.0;
#pragma unroll
    for (int i = 0; i < NPF; ++i) {
        const double a = Pm[i * npc + j];
#pragma unroll
        for (int q = 0; q < P; ++q) sum[q] += a * s_f[(q * G + gr) * NPF + i];
    }
#pragma unroll
    for (int q = 0; q < P; ++q) {
        const size_t e = e_first + q * G + gr;
        if (e < (size_t)K) coarse[e * npc + j] = sum[q];
    }
}

template <int NF>
int launch_transfer(bool prolong, int npc, int K, const double *P, const double *src, double *dst, gpuStream_t s)
{
    const int kernel = prolong ? INSDG_GPU_KERNEL_PMG_PROLONG : INSDG_GPU_KERNEL_PMG_RESTRICT;
    auto go = [&](auto c) {
        using Q = ElemCand<NF, decltype(c)::value>;
        if constexpr (!Q::FITS) return INSDG_GPU_EBADVERSION;
        else {
            const int nb = nblocks_for((size_t)K, Q::NE);
            if (prolong) prolong_kernel<NF, Q::G, Q::P><<<nb, Q::G * Q::NP, 0, s>>>(K, npc, P, src, dst);
            else restrict_kernel<NF, Q::G, Q::P><<<nb, Q::G * Q::NP, 0, s>>>(K, npc, P, src, dst);
            return launch_status();
        }
    };
    // prolong and restrict have their own tables; a candidate compiled for one only is
    // refused for the other
    if (prolong) return dispatch_candidate<TUNED_PROLONG[NF]>(selected_candidate(kernel), go);
    return dispatch_candidate<TUNED_RESTRICT[NF]>(selected_candidate(kernel), go);
}

template <int N, int TUNED, bool NODES>
int elem_info(int kernel, insdg_gpu_launch *out)
{
    return dispatch_candidate<TUNED>(selected_candidate(kernel), [&](auto c) {
        using Q = ElemCand<N, decltype(c)::value, NODES>;
        if constexpr (!Q::FITS) return INSDG_GPU_EBADVERSION;
        set_launch(out, Q::THREADS, Q::NE, Q::EPT, Q::SHARED);
        return INSDG_GPU_OK;
    });
}

int transfer(bool prolong, int Nf, int Nc, int K, const double *P, const double *src, double *dst, void *stream)
{
    if (Nf < 2 || Nf > INSDG_GPU_NMAX || Nc < 1 || Nc >= Nf) return INSDG_GPU_EBADN;
    if (K < 0) return INSDG_GPU_EBADARG;
    if (K == 0) return INSDG_GPU_OK;
    if (!P || !src || !dst) return INSDG_GPU_EBADARG;
    const int npc = (Nc + 1) * (Nc + 2) / 2;
    gpuStream_t s = (gpuStream_t)stream;
    return dispatch_n(Nf, [&](auto n) { return launch_transfer<decltype(n)::value>(prolong, npc, K, P, src, dst, s); });
}

} // namespace

int launch_info_mass(int N, insdg_gpu_launch *out)
{
    return dispatch_n(N, [&](auto n) {
        constexpr int NN = decltype(n)::value;
        return elem_info<NN, tuned_mass(NN), true>(INSDG_GPU_KERNEL_MASS, out);
    });
}

int launch_info_transfer(int kernel, int N, insdg_gpu_launch *out)
{
    return dispatch_n(N, [&](auto n) {
        constexpr int NN = decltype(n)::value;
        if (kernel == INSDG_GPU_KERNEL_PMG_PROLONG) return elem_info<NN, TUNED_PROLONG[NN], false>(kernel, out);
        return elem_info<NN, TUNED_RESTRICT[NN], false>(kernel, out);
    });
}

} // namespace insdg_gpu

using namespace insdg_gpu;

extern "C" int insdg_gpu_inverse_mass(const insdg_gpu_ref *R, const insdg_gpu_block *B, const double *r, double *z,
                                      void *stream)
{
    int rc = check_element_args(R, B);
    if (rc != INSDG_GPU_OK) return rc;
    if (B->K == 0) return INSDG_GPU_OK;
    if (!R->invMT || !r || !z) return INSDG_GPU_EBADARG;
    gpuStream_t s = (gpuStream_t)stream;
    rc = dispatch_n(R->N, [&](auto n) { return launch_mass<decltype(n)::value, true>(R, B, 0.0, r, z, s); });
    CurvedArgs c = {CURVED_INVERSE_MASS, 0, nullptr, 0.0, {r}, {}, {}, {z}, nullptr};
    return rc == INSDG_GPU_OK ? curved_launch(B, c, s) : rc;
}

extern "C" int insdg_gpu_mass(const insdg_gpu_ref *R, const insdg_gpu_block *B, double alpha, const double *r,
                              double *z, void *stream)
{
    int rc = check_element_args(R, B);
    if (rc != INSDG_GPU_OK) return rc;
    if (B->K == 0) return INSDG_GPU_OK;
    if (!R->MT || !r || !z) return INSDG_GPU_EBADARG;
    gpuStream_t s = (gpuStream_t)stream;
    rc = dispatch_n(R->N, [&](auto n) { return launch_mass<decltype(n)::value, false>(R, B, alpha, r, z, s); });
    CurvedArgs c = {CURVED_MASS, 0, nullptr, alpha, {r}, {}, {}, {z}, nullptr};
    return rc == INSDG_GPU_OK ? curved_launch(B, c, s) : rc;
}

extern "C" int insdg_gpu_pmg_prolong(int Nf, int Nc, int K, const double *P, const double *coarse, double *fine,
                                     void *stream)
{
    return transfer(true, Nf, Nc, K, P, coarse, fine, stream);
}

extern "C" int insdg_gpu_pmg_restrict(int Nf, int Nc, int K, const double *P, const double *fine, double *coarse,
                                      void *stream)
{
    return transfer(false, Nf, Nc, K, P, fine, coarse, stream);
}
