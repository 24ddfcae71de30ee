// grad_div.cu -- gradient and divergence with central fluxes (src/ops_kernels.inc:
// gradient_surface, divergence_volume, divergence_surface; the volume part of the
// gradient is the local gradient kernel). One version each: G elements per block,
// T = max(Np, 3Nfp) threads per element; face-node work first (one thread per face
// node), then one thread per volume node lifts the face values, summing face nodes in
// increasing order onto the existing output exactly like matvec_acc on the CPU. Elements
// per block and per thread: a launch candidate per N (gpu_common.cuh).

#include "gpu_common.cuh"

namespace insdg_gpu {
namespace {

template <int N>
struct GdConfig {
    static constexpr int T = cmax(Dim<N>::NP, Dim<N>::NFACE);
};
// the launch candidate of each degree (gpu_common.cuh), per kernel
constexpr int TUNED_GS[INSDG_GPU_NMAX + 1] = {0, 2, 6, 2, 6, 4, 6, 2, 7, 4, 6};
constexpr int TUNED_DV[INSDG_GPU_NMAX + 1] = {0, 2, 8, 6, 9, 8, 8, 9, 9, 9, 9};
constexpr int TUNED_DS[INSDG_GPU_NMAX + 1] = {0, 6, 6, 6, 6, 6, 6, 6, 7, 6, 6};

// Groups of T threads (T = the kernel's threads per element), P elements per thread;
// `shared` doubles per element.
template <int C, int T, int SHARED_PER_ELEMENT>
struct GdCand {
    static constexpr int G = cand_groups(C, T), P = CAND_P[C];
    static constexpr size_t SHARED = sizeof(double) * SHARED_PER_ELEMENT * G * P;
    static constexpr bool FITS = SHARED <= SHARED_LIMIT && G * T <= 1024 && CAND_R[C] == 1;
};
template <int N, int C>
using GsCand = GdCand<C, GdConfig<N>::T, 2 * Dim<N>::NFACE>;
template <int N, int C>
using DvCand = GdCand<C, Dim<N>::NP, 2 * Dim<N>::NP>;
template <int N, int C>
using DsCand = GdCand<C, GdConfig<N>::T, Dim<N>::NFACE>;

// px, py += LIFT (Fscale n (p* - p-)) with the jump of central_jump2.
// G groups of T threads; group g handles the block's elements q*G + g, q < P.
template <int N, int G, int P>
__global__ void __launch_bounds__(G * GdConfig<N>::T)
gradient_surface_kernel(int K, const double *__restrict__ sgeo, const int *__restrict__ mapP,
                        const int *__restrict__ fn, const double *__restrict__ LIFTT,
                        const signed char *__restrict__ bc, const double *__restrict__ g,
                        const double *__restrict__ p, const double *__restrict__ p_halo, double *__restrict__ px,
                        double *__restrict__ py)
{
    constexpr int NP = Dim<N>::NP, NFP = Dim<N>::NFP, NFACE = Dim<N>::NFACE;
    constexpr int T = GdConfig<N>::T, NE = G * P;
    __shared__ double s_fx[NE][NFACE], s_fy[NE][NFACE];
    const int gr = threadIdx.x / T, n = threadIdx.x - gr * T;
    const size_t e_first = (size_t)blockIdx.x * NE;
    const size_t KNP = (size_t)K * NP;
    if (n < NFACE) {
#pragma unroll
        for (int q = 0; q < P; ++q) {
            const int el = q * G + gr;
            const size_t e = e_first + el;
            if (e < (size_t)K) {
                const int f = n / NFP;
                const double *sg = sgeo + (e * 3 + f) * NSGEO;
                const int code = bc[3 * e + f];
                const size_t gi = e * NFACE + n;
                const size_t idP = (size_t)mapP[gi];
                const double pM = p[e * NP + fn[n]];
                const double dp = central_jump2(code, pM, ext(p, p_halo, KNP, idP), g, gi);
                s_fx[el][n] = 0.5 * sg[FSCALE] * sg[NX] * dp;
                s_fy[el][n] = 0.5 * sg[FSCALE] * sg[NY] * dp;
            } else {
                s_fx[el][n] = 0.0, s_fy[el][n] = 0.0;
            }
        }
    }
    __syncthreads();
    if (n < NP) {
        double ax[P], ay[P];
#pragma unroll
        for (int q = 0; q < P; ++q) {
            const size_t e = e_first + q * G + gr;
            ax[q] = e < (size_t)K ? px[e * NP + n] : 0.0;
            ay[q] = e < (size_t)K ? py[e * NP + n] : 0.0;
        }
#pragma unroll
        for (int m = 0; m < NFACE; ++m) {
            const double L = LIFTT[m * NP + n];
#pragma unroll
            for (int q = 0; q < P; ++q) {
                ax[q] += L * s_fx[q * G + gr][m];
                ay[q] += L * s_fy[q * G + gr][m];
            }
        }
#pragma unroll
        for (int q = 0; q < P; ++q) {
            const size_t e = e_first + q * G + gr;
            if (e < (size_t)K) px[e * NP + n] = ax[q], py[e * NP + n] = ay[q];
        }
    }
}

// divu = Dr (rx u + ry v) + Ds (sx u + sy v), Dr terms first then Ds, each over j.
template <int N, int G, int P>
__global__ void __launch_bounds__(G * Dim<N>::NP)
divergence_volume_kernel(int K, const double *__restrict__ vgeo, const double *__restrict__ DrT,
                         const double *__restrict__ DsT, const double *__restrict__ u, const double *__restrict__ v,
                         double *__restrict__ divu)
{
    constexpr int NP = Dim<N>::NP, NE = G * P;
    __shared__ double s_a[NE][NP], s_c[NE][NP];
    const int gr = threadIdx.x / NP, i = threadIdx.x - gr * NP;
    const size_t e_first = (size_t)blockIdx.x * NE;
#pragma unroll
    for (int q = 0; q < P; ++q) {
        const int el = q * G + gr;
        const size_t e = e_first + el;
        double a = 0.0, c = 0.0;
        if (e < (size_t)K) {
            const double *vg = vgeo + e * NVGEO;
            const double ui = u[e * NP + i], vi = v[e * NP + i];
            a = vg[RX] * ui + vg[RY] * vi;
            c = vg[SX] * ui + vg[SY] * vi;
        }
        s_a[el][i] = a, s_c[el][i] = c;
    }
    __syncthreads();
    double out[P];
#pragma unroll
    for (int q = 0; q < P; ++q) out[q] = 0.0;
#pragma unroll
    for (int j = 0; j < NP; ++j) {
        const double d = DrT[j * NP + i];
#pragma unroll
        for (int q = 0; q < P; ++q) out[q] += d * s_a[q * G + gr][j];
    }
#pragma unroll
    for (int j = 0; j < NP; ++j) {
        const double d = DsT[j * NP + i];
#pragma unroll
        for (int q = 0; q < P; ++q) out[q] += d * s_c[q * G + gr][j];
    }
#pragma unroll
    for (int q = 0; q < P; ++q) {
        const size_t e = e_first + q * G + gr;
        if (e < (size_t)K) divu[e * NP + i] = out[q];
    }
}

// divu += LIFT (Fscale/2 (nx [u] + ny [v])) with the central jumps.
template <int N, int G, int P>
__global__ void __launch_bounds__(G * GdConfig<N>::T)
divergence_surface_kernel(int K, const double *__restrict__ sgeo, const int *__restrict__ mapP,
                          const int *__restrict__ fn, const double *__restrict__ LIFTT,
                          const signed char *__restrict__ bc, insdg_gpu_vec_in U, double *__restrict__ divu)
{
    constexpr int NP = Dim<N>::NP, NFP = Dim<N>::NFP, NFACE = Dim<N>::NFACE;
    constexpr int T = GdConfig<N>::T, NE = G * P;
    __shared__ double s_flux[NE][NFACE];
    const int gr = threadIdx.x / T, n = threadIdx.x - gr * T;
    const size_t e_first = (size_t)blockIdx.x * NE;
    const size_t KNP = (size_t)K * NP;
    if (n < NFACE) {
#pragma unroll
        for (int q = 0; q < P; ++q) {
            const int el = q * G + gr;
            const size_t e = e_first + el;
            double flux = 0.0;
            if (e < (size_t)K) {
                const int f = n / NFP;
                const double *sg = sgeo + (e * 3 + f) * NSGEO;
                const int code = bc[3 * e + f];
                const size_t gi = e * NFACE + n;
                const size_t idP = (size_t)mapP[gi], idM = e * NP + fn[n];
                const double du = central_jump2(code, U.u[idM], ext(U.u, U.u_halo, KNP, idP), U.gu, gi);
                const double dv = central_jump2(code, U.v[idM], ext(U.v, U.v_halo, KNP, idP), U.gv, gi);
                flux = 0.5 * sg[FSCALE] * (sg[NX] * du + sg[NY] * dv);
            }
            s_flux[el][n] = flux;
        }
    }
    __syncthreads();
    if (n < NP) {
        double out[P];
#pragma unroll
        for (int q = 0; q < P; ++q) {
            const size_t e = e_first + q * G + gr;
            out[q] = e < (size_t)K ? divu[e * NP + n] : 0.0;
        }
#pragma unroll
        for (int m = 0; m < NFACE; ++m) {
            const double L = LIFTT[m * NP + n];
#pragma unroll
            for (int q = 0; q < P; ++q) out[q] += L * s_flux[q * G + gr][m];
        }
#pragma unroll
        for (int q = 0; q < P; ++q) {
            const size_t e = e_first + q * G + gr;
            if (e < (size_t)K) divu[e * NP + n] = out[q];
        }
    }
}

template <int N>
int launch_gradient_surface(const insdg_gpu_ref *R, const insdg_gpu_block *B, const signed char *bc,
                            const double *g, const double *p, const double *p_halo, double *px, double *py,
                            gpuStream_t s)
{
    return dispatch_candidate<TUNED_GS[N]>(selected_candidate(INSDG_GPU_KERNEL_GRADIENT_SURFACE), [&](auto c) {
        using Q = GsCand<N, decltype(c)::value>;
        if constexpr (!Q::FITS) return INSDG_GPU_EBADVERSION;
        else {
            gradient_surface_kernel<N, Q::G, Q::P><<<nblocks_for((size_t)B->K, Q::G * Q::P),
                                                     Q::G * GdConfig<N>::T, 0, s>>>(
                B->K, B->sgeo, B->mapP, R->face_nodes, R->LIFTT, bc, g, p, p_halo, px, py);
            return launch_status();
        }
    });
}

template <int N>
int launch_divergence_volume(const insdg_gpu_ref *R, const insdg_gpu_block *B, const double *u, const double *v,
                             double *divu, gpuStream_t s)
{
    return dispatch_candidate<TUNED_DV[N]>(selected_candidate(INSDG_GPU_KERNEL_DIVERGENCE_VOLUME), [&](auto c) {
        using Q = DvCand<N, decltype(c)::value>;
        if constexpr (!Q::FITS) return INSDG_GPU_EBADVERSION;
        else {
            divergence_volume_kernel<N, Q::G, Q::P><<<nblocks_for((size_t)B->K, Q::G * Q::P), Q::G * Dim<N>::NP, 0,
                                                      s>>>(B->K, B->vgeo, R->DrT, R->DsT, u, v, divu);
            return launch_status();
        }
    });
}

template <int N>
int launch_divergence_surface(const insdg_gpu_ref *R, const insdg_gpu_block *B, const signed char *bc,
                              const insdg_gpu_vec_in *U, double *divu, gpuStream_t s)
{
    return dispatch_candidate<TUNED_DS[N]>(selected_candidate(INSDG_GPU_KERNEL_DIVERGENCE_SURFACE), [&](auto c) {
        using Q = DsCand<N, decltype(c)::value>;
        if constexpr (!Q::FITS) return INSDG_GPU_EBADVERSION;
        else {
            divergence_surface_kernel<N, Q::G, Q::P><<<nblocks_for((size_t)B->K, Q::G * Q::P),
                                                       Q::G * GdConfig<N>::T, 0, s>>>(
                B->K, B->sgeo, B->mapP, R->face_nodes, R->LIFTT, bc, *U, divu);
            return launch_status();
        }
    });
}

template <int N>
int info(int kernel, insdg_gpu_launch *out)
{
    constexpr int T = GdConfig<N>::T, NP = Dim<N>::NP;
    const int c = selected_candidate(kernel);
    switch (kernel) {
    case INSDG_GPU_KERNEL_GRADIENT_SURFACE:
        return dispatch_candidate<TUNED_GS[N]>(c, [&](auto cc) {
            using Q = GsCand<N, decltype(cc)::value>;
            if constexpr (!Q::FITS) return INSDG_GPU_EBADVERSION;
            set_launch(out, Q::G * T, Q::G * Q::P, Q::P, Q::SHARED);
            return INSDG_GPU_OK;
        });
    case INSDG_GPU_KERNEL_DIVERGENCE_VOLUME:
        return dispatch_candidate<TUNED_DV[N]>(c, [&](auto cc) {
            using Q = DvCand<N, decltype(cc)::value>;
            if constexpr (!Q::FITS) return INSDG_GPU_EBADVERSION;
            set_launch(out, Q::G * NP, Q::G * Q::P, Q::P, Q::SHARED);
            return INSDG_GPU_OK;
        });
    case INSDG_GPU_KERNEL_DIVERGENCE_SURFACE:
        return dispatch_candidate<TUNED_DS[N]>(c, [&](auto cc) {
            using Q = DsCand<N, decltype(cc)::value>;
            if constexpr (!Q::FITS) return INSDG_GPU_EBADVERSION;
            set_launch(out, Q::G * T, Q::G * Q::P, Q::P, Q::SHARED);
            return INSDG_GPU_OK;
        });
    default: return INSDG_GPU_EBADARG;
    }
}

// Halos are needed only when the block has some.
inline bool halo_ok(const insdg_gpu_block *B, const double *h) { return B->nhalo == 0 || h != nullptr; }

} // namespace

int launch_info_grad_div(int kernel, int N, insdg_gpu_launch *out)
{
    return dispatch_n(N, [&](auto n) { return info<decltype(n)::value>(kernel, out); });
}

} // namespace insdg_gpu

using namespace insdg_gpu;

namespace {

int gradient_surface_affine(const insdg_gpu_ref *R, const insdg_gpu_block *B, const signed char *bc, const double *g,
                            const double *p, const double *p_halo, double *px, double *py, gpuStream_t s)
{
    return dispatch_n(R->N, [&](auto n) {
        return launch_gradient_surface<decltype(n)::value>(R, B, bc, g, p, p_halo, px, py, s);
    });
}

int divergence_surface_affine(const insdg_gpu_ref *R, const insdg_gpu_block *B, const signed char *bc,
                              const insdg_gpu_vec_in *U, double *divu, gpuStream_t s)
{
    return dispatch_n(R->N, [&](auto n) {
        return launch_divergence_surface<decltype(n)::value>(R, B, bc, U, divu, s);
    });
}

int gradient_surface_args(const insdg_gpu_ref *R, const insdg_gpu_block *B, const signed char *bc, const double *p,
                          const double *p_halo, const double *px, const double *py)
{
    const int rc = check_element_args(R, B);
    if (rc != INSDG_GPU_OK) return rc;
    if (B->K > 0 && (!R->LIFTT || !R->face_nodes || !bc || !p || !px || !py || !halo_ok(B, p_halo)))
        return INSDG_GPU_EBADARG;
    return INSDG_GPU_OK;
}

int divergence_surface_args(const insdg_gpu_ref *R, const insdg_gpu_block *B, const signed char *bc,
                            const insdg_gpu_vec_in *U, const double *divu)
{
    const int rc = check_element_args(R, B);
    if (rc != INSDG_GPU_OK) return rc;
    if (!U) return INSDG_GPU_EBADARG;
    if (B->K > 0 && (!R->LIFTT || !R->face_nodes || !bc || !U->u || !U->v || !divu || !halo_ok(B, U->u_halo) ||
                     !halo_ok(B, U->v_halo)))
        return INSDG_GPU_EBADARG;
    return INSDG_GPU_OK;
}

CurvedArgs gradient_curved(int op, const signed char *bc, const double *g, const double *p, const double *p_halo,
                           double *px, double *py)
{
    return CurvedArgs{op, 0, bc, 0.0, {p}, {p_halo}, {g}, {px, py}, nullptr};
}

CurvedArgs divergence_curved(int op, const signed char *bc, const insdg_gpu_vec_in *U, double *divu)
{
    return CurvedArgs{op, 0, bc, 0.0, {U->u, U->v}, {U->u_halo, U->v_halo}, {U->gu, U->gv}, {divu}, nullptr};
}

} // namespace

extern "C" int insdg_gpu_gradient_surface(const insdg_gpu_ref *R, const insdg_gpu_block *B, const signed char *bc,
                                          const double *g, const double *p, const double *p_halo, double *px,
                                          double *py, double *curved_work, void *stream)
{
    const int rc = gradient_surface_args(R, B, bc, p, p_halo, px, py);
    if (rc != INSDG_GPU_OK || B->K == 0) return rc;
    gpuStream_t s = (gpuStream_t)stream;
    return curved_surface(B, gradient_curved(CURVED_GRADIENT_SURFACE, bc, g, p, p_halo, px, py), curved_work, s,
                          [&] { return gradient_surface_affine(R, B, bc, g, p, p_halo, px, py, s); });
}

// The composites: volume then surface, then the curved elements' whole operator over
// what the affine kernels left there (no work array needed).
extern "C" int insdg_gpu_gradient(const insdg_gpu_ref *R, const insdg_gpu_block *B, const signed char *bc,
                                  const double *g, const double *p, const double *p_halo, double *px, double *py,
                                  void *stream)
{
    int rc = insdg_gpu_local_gradient(R, B, INSDG_GPU_VERSION_DEFAULT, p, px, py, stream);
    if (rc == INSDG_GPU_OK) rc = gradient_surface_args(R, B, bc, p, p_halo, px, py);
    if (rc != INSDG_GPU_OK || B->K == 0) return rc;
    gpuStream_t s = (gpuStream_t)stream;
    rc = gradient_surface_affine(R, B, bc, g, p, p_halo, px, py, s);
    return rc == INSDG_GPU_OK ? curved_launch(B, gradient_curved(CURVED_GRADIENT, bc, g, p, p_halo, px, py), s) : rc;
}

extern "C" int insdg_gpu_divergence_volume(const insdg_gpu_ref *R, const insdg_gpu_block *B, const double *u,
                                           const double *v, double *divu, void *stream)
{
    int rc = check_element_args(R, B);
    if (rc != INSDG_GPU_OK) return rc;
    if (B->K == 0) return INSDG_GPU_OK;
    if (!R->DrT || !R->DsT || !u || !v || !divu) return INSDG_GPU_EBADARG;
    gpuStream_t s = (gpuStream_t)stream;
    rc = dispatch_n(R->N, [&](auto n) {
        return launch_divergence_volume<decltype(n)::value>(R, B, u, v, divu, s);
    });
    CurvedArgs c = {CURVED_DIVERGENCE_VOLUME, 0, nullptr, 0.0, {u, v}, {}, {}, {divu}, nullptr};
    return rc == INSDG_GPU_OK ? curved_launch(B, c, s) : rc;
}

extern "C" int insdg_gpu_divergence_surface(const insdg_gpu_ref *R, const insdg_gpu_block *B,
                                            const signed char *bc, const insdg_gpu_vec_in *U, double *divu,
                                            double *curved_work, void *stream)
{
    const int rc = divergence_surface_args(R, B, bc, U, divu);
    if (rc != INSDG_GPU_OK || B->K == 0) return rc;
    gpuStream_t s = (gpuStream_t)stream;
    return curved_surface(B, divergence_curved(CURVED_DIVERGENCE_SURFACE, bc, U, divu), curved_work, s,
                          [&] { return divergence_surface_affine(R, B, bc, U, divu, s); });
}

extern "C" int insdg_gpu_divergence(const insdg_gpu_ref *R, const insdg_gpu_block *B, const signed char *bc,
                                    const insdg_gpu_vec_in *U, double *divu, void *stream)
{
    if (!U) return INSDG_GPU_EBADARG;
    int rc = insdg_gpu_divergence_volume(R, B, U->u, U->v, divu, stream);
    if (rc == INSDG_GPU_OK) rc = divergence_surface_args(R, B, bc, U, divu);
    if (rc != INSDG_GPU_OK || B->K == 0) return rc;
    gpuStream_t s = (gpuStream_t)stream;
    rc = divergence_surface_affine(R, B, bc, U, divu, s);
    return rc == INSDG_GPU_OK ? curved_launch(B, divergence_curved(CURVED_DIVERGENCE, bc, U, divu), s) : rc;
}
