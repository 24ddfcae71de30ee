// adv_volume.cu -- the subcycling advection volume kernel (SAV) of Karakus et al. §5
// (Algorithm SSV, eq. KSS_3), the CPU reference being adv_volume in
// src/ops_kernels.inc (insdg_op_adv_volume), in the same summation order:
//   ubar, vbar, ut, vt at the Ncub cubature points:  c = I f  (sum over nodes j)
//   Fr = -(rx ubar + ry vbar),  Fs = -(sx ubar + sy vbar)
//   Nu = Pr (Fr ut) + Ps (Fs ut),  Nv = Pr (Fr vt) + Ps (Fs vt)  (sum over points c)
// Versions:
//   0  Kernel 0: one element per block, Ncub threads, the fields read from global
//      memory inside the interpolation, loops not unrolled;
//   1  Kernels 1+2: the four fields staged in shared memory, loops unrolled;
//   2  Kernel 3: several elements per block (about 256 threads);
//   3  Kernel 5: Np threads per element (not Ncub), several elements per block; the
//      cubature points are processed in chunks of Np, interpolation then projection
//      per chunk, so shared memory holds Np values per field and flux only; P elements
//      per thread (each loaded matrix entry serves P elements), elements per block and
//      per thread chosen per N (TUNED, a launch candidate of gpu_common.cuh).

#include "gpu_common.cuh"

namespace insdg_gpu {
namespace {

struct SavArgs {
    int K;
    const double *vgeo, *IT, *PrT, *PsT;
    const double *ub, *vb, *ut, *vt;
    double *Nu, *Nv;
};

template <int N>
struct SavConfig {
    static constexpr int NP = Dim<N>::NP, NCUB = Dim<N>::NCUB;
    static constexpr int G2 = (256 + NCUB - 1) / NCUB;
    static constexpr int NCH = (NCUB + NP - 1) / NP;  // chunks of version 3
};

// fluxes at one cubature point from the interpolated values
__device__ __forceinline__ void sav_flux(const double *vg, double cub, double cvb, double cut, double cvt,
                                         double *fl)
{
    const double rb = -(vg[RX] * cub + vg[RY] * cvb);
    const double sb = -(vg[SX] * cub + vg[SY] * cvb);
    fl[0] = rb * cut, fl[1] = sb * cut;  // fru, fsu
    fl[2] = rb * cvt, fl[3] = sb * cvt;  // frv, fsv
}

// ---- version 0 -------------------------------------------------------------------------
template <int N>
__global__ void __launch_bounds__(Dim<N>::NCUB) sav_v0(SavArgs a)
{
    constexpr int NP = Dim<N>::NP, NCUB = Dim<N>::NCUB;
    __shared__ double s_fl[4][NCUB];
    const size_t e = blockIdx.x;
    const int c = threadIdx.x;
    if (e >= (size_t)a.K) return;
    const size_t e0 = e * NP;
    const double *vg = a.vgeo + e * NVGEO;
    {
        double cub = 0.0, cvb = 0.0, cut = 0.0, cvt = 0.0;
#pragma unroll 1
        for (int j = 0; j < NP; ++j) {
            const double I = a.IT[j * NCUB + c];
            cub += I * a.ub[e0 + j], cvb += I * a.vb[e0 + j];
            cut += I * a.ut[e0 + j], cvt += I * a.vt[e0 + j];
        }
        double fl[4];
        sav_flux(vg, cub, cvb, cut, cvt, fl);
        s_fl[0][c] = fl[0], s_fl[1][c] = fl[1], s_fl[2][c] = fl[2], s_fl[3][c] = fl[3];
    }
    __syncthreads();
    if (c < NP) {
        double nu = 0.0, nv = 0.0;
#pragma unroll 1
        for (int q = 0; q < NCUB; ++q) {
            const double pr = a.PrT[q * NP + c], ps = a.PsT[q * NP + c];
            nu += pr * s_fl[0][q] + ps * s_fl[1][q];
            nv += pr * s_fl[2][q] + ps * s_fl[3][q];
        }
        a.Nu[e0 + c] = nu, a.Nv[e0 + c] = nv;
    }
}

// Load the four fields of the block's NE elements into s_f[k][el][j] (zeros past K).
template <int NP, int NE, int NT>
__device__ __forceinline__ void load_fields(const SavArgs &a, size_t e_first, double (*s_f)[NE][NP])
{
    const size_t base = e_first * NP, total = (size_t)a.K * NP;
    for (int k = threadIdx.x; k < NE * NP; k += NT) {
        const bool in = base + k < total;
        const int el = k / NP, j = k - el * NP;
        s_f[0][el][j] = in ? a.ub[base + k] : 0.0;
        s_f[1][el][j] = in ? a.vb[base + k] : 0.0;
        s_f[2][el][j] = in ? a.ut[base + k] : 0.0;
        s_f[3][el][j] = in ? a.vt[base + k] : 0.0;
    }
}

// ---- versions 1, 2: G elements per block, Ncub threads each ---------------------------
template <int N, int G>
__global__ void __launch_bounds__(G * Dim<N>::NCUB) sav_blocked(SavArgs a)
{
    constexpr int NP = Dim<N>::NP, NCUB = Dim<N>::NCUB;
    __shared__ double s_f[4][G][NP];
    __shared__ double s_fl[4][G][NCUB];
    const int el = threadIdx.x / NCUB, c = threadIdx.x - el * NCUB;
    const size_t e_first = (size_t)blockIdx.x * G, e = e_first + el;
    const bool valid = e < (size_t)a.K;
    load_fields<NP, G, G * NCUB>(a, e_first, s_f);
    __syncthreads();
    {
        double cub = 0.0, cvb = 0.0, cut = 0.0, cvt = 0.0;
#pragma unroll
        for (int j = 0; j < NP; ++j) {
            const double I = a.IT[j * NCUB + c];
            cub += I * s_f[0][el][j], cvb += I * s_f[1][el][j];
            cut += I * s_f[2][el][j], cvt += I * s_f[3][el][j];
        }
        double fl[4] = {0.0, 0.0, 0.0, 0.0};
        if (valid) sav_flux(a.vgeo + e * NVGEO, cub, cvb, cut, cvt, fl);
        s_fl[0][el][c] = fl[0], s_fl[1][el][c] = fl[1], s_fl[2][el][c] = fl[2], s_fl[3][el][c] = fl[3];
    }
    __syncthreads();
    if (valid && c < NP) {
        double nu = 0.0, nv = 0.0;
#pragma unroll
        for (int q = 0; q < NCUB; ++q) {
            const double pr = a.PrT[q * NP + c], ps = a.PsT[q * NP + c];
            nu += pr * s_fl[0][el][q] + ps * s_fl[1][el][q];
            nv += pr * s_fl[2][el][q] + ps * s_fl[3][el][q];
        }
        a.Nu[e * NP + c] = nu, a.Nv[e * NP + c] = nv;
    }
}

// ---- version 3: G groups of Np threads, P elements per thread, cubature points in chunks --
// Group g handles the block's elements p*G + g, p < P: each loaded entry of the
// interpolation and projection matrices serves P elements.
template <int N, int G, int P>
__global__ void __launch_bounds__(G * Dim<N>::NP) sav_chunked(SavArgs a)
{
    constexpr int NP = Dim<N>::NP, NCUB = Dim<N>::NCUB, NCH = SavConfig<N>::NCH, NE = G * P;
    __shared__ double s_f[4][NE][NP];
    __shared__ double s_fl[4][NE][NP];
    const int g = threadIdx.x / NP, i = threadIdx.x - g * NP;
    const size_t e_first = (size_t)blockIdx.x * NE;
    load_fields<NP, NE, G * NP>(a, e_first, s_f);
    double vg[P][NVGEO];
    bool valid[P];
#pragma unroll
    for (int p = 0; p < P; ++p) {
        const size_t e = e_first + p * G + g;
        valid[p] = e < (size_t)a.K;
#pragma unroll
        for (int k = 0; k < NVGEO; ++k) vg[p][k] = valid[p] ? a.vgeo[e * NVGEO + k] : 0.0;
    }
    __syncthreads();
    double nu[P], nv[P];
#pragma unroll
    for (int p = 0; p < P; ++p) nu[p] = 0.0, nv[p] = 0.0;
#pragma unroll
    for (int ch = 0; ch < NCH; ++ch) {
        const int c = ch * NP + i;
        if (c < NCUB) {
            double cub[P], cvb[P], cut[P], cvt[P];
#pragma unroll
            for (int p = 0; p < P; ++p) cub[p] = cvb[p] = cut[p] = cvt[p] = 0.0;
#pragma unroll
            for (int j = 0; j < NP; ++j) {
                const double I = a.IT[j * NCUB + c];
#pragma unroll
                for (int p = 0; p < P; ++p) {
                    const int el = p * G + g;
                    cub[p] += I * s_f[0][el][j], cvb[p] += I * s_f[1][el][j];
                    cut[p] += I * s_f[2][el][j], cvt[p] += I * s_f[3][el][j];
                }
            }
#pragma unroll
            for (int p = 0; p < P; ++p) {
                const int el = p * G + g;
                double fl[4];
                sav_flux(vg[p], cub[p], cvb[p], cut[p], cvt[p], fl);
                s_fl[0][el][i] = fl[0], s_fl[1][el][i] = fl[1], s_fl[2][el][i] = fl[2], s_fl[3][el][i] = fl[3];
            }
        }
        __syncthreads();
#pragma unroll
        for (int cc = 0; cc < NP; ++cc) {
            const int q = ch * NP + cc;
            if (q < NCUB) {
                const double pr = a.PrT[q * NP + i], ps = a.PsT[q * NP + i];
#pragma unroll
                for (int p = 0; p < P; ++p) {
                    const int el = p * G + g;
                    nu[p] += pr * s_fl[0][el][cc] + ps * s_fl[1][el][cc];
                    nv[p] += pr * s_fl[2][el][cc] + ps * s_fl[3][el][cc];
                }
            }
        }
        __syncthreads();
    }
#pragma unroll
    for (int p = 0; p < P; ++p)
        if (valid[p]) {
            const size_t e = e_first + p * G + g;
            a.Nu[e * NP + i] = nu[p], a.Nv[e * NP + i] = nv[p];
        }
}

// version 3: the launch candidate of each degree (gpu_common.cuh)
constexpr int TUNED[INSDG_GPU_NMAX + 1] = {0, 8, 7, 7, 8, 8, 7, 8, 7, 6, 8};

template <int N, int C>
struct SavCand {
    static constexpr int G = cand_groups(C, Dim<N>::NP), P = CAND_P[C];
    static constexpr size_t SHARED = sizeof(double) * 8 * Dim<N>::NP * G * P;
    static constexpr bool FITS = SHARED <= SHARED_LIMIT && G * Dim<N>::NP <= 1024 && CAND_R[C] == 1;
};

template <int N>
int launch(int version, const SavArgs &a, gpuStream_t s)
{
    using C = SavConfig<N>;
    constexpr int NP = Dim<N>::NP, NCUB = Dim<N>::NCUB;
    switch (version) {
    case 0: sav_v0<N><<<a.K, NCUB, 0, s>>>(a); break;
    case 1: sav_blocked<N, 1><<<a.K, NCUB, 0, s>>>(a); break;
    case 2: sav_blocked<N, C::G2><<<nblocks_for((size_t)a.K, C::G2), C::G2 * NCUB, 0, s>>>(a); break;
    case 3:
        return dispatch_candidate<TUNED[N]>(selected_candidate(INSDG_GPU_KERNEL_ADV_VOLUME), [&](auto c) {
            using Q = SavCand<N, decltype(c)::value>;
            if constexpr (!Q::FITS) return INSDG_GPU_EBADVERSION;
            else {
                sav_chunked<N, Q::G, Q::P><<<nblocks_for((size_t)a.K, Q::G * Q::P), Q::G * NP, 0, s>>>(a);
                return launch_status();
            }
        });
    default: return INSDG_GPU_EBADVERSION;
    }
    return launch_status();
}

template <int N>
int info(int version, insdg_gpu_launch *out)
{
    using C = SavConfig<N>;
    constexpr int NP = Dim<N>::NP, NCUB = Dim<N>::NCUB;
    switch (version) {
    case 0: set_launch(out, NCUB, 1, 1, sizeof(double) * 4 * NCUB); break;
    case 1: set_launch(out, NCUB, 1, 1, sizeof(double) * 4 * (NP + NCUB)); break;
    case 2: set_launch(out, C::G2 * NCUB, C::G2, 1, sizeof(double) * 4 * C::G2 * (NP + NCUB)); break;
    case 3:
        return dispatch_candidate<TUNED[N]>(selected_candidate(INSDG_GPU_KERNEL_ADV_VOLUME), [&](auto c) {
            using Q = SavCand<N, decltype(c)::value>;
            if constexpr (!Q::FITS) return INSDG_GPU_EBADVERSION;
            set_launch(out, Q::G * NP, Q::G * Q::P, Q::P, Q::SHARED);
            return INSDG_GPU_OK;
        });
    default: return INSDG_GPU_EBADVERSION;
    }
    return INSDG_GPU_OK;
}

} // namespace

int launch_info_adv_volume(int N, int version, insdg_gpu_launch *out)
{
    const int v = resolve_version(version);
    if (v < 0) return INSDG_GPU_EBADVERSION;
    return dispatch_n(N, [&](auto n) { return info<decltype(n)::value>(v, out); });
}

} // namespace insdg_gpu

using namespace insdg_gpu;

extern "C" int insdg_gpu_adv_volume(const insdg_gpu_ref *R, const insdg_gpu_block *B, int version,
                                    const double *ub, const double *vb, const double *ut, const double *vt,
                                    double *Nu, double *Nv, void *stream)
{
    int rc = check_element_args(R, B);
    if (rc != INSDG_GPU_OK) return rc;
    const int v = resolve_version(version);
    if (v < 0) return INSDG_GPU_EBADVERSION;
    if (B->K == 0) return INSDG_GPU_OK;
    if (!R->cub_interpT || !R->cub_PrT || !R->cub_PsT || !ub || !vb || !ut || !vt || !Nu || !Nv)
        return INSDG_GPU_EBADARG;
    const SavArgs a = {B->K, B->vgeo, R->cub_interpT, R->cub_PrT, R->cub_PsT, ub, vb, ut, vt, Nu, Nv};
    gpuStream_t s = (gpuStream_t)stream;
    rc = dispatch_n(R->N, [&](auto n) { return launch<decltype(n)::value>(v, a, s); });
    CurvedArgs c = {CURVED_ADV_VOLUME, 0, nullptr, 0.0, {ub, vb, ut, vt}, {}, {}, {Nu, Nv}, nullptr};
    return rc == INSDG_GPU_OK ? curved_launch(B, c, s) : rc;
}
