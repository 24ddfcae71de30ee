// mass_pmg.cu -- per-element dense operators outside the paper's four studied kernels:
// the mass and inverse mass of tasks/vec_tasks.c (V_MASS, V_INVMASS) and the p-multigrid
// transfers of tasks/pmg.c (transfer_cpu), each in the CPU's summation order.
//   inverse mass:  z[e][i] = (1/J) sum_j invM[i][j] r[e][j]
//   mass:          z[e][i] = (alpha J) sum_j M[i][j] r[e][j]
//   prolong:       fine[e][i] += sum_j P[i][j] coarse[e][j]      (j < Npc)
//   restrict:      coarse[e][j] = sum_i P[i][j] fine[e][i]       (i < Npf)
// Mass kernels: G elements per block, one thread per node, r staged in shared memory.
// Transfers: one thread per output value, specialised on the fine degree (the coarse
// degree of a p-multigrid level is any lower one, a run-time size).

#include "gpu_common.cuh"

namespace insdg_gpu {
namespace {

template <int N>
struct MassConfig {
    static constexpr int NP = Dim<N>::NP, G = (256 + NP - 1) / NP;
};

// scale = inverse ? 1/J : alpha J;  AT[j*NP + i] = A[i][j]
template <int N, bool INVERSE>
__global__ void __launch_bounds__(MassConfig<N>::G * Dim<N>::NP)
mass_kernel(int K, const double *__restrict__ vgeo, const double *__restrict__ AT, double alpha,
            const double *__restrict__ r, double *__restrict__ z)
{
    constexpr int NP = Dim<N>::NP, G = MassConfig<N>::G;
    __shared__ double s_r[G * NP];
    const int t = threadIdx.x;
    const size_t base = (size_t)blockIdx.x * G * NP, total = (size_t)K * NP;
    s_r[t] = base + t < total ? r[base + t] : 0.0;
    __syncthreads();
    const int el = t / NP, i = t - el * NP;
    const size_t e = (size_t)blockIdx.x * G + el;
    if (e >= (size_t)K) return;
    double sum = 0.0;
#pragma unroll
    for (int j = 0; j < NP; ++j) sum += AT[j * NP + i] * s_r[el * NP + j];
    const double J = vgeo[e * NVGEO + JAC];
    const double scale = INVERSE ? 1.0 / J : alpha * J;
    z[base + t] = scale * sum;
}

template <int N, bool INVERSE>
int launch_mass(const insdg_gpu_ref *R, const insdg_gpu_block *B, double alpha, const double *r, double *z,
                gpuStream_t s)
{
    constexpr int G = MassConfig<N>::G, NP = Dim<N>::NP;
    mass_kernel<N, INVERSE><<<nblocks_for((size_t)B->K, G), G * NP, 0, s>>>(B->K, B->vgeo, INVERSE ? R->invMT : R->MT,
                                                                            alpha, r, z);
    return launch_status();
}

template <int NF>
__global__ void __launch_bounds__(256)
prolong_kernel(size_t total, int npc, const double *__restrict__ P, const double *__restrict__ coarse,
               double *__restrict__ fine)
{
    constexpr int NPF = Dim<NF>::NP;
    const size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (tid >= total) return;
    const size_t e = tid / NPF;
    const int i = (int)(tid - e * NPF);
    const double *c = coarse + e * npc;
    double s = 0.0;
    for (int j = 0; j < npc; ++j) s += P[i * npc + j] * c[j];
    fine[tid] += s;
}

template <int NF>
__global__ void __launch_bounds__(256)
restrict_kernel(size_t total, int npc, const double *__restrict__ P, const double *__restrict__ fine,
                double *__restrict__ coarse)
{
    constexpr int NPF = Dim<NF>::NP;
    const size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (tid >= total) return;
    const size_t e = tid / npc;
    const int j = (int)(tid - e * npc);
    const double *f = fine + e * NPF;
    double c = 0.0;
#pragma unroll
    for (int i = 0; i < NPF; ++i) c += P[i * npc + j] * f[i];
    coarse[tid] = c;
}

template <int NF>
int launch_transfer(bool prolong, int npc, int K, const double *P, const double *src, double *dst, gpuStream_t s)
{
    constexpr int NPF = Dim<NF>::NP;
    const size_t total = (size_t)K * (prolong ? NPF : npc);
    if (prolong) prolong_kernel<NF><<<nblocks_for(total, 256), 256, 0, s>>>(total, npc, P, src, dst);
    else restrict_kernel<NF><<<nblocks_for(total, 256), 256, 0, s>>>(total, npc, P, src, dst);
    return launch_status();
}

template <int N>
int info(insdg_gpu_launch *out)
{
    using C = MassConfig<N>;
    set_launch(out, C::G * C::NP, C::G, 1, sizeof(double) * C::G * C::NP);
    return INSDG_GPU_OK;
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
    return dispatch_n(N, [&](auto n) { return info<decltype(n)::value>(out); });
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
    return dispatch_n(R->N, [&](auto n) { return launch_mass<decltype(n)::value, true>(R, B, 0.0, r, z, s); });
}

extern "C" int insdg_gpu_mass(const insdg_gpu_ref *R, const insdg_gpu_block *B, double alpha, const double *r,
                              double *z, void *stream)
{
    int rc = check_element_args(R, B);
    if (rc != INSDG_GPU_OK) return rc;
    if (B->K == 0) return INSDG_GPU_OK;
    if (!R->MT || !r || !z) return INSDG_GPU_EBADARG;
    gpuStream_t s = (gpuStream_t)stream;
    return dispatch_n(R->N, [&](auto n) { return launch_mass<decltype(n)::value, false>(R, B, alpha, r, z, s); });
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
