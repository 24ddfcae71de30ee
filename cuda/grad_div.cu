// grad_div.cu -- gradient and divergence with central fluxes (src/ops_kernels.inc:
// gradient_surface, divergence_volume, divergence_surface; the volume part of the
// gradient is the local gradient kernel). One version each: G elements per block,
// T = max(Np, 3Nfp) threads per element; face-node work first (one thread per face
// node), then one thread per volume node lifts the face values, summing face nodes in
// increasing order onto the existing output exactly like matvec_acc on the CPU.

#include "gpu_common.cuh"

namespace insdg_gpu {
namespace {

template <int N>
struct GdConfig {
    static constexpr int NP = Dim<N>::NP, T = cmax(Dim<N>::NP, Dim<N>::NFACE);
    static constexpr int G = (256 + T - 1) / T;         // surface kernels
    static constexpr int GV = (256 + NP - 1) / NP;      // divergence volume
};

// px, py += LIFT (Fscale n (p* - p-)) with the jump of central_jump2.
template <int N>
__global__ void __launch_bounds__(GdConfig<N>::G * GdConfig<N>::T)
gradient_surface_kernel(int K, const double *__restrict__ sgeo, const int *__restrict__ mapP,
                        const int *__restrict__ fn, const double *__restrict__ LIFTT,
                        const signed char *__restrict__ bc, const double *__restrict__ g,
                        const double *__restrict__ p, const double *__restrict__ p_halo, double *__restrict__ px,
                        double *__restrict__ py)
{
    constexpr int NP = Dim<N>::NP, NFP = Dim<N>::NFP, NFACE = Dim<N>::NFACE;
    constexpr int T = GdConfig<N>::T, G = GdConfig<N>::G;
    __shared__ double s_fx[G][NFACE], s_fy[G][NFACE];
    const int el = threadIdx.x / T, n = threadIdx.x - el * T;
    const size_t e = (size_t)blockIdx.x * G + el;
    const bool active = e < (size_t)K;
    const size_t KNP = (size_t)K * NP;
    if (active && n < NFACE) {
        const int f = n / NFP;
        const double *sg = sgeo + (e * 3 + f) * NSGEO;
        const int code = bc[3 * e + f];
        const size_t gi = e * NFACE + n;
        const size_t idP = (size_t)mapP[gi];
        const double pM = p[e * NP + fn[n]];
        const double dp = central_jump2(code, pM, ext(p, p_halo, KNP, idP), g, gi);
        s_fx[el][n] = 0.5 * sg[FSCALE] * sg[NX] * dp;
        s_fy[el][n] = 0.5 * sg[FSCALE] * sg[NY] * dp;
    }
    __syncthreads();
    if (active && n < NP) {
        const size_t id = e * NP + n;
        double ax = px[id], ay = py[id];
#pragma unroll
        for (int m = 0; m < NFACE; ++m) {
            const double L = LIFTT[m * NP + n];
            ax += L * s_fx[el][m];
            ay += L * s_fy[el][m];
        }
        px[id] = ax;
        py[id] = ay;
    }
}

// divu = Dr (rx u + ry v) + Ds (sx u + sy v), Dr terms first then Ds, each over j.
template <int N>
__global__ void __launch_bounds__(GdConfig<N>::GV * Dim<N>::NP)
divergence_volume_kernel(int K, const double *__restrict__ vgeo, const double *__restrict__ DrT,
                         const double *__restrict__ DsT, const double *__restrict__ u, const double *__restrict__ v,
                         double *__restrict__ divu)
{
    constexpr int NP = Dim<N>::NP, G = GdConfig<N>::GV;
    __shared__ double s_a[G][NP], s_c[G][NP];
    const int el = threadIdx.x / NP, i = threadIdx.x - el * NP;
    const size_t e = (size_t)blockIdx.x * G + el;
    const bool active = e < (size_t)K;
    if (active) {
        const double *vg = vgeo + e * NVGEO;
        const double ui = u[e * NP + i], vi = v[e * NP + i];
        s_a[el][i] = vg[RX] * ui + vg[RY] * vi;
        s_c[el][i] = vg[SX] * ui + vg[SY] * vi;
    }
    __syncthreads();
    if (active) {
        double out = 0.0;
#pragma unroll
        for (int j = 0; j < NP; ++j) out += DrT[j * NP + i] * s_a[el][j];
#pragma unroll
        for (int j = 0; j < NP; ++j) out += DsT[j * NP + i] * s_c[el][j];
        divu[e * NP + i] = out;
    }
}

// divu += LIFT (Fscale/2 (nx [u] + ny [v])) with the central jumps.
template <int N>
__global__ void __launch_bounds__(GdConfig<N>::G * GdConfig<N>::T)
divergence_surface_kernel(int K, const double *__restrict__ sgeo, const int *__restrict__ mapP,
                          const int *__restrict__ fn, const double *__restrict__ LIFTT,
                          const signed char *__restrict__ bc, insdg_gpu_vec_in U, double *__restrict__ divu)
{
    constexpr int NP = Dim<N>::NP, NFP = Dim<N>::NFP, NFACE = Dim<N>::NFACE;
    constexpr int T = GdConfig<N>::T, G = GdConfig<N>::G;
    __shared__ double s_flux[G][NFACE];
    const int el = threadIdx.x / T, n = threadIdx.x - el * T;
    const size_t e = (size_t)blockIdx.x * G + el;
    const bool active = e < (size_t)K;
    const size_t KNP = (size_t)K * NP;
    if (active && n < NFACE) {
        const int f = n / NFP;
        const double *sg = sgeo + (e * 3 + f) * NSGEO;
        const int code = bc[3 * e + f];
        const size_t gi = e * NFACE + n;
        const size_t idP = (size_t)mapP[gi], idM = e * NP + fn[n];
        const double du = central_jump2(code, U.u[idM], ext(U.u, U.u_halo, KNP, idP), U.gu, gi);
        const double dv = central_jump2(code, U.v[idM], ext(U.v, U.v_halo, KNP, idP), U.gv, gi);
        s_flux[el][n] = 0.5 * sg[FSCALE] * (sg[NX] * du + sg[NY] * dv);
    }
    __syncthreads();
    if (active && n < NP) {
        const size_t id = e * NP + n;
        double out = divu[id];
#pragma unroll
        for (int m = 0; m < NFACE; ++m) out += LIFTT[m * NP + n] * s_flux[el][m];
        divu[id] = out;
    }
}

template <int N>
int launch_gradient_surface(const insdg_gpu_ref *R, const insdg_gpu_block *B, const signed char *bc,
                            const double *g, const double *p, const double *p_halo, double *px, double *py,
                            gpuStream_t s)
{
    using C = GdConfig<N>;
    gradient_surface_kernel<N><<<nblocks_for((size_t)B->K, C::G), C::G * C::T, 0, s>>>(
        B->K, B->sgeo, B->mapP, R->face_nodes, R->LIFTT, bc, g, p, p_halo, px, py);
    return launch_status();
}

template <int N>
int launch_divergence_volume(const insdg_gpu_ref *R, const insdg_gpu_block *B, const double *u, const double *v,
                             double *divu, gpuStream_t s)
{
    using C = GdConfig<N>;
    divergence_volume_kernel<N><<<nblocks_for((size_t)B->K, C::GV), C::GV * Dim<N>::NP, 0, s>>>(
        B->K, B->vgeo, R->DrT, R->DsT, u, v, divu);
    return launch_status();
}

template <int N>
int launch_divergence_surface(const insdg_gpu_ref *R, const insdg_gpu_block *B, const signed char *bc,
                              const insdg_gpu_vec_in *U, double *divu, gpuStream_t s)
{
    using C = GdConfig<N>;
    divergence_surface_kernel<N><<<nblocks_for((size_t)B->K, C::G), C::G * C::T, 0, s>>>(
        B->K, B->sgeo, B->mapP, R->face_nodes, R->LIFTT, bc, *U, divu);
    return launch_status();
}

template <int N>
int info(int kernel, insdg_gpu_launch *out)
{
    using C = GdConfig<N>;
    constexpr int NP = Dim<N>::NP, NFACE = Dim<N>::NFACE;
    switch (kernel) {
    case INSDG_GPU_KERNEL_GRADIENT_SURFACE:
        set_launch(out, C::G * C::T, C::G, 1, sizeof(double) * 2 * C::G * NFACE);
        break;
    case INSDG_GPU_KERNEL_DIVERGENCE_VOLUME:
        set_launch(out, C::GV * NP, C::GV, 1, sizeof(double) * 2 * C::GV * NP);
        break;
    case INSDG_GPU_KERNEL_DIVERGENCE_SURFACE:
        set_launch(out, C::G * C::T, C::G, 1, sizeof(double) * C::G * NFACE);
        break;
    default: return INSDG_GPU_EBADARG;
    }
    return INSDG_GPU_OK;
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

extern "C" int insdg_gpu_gradient_surface(const insdg_gpu_ref *R, const insdg_gpu_block *B, const signed char *bc,
                                          const double *g, const double *p, const double *p_halo, double *px,
                                          double *py, void *stream)
{
    int rc = check_element_args(R, B);
    if (rc != INSDG_GPU_OK) return rc;
    if (B->K == 0) return INSDG_GPU_OK;
    if (!R->LIFTT || !R->face_nodes || !bc || !p || !px || !py || !halo_ok(B, p_halo)) return INSDG_GPU_EBADARG;
    gpuStream_t s = (gpuStream_t)stream;
    return dispatch_n(R->N, [&](auto n) {
        return launch_gradient_surface<decltype(n)::value>(R, B, bc, g, p, p_halo, px, py, s);
    });
}

extern "C" int insdg_gpu_gradient(const insdg_gpu_ref *R, const insdg_gpu_block *B, const signed char *bc,
                                  const double *g, const double *p, const double *p_halo, double *px, double *py,
                                  void *stream)
{
    const int rc = insdg_gpu_local_gradient(R, B, INSDG_GPU_VERSION_DEFAULT, p, px, py, stream);
    if (rc != INSDG_GPU_OK) return rc;
    return insdg_gpu_gradient_surface(R, B, bc, g, p, p_halo, px, py, stream);
}

extern "C" int insdg_gpu_divergence_volume(const insdg_gpu_ref *R, const insdg_gpu_block *B, const double *u,
                                           const double *v, double *divu, void *stream)
{
    int rc = check_element_args(R, B);
    if (rc != INSDG_GPU_OK) return rc;
    if (B->K == 0) return INSDG_GPU_OK;
    if (!R->DrT || !R->DsT || !u || !v || !divu) return INSDG_GPU_EBADARG;
    gpuStream_t s = (gpuStream_t)stream;
    return dispatch_n(R->N, [&](auto n) {
        return launch_divergence_volume<decltype(n)::value>(R, B, u, v, divu, s);
    });
}

extern "C" int insdg_gpu_divergence_surface(const insdg_gpu_ref *R, const insdg_gpu_block *B,
                                            const signed char *bc, const insdg_gpu_vec_in *U, double *divu,
                                            void *stream)
{
    int rc = check_element_args(R, B);
    if (rc != INSDG_GPU_OK) return rc;
    if (B->K == 0) return INSDG_GPU_OK;
    if (!R->LIFTT || !R->face_nodes || !bc || !U || !U->u || !U->v || !divu || !halo_ok(B, U->u_halo) ||
        !halo_ok(B, U->v_halo))
        return INSDG_GPU_EBADARG;
    gpuStream_t s = (gpuStream_t)stream;
    return dispatch_n(R->N, [&](auto n) {
        return launch_divergence_surface<decltype(n)::value>(R, B, bc, U, divu, s);
    });
}

extern "C" int insdg_gpu_divergence(const insdg_gpu_ref *R, const insdg_gpu_block *B, const signed char *bc,
                                    const insdg_gpu_vec_in *U, double *divu, void *stream)
{
    if (!U) return INSDG_GPU_EBADARG;
    const int rc = insdg_gpu_divergence_volume(R, B, U->u, U->v, divu, stream);
    if (rc != INSDG_GPU_OK) return rc;
    return insdg_gpu_divergence_surface(R, B, bc, U, divu, stream);
}
