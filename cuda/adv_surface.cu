// adv_surface.cu -- the subcycling advection surface kernel (SAS) of Karakus et al. §5
// (Algorithm SSS, eq. KSS_3), the CPU reference being adv_surface in
// src/ops_kernels.inc (insdg_op_adv_surface), in the same summation order:
//   traces of ubar, vbar, ut, vt at the face nodes, interior and exterior (exterior:
//   the neighbour or halo on an interior face, the Dirichlet data, or the interior
//   value on a Neumann face);
//   interpolated to the Nfc Gauss points of each face (sum over the face's nodes j);
//   F* = Fscale/2 (un- t- + un+ t+ + lambda (t- - t+)), un = n.ubar,
//   lambda = lambda_factor max(|un-|, |un+|);
//   Nu, Nv += L_c F* (sum over the 3 Nfc points, onto the existing values).
// T = max(3Nfc, Np) threads per element. Versions:
//   0  Kernel 0: one element per block; each face-point thread reads the traces it
//      interpolates from global memory (and resolves the boundary condition) inside
//      the interpolation loop; loops not unrolled;
//   1  Kernels 1+2: the eight traces (2 sides x 4 fields) staged in shared memory by
//      one thread per face node first; loops unrolled;
//   2  Kernel 3: several elements per block (about 256 threads);
//   3  Kernel 4: several elements per block and P elements per thread, so that each
//      loaded entry of the face interpolation and of L_c serves P elements; elements per
//      block and per thread chosen per N (TUNED, a launch candidate of gpu_common.cuh).

#include "gpu_common.cuh"

namespace insdg_gpu {
namespace {

struct SasArgs {
    int K;
    double lambda_factor;
    const double *sgeo;
    const int *mapP, *fn;
    const double *FI, *cLIFTT;
    const signed char *bc;
    const double *f[4], *h[4], *gd[4];  // ubar, vbar, ut, vt: fields, halos, Dirichlet data
    double *Nu, *Nv;
};

template <int N>
struct SasConfig {
    static constexpr int NP = Dim<N>::NP, NFACE = Dim<N>::NFACE, NFCUB = Dim<N>::NFCUB;
    static constexpr int T = cmax(NFCUB, NP);
    static constexpr int G2 = (256 + T - 1) / T;
    static constexpr int SHARED = 8 * NFACE + 2 * NFCUB;  // doubles per element, versions 1..3
};
// version 3: the launch candidate of each degree (gpu_common.cuh)
constexpr int TUNED[INSDG_GPU_NMAX + 1] = {0, 2, 1, 2, 2, 1, 4, 5, 4, 0, 5};

template <int N, int C>
struct SasCand {
    static constexpr int G = cand_groups(C, SasConfig<N>::T), P = CAND_P[C];
    static constexpr size_t SHARED = sizeof(double) * SasConfig<N>::SHARED * G * P;
    static constexpr bool FITS = SHARED <= SHARED_LIMIT && G * SasConfig<N>::T <= 1024 && CAND_R[C] == 1;
};

// Trace of field k at face node n of element e: side 0 interior, side 1 exterior.
template <int N>
__device__ __forceinline__ double sas_trace(const SasArgs &a, size_t e, int n, int side, int k)
{
    constexpr int NP = Dim<N>::NP, NFP = Dim<N>::NFP, NFACE = Dim<N>::NFACE;
    const size_t idM = e * NP + a.fn[n];
    if (side == 0) return a.f[k][idM];
    const int code = a.bc[3 * e + n / NFP];
    const size_t gi = e * NFACE + n;
    if (code == BC_INTERIOR) return ext(a.f[k], a.h[k], (size_t)a.K * NP, (size_t)a.mapP[gi]);
    if (code == BC_DIRICHLET) return a.gd[k] ? a.gd[k][gi] : 0.0;
    if (k >= 2) return a.gd[k] ? a.gd[k][gi] : 0.0;  // outflow: Ut's data, taken where the flow enters
    return a.f[k][idM];
}

// The two flux values at one face point from the interpolated traces val[side*4 + k].
// On an outflow face the flux is upwind: un Ut- where the flow leaves, un g where it enters
// (the CPU kernel's rule, docs/numerics.md "Backflow at an outflow").
__device__ __forceinline__ void sas_flux(const double *sg, int code, double lambda_factor, double *val, double &fu,
                                         double &fv)
{
    const double nx = sg[NX], ny = sg[NY], scale = sg[FSCALE];
    const double unM = nx * val[0] + ny * val[1], unP = nx * val[4] + ny * val[5];
    const bool outflow = code != BC_INTERIOR && code != BC_DIRICHLET;
    if (outflow && unM >= 0) val[6] = val[2], val[7] = val[3];
    const double lam = outflow ? fabs(unM) : lambda_factor * fmax(fabs(unM), fabs(unP));
    fu = 0.5 * scale * (unM * val[2] + unP * val[6] + lam * (val[2] - val[6]));
    fv = 0.5 * scale * (unM * val[3] + unP * val[7] + lam * (val[3] - val[7]));
}

// ---- version 0 -------------------------------------------------------------------------
template <int N>
__global__ void __launch_bounds__(SasConfig<N>::T) sas_v0(SasArgs a)
{
    constexpr int NP = Dim<N>::NP, NFP = Dim<N>::NFP, NFC = Dim<N>::NFC, NFCUB = Dim<N>::NFCUB;
    __shared__ double s_fu[NFCUB], s_fv[NFCUB];
    const size_t e = blockIdx.x;
    const int t = threadIdx.x;
    if (e >= (size_t)a.K) return;
    if (t < NFCUB) {
        const int f = t / NFC, q = t - f * NFC;
        double val[8];
        for (int side = 0; side < 2; ++side)
            for (int k = 0; k < 4; ++k) {
                double sum = 0.0;
#pragma unroll 1
                for (int j = 0; j < NFP; ++j) sum += a.FI[q * NFP + j] * sas_trace<N>(a, e, f * NFP + j, side, k);
                val[side * 4 + k] = sum;
            }
        sas_flux(a.sgeo + (e * 3 + f) * NSGEO, a.bc[3 * e + f], a.lambda_factor, val, s_fu[t], s_fv[t]);
    }
    __syncthreads();
    if (t < NP) {
        const size_t id = e * NP + t;
        double nu = a.Nu[id], nv = a.Nv[id];
#pragma unroll 1
        for (int m = 0; m < NFCUB; ++m) {
            const double L = a.cLIFTT[m * NP + t];
            nu += L * s_fu[m];
            nv += L * s_fv[m];
        }
        a.Nu[id] = nu, a.Nv[id] = nv;
    }
}

// ---- versions 1..3: G groups of T threads, P elements per thread ----------------------
template <int N, int G, int P>
__global__ void __launch_bounds__(G * SasConfig<N>::T) sas_blocked(SasArgs a)
{
    constexpr int NP = Dim<N>::NP, NFP = Dim<N>::NFP, NFACE = Dim<N>::NFACE, NFC = Dim<N>::NFC;
    constexpr int NFCUB = Dim<N>::NFCUB, T = SasConfig<N>::T, NE = G * P;
    __shared__ double s_tr[NE][8][NFACE];
    __shared__ double s_fu[NE][NFCUB], s_fv[NE][NFCUB];
    const int g = threadIdx.x / T, n = threadIdx.x - g * T;
    const size_t e_first = (size_t)blockIdx.x * NE;
    size_t e[P];
    bool valid[P];
#pragma unroll
    for (int p = 0; p < P; ++p) e[p] = e_first + p * G + g, valid[p] = e[p] < (size_t)a.K;

    // 1. traces, one thread per face node
    if (n < NFACE) {
#pragma unroll
        for (int p = 0; p < P; ++p) {
            const int el = p * G + g;
#pragma unroll
            for (int side = 0; side < 2; ++side)
#pragma unroll
                for (int k = 0; k < 4; ++k)
                    s_tr[el][side * 4 + k][n] = valid[p] ? sas_trace<N>(a, e[p], n, side, k) : 0.0;
        }
    }
    __syncthreads();
    // 2. interpolation to the face points and fluxes
    if (n < NFCUB) {
        const int f = n / NFC, q = n - f * NFC;
        double val[P][8];
#pragma unroll
        for (int p = 0; p < P; ++p)
#pragma unroll
            for (int k = 0; k < 8; ++k) val[p][k] = 0.0;
#pragma unroll
        for (int j = 0; j < NFP; ++j) {
            const double I = a.FI[q * NFP + j];
#pragma unroll
            for (int p = 0; p < P; ++p)
#pragma unroll
                for (int k = 0; k < 8; ++k) val[p][k] += I * s_tr[p * G + g][k][f * NFP + j];
        }
#pragma unroll
        for (int p = 0; p < P; ++p) {
            const int el = p * G + g;
            double fu = 0.0, fv = 0.0;
            if (valid[p]) sas_flux(a.sgeo + (e[p] * 3 + f) * NSGEO, a.bc[3 * e[p] + f], a.lambda_factor, val[p], fu, fv);
            s_fu[el][n] = fu, s_fv[el][n] = fv;
        }
    }
    __syncthreads();
    // 3. lift onto the existing values
    if (n < NP) {
        double nu[P], nv[P];
#pragma unroll
        for (int p = 0; p < P; ++p) {
            nu[p] = valid[p] ? a.Nu[e[p] * NP + n] : 0.0;
            nv[p] = valid[p] ? a.Nv[e[p] * NP + n] : 0.0;
        }
#pragma unroll
        for (int m = 0; m < NFCUB; ++m) {
            const double L = a.cLIFTT[m * NP + n];
#pragma unroll
            for (int p = 0; p < P; ++p) {
                nu[p] += L * s_fu[p * G + g][m];
                nv[p] += L * s_fv[p * G + g][m];
            }
        }
#pragma unroll
        for (int p = 0; p < P; ++p)
            if (valid[p]) a.Nu[e[p] * NP + n] = nu[p], a.Nv[e[p] * NP + n] = nv[p];
    }
}

template <int N, int G, int P>
int launch_blocked(const SasArgs &a, gpuStream_t s)
{
    sas_blocked<N, G, P><<<nblocks_for((size_t)a.K, G * P), G * SasConfig<N>::T, 0, s>>>(a);
    return launch_status();
}

template <int N>
int launch(int version, const SasArgs &a, gpuStream_t s)
{
    using C = SasConfig<N>;
    switch (version) {
    case 0:
        sas_v0<N><<<a.K, C::T, 0, s>>>(a);
        return launch_status();
    case 1: return launch_blocked<N, 1, 1>(a, s);
    case 2: return launch_blocked<N, C::G2, 1>(a, s);
    case 3:
        return dispatch_candidate<TUNED[N]>(selected_candidate(INSDG_GPU_KERNEL_ADV_SURFACE), [&](auto c) {
            using Q = SasCand<N, decltype(c)::value>;
            if constexpr (!Q::FITS) return INSDG_GPU_EBADVERSION;
            else return launch_blocked<N, Q::G, Q::P>(a, s);
        });
    default: return INSDG_GPU_EBADVERSION;
    }
}

template <int N>
int info(int version, insdg_gpu_launch *out)
{
    using C = SasConfig<N>;
    constexpr int NFCUB = Dim<N>::NFCUB;
    switch (version) {
    case 0: set_launch(out, C::T, 1, 1, sizeof(double) * 2 * NFCUB); break;
    case 1: set_launch(out, C::T, 1, 1, sizeof(double) * C::SHARED); break;
    case 2: set_launch(out, C::G2 * C::T, C::G2, 1, sizeof(double) * C::SHARED * C::G2); break;
    case 3:
        return dispatch_candidate<TUNED[N]>(selected_candidate(INSDG_GPU_KERNEL_ADV_SURFACE), [&](auto c) {
            using Q = SasCand<N, decltype(c)::value>;
            if constexpr (!Q::FITS) return INSDG_GPU_EBADVERSION;
            set_launch(out, Q::G * C::T, Q::G * Q::P, Q::P, Q::SHARED);
            return INSDG_GPU_OK;
        });
    default: return INSDG_GPU_EBADVERSION;
    }
    return INSDG_GPU_OK;
}

bool vec_ok(const insdg_gpu_vec_in *U, int nhalo)
{
    return U && U->u && U->v && (nhalo == 0 || (U->u_halo && U->v_halo));
}

} // namespace

int launch_info_adv_surface(int N, int version, insdg_gpu_launch *out)
{
    const int v = resolve_version(version);
    if (v < 0) return INSDG_GPU_EBADVERSION;
    return dispatch_n(N, [&](auto n) { return info<decltype(n)::value>(v, out); });
}

} // namespace insdg_gpu

using namespace insdg_gpu;

namespace {

int adv_surface_args(const insdg_gpu_ref *R, const insdg_gpu_block *B, int version, const signed char *bc,
                     const insdg_gpu_vec_in *Ubar, const insdg_gpu_vec_in *Ut, const double *Nu, const double *Nv)
{
    const int rc = check_element_args(R, B);
    if (rc != INSDG_GPU_OK) return rc;
    if (resolve_version(version) < 0) return INSDG_GPU_EBADVERSION;
    if (B->K > 0 && (!R->face_interp || !R->cub_LIFTT || !R->face_nodes || !bc || !Nu || !Nv ||
                     !vec_ok(Ubar, B->nhalo) || !vec_ok(Ut, B->nhalo)))
        return INSDG_GPU_EBADARG;
    return INSDG_GPU_OK;
}

int adv_surface_affine(const insdg_gpu_ref *R, const insdg_gpu_block *B, int version, const signed char *bc,
                       double lambda_factor, const insdg_gpu_vec_in *Ubar, const insdg_gpu_vec_in *Ut, double *Nu,
                       double *Nv, gpuStream_t s)
{
    const int v = resolve_version(version);
    const SasArgs a = {B->K,
                       lambda_factor,
                       B->sgeo,
                       B->mapP,
                       R->face_nodes,
                       R->face_interp,
                       R->cub_LIFTT,
                       bc,
                       {Ubar->u, Ubar->v, Ut->u, Ut->v},
                       {Ubar->u_halo, Ubar->v_halo, Ut->u_halo, Ut->v_halo},
                       {Ubar->gu, Ubar->gv, Ut->gu, Ut->gv},
                       Nu,
                       Nv};
    return dispatch_n(R->N, [&](auto n) { return launch<decltype(n)::value>(v, a, s); });
}

CurvedArgs adv_curved(int op, const signed char *bc, double lambda_factor, const insdg_gpu_vec_in *Ubar,
                      const insdg_gpu_vec_in *Ut, double *Nu, double *Nv)
{
    return CurvedArgs{op,
                      0,
                      bc,
                      lambda_factor,
                      {Ubar->u, Ubar->v, Ut->u, Ut->v},
                      {Ubar->u_halo, Ubar->v_halo, Ut->u_halo, Ut->v_halo},
                      {Ubar->gu, Ubar->gv, Ut->gu, Ut->gv},
                      {Nu, Nv},
                      nullptr};
}

// volume then surface (default versions), then the curved elements' whole operator over
// what the affine kernels left there
int advection_both(const insdg_gpu_ref *R, const insdg_gpu_block *B, const signed char *bc, double lambda_factor,
                   const insdg_gpu_vec_in *Ubar, const insdg_gpu_vec_in *Ut, double *Nu, double *Nv, void *stream)
{
    if (!Ubar || !Ut) return INSDG_GPU_EBADARG;
    const int v = INSDG_GPU_VERSION_DEFAULT;
    int rc = insdg_gpu_adv_volume(R, B, v, Ubar->u, Ubar->v, Ut->u, Ut->v, Nu, Nv, stream);
    if (rc == INSDG_GPU_OK) rc = adv_surface_args(R, B, v, bc, Ubar, Ut, Nu, Nv);
    if (rc != INSDG_GPU_OK || B->K == 0) return rc;
    gpuStream_t s = (gpuStream_t)stream;
    rc = adv_surface_affine(R, B, v, bc, lambda_factor, Ubar, Ut, Nu, Nv, s);
    return rc == INSDG_GPU_OK ? curved_launch(B, adv_curved(CURVED_ADVECTION, bc, lambda_factor, Ubar, Ut, Nu, Nv), s)
                              : rc;
}

} // namespace

extern "C" int insdg_gpu_adv_surface(const insdg_gpu_ref *R, const insdg_gpu_block *B, int version,
                                     const signed char *bc, double lambda_factor, const insdg_gpu_vec_in *Ubar,
                                     const insdg_gpu_vec_in *Ut, double *Nu, double *Nv, double *curved_work,
                                     void *stream)
{
    const int rc = adv_surface_args(R, B, version, bc, Ubar, Ut, Nu, Nv);
    if (rc != INSDG_GPU_OK || B->K == 0) return rc;
    gpuStream_t s = (gpuStream_t)stream;
    return curved_surface(B, adv_curved(CURVED_ADV_SURFACE, bc, lambda_factor, Ubar, Ut, Nu, Nv), curved_work, s,
                          [&] { return adv_surface_affine(R, B, version, bc, lambda_factor, Ubar, Ut, Nu, Nv, s); });
}

extern "C" int insdg_gpu_advection(const insdg_gpu_ref *R, const insdg_gpu_block *B, const signed char *bc,
                                   const insdg_gpu_vec_in *U, double *Nu, double *Nv, void *stream)
{
    return advection_both(R, B, bc, 2.0, U, U, Nu, Nv, stream);
}

extern "C" int insdg_gpu_subcycle(const insdg_gpu_ref *R, const insdg_gpu_block *B, const signed char *bc,
                                  const insdg_gpu_vec_in *Ubar, const insdg_gpu_vec_in *Ut, double *Nu, double *Nv,
                                  void *stream)
{
    return advection_both(R, B, bc, 1.0, Ubar, Ut, Nu, Nv, stream);
}
