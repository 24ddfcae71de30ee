// sipdg.cu -- the SIPDG operator of Karakus et al. §5 ("SIPDG Kernel", eq. ellipticOp3),
// the CPU reference being sipdg in src/ops_kernels.inc (insdg_op_sipdg_data), step for
// step and in the same summation order:
//   1. jumps [u], [ux], [uy] at the 3Nfp face nodes (interior, Dirichlet, Neumann);
//      liftx, lifty = Fscale/2 n [u]
//   2. Lx, Ly = LIFT (liftx, lifty);  qr, qs = -(G (grad u + L))
//   3. w = lambda u + Dr qr + Ds qs;  s = -Fscale (n.[grad u]/2 + tau [u] - n.L-)
//   4. w += LIFT s
//   5. Au = J M w
// T = max(Np, 3Nfp) threads per element: steps 1 and the s of step 3 by face node,
// the products by volume node. Versions:
//   0  Kernel 0: one element per block; every thread recomputes the jumps it needs from
//      global memory (in step 2 all of them, in step 3 its own); loops not unrolled;
//   1  Kernels 1+2: each face node's jumps computed once (one global read of each
//      trace), kept in registers and shared memory; loops unrolled;
//   2  Kernel 3: several elements per block (about 256 threads);
//   3  Kernel 4: several elements per block and P elements per thread, so that each
//      loaded entry of LIFT, Dr, Ds, M serves P elements; elements per block and per
//      thread chosen per N (TUNED, a launch candidate of gpu_common.cuh).

#include "gpu_common.cuh"

namespace insdg_gpu {
namespace {

struct SipdgArgs {
    int K;
    double lambda;
    const double *vgeo, *sgeo;
    const int *mapP, *fn;
    const double *DrT, *DsT, *LIFTT, *M;
    const signed char *bc;
    const double *g;
    const double *u, *ux, *uy, *u_halo, *ux_halo, *uy_halo;
    double *Au;
};

struct Jump {
    double du, dux, duy;
};

// Jumps at face node n of element e (ops_kernels.inc, step 1).
template <int N>
__device__ __forceinline__ Jump sipdg_jump(const SipdgArgs &a, size_t e, int n)
{
    constexpr int NP = Dim<N>::NP, NFP = Dim<N>::NFP, NFACE = Dim<N>::NFACE;
    const int f = n / NFP;
    const double *sg = a.sgeo + (e * 3 + f) * NSGEO;
    const int code = a.bc[3 * e + f];
    const size_t KNP = (size_t)a.K * NP, gi = e * NFACE + n;
    const size_t idM = e * NP + a.fn[n], idP = (size_t)a.mapP[gi];
    const double uM = a.u[idM], uxM = a.ux[idM], uyM = a.uy[idM];
    Jump j;
    if (code == BC_INTERIOR) {
        j.du = ext(a.u, a.u_halo, KNP, idP) - uM;
        j.dux = ext(a.ux, a.ux_halo, KNP, idP) - uxM;
        j.duy = ext(a.uy, a.uy_halo, KNP, idP) - uyM;
    } else if (code == BC_DIRICHLET) {  // u+ = 2g - u-, grad u+ = grad u-
        j.du = 2.0 * ((a.g ? a.g[gi] : 0.0) - uM), j.dux = 0.0, j.duy = 0.0;
    } else {  // u+ = u-, grad u+ = -grad u- + 2 h n
        const double h2 = a.g ? 2.0 * a.g[gi] : 0.0;
        j.du = 0.0, j.dux = -2.0 * uxM + h2 * sg[NX], j.duy = -2.0 * uyM + h2 * sg[NY];
    }
    return j;
}

template <int N>
__device__ __forceinline__ double surface_s(const double *sg, const Jump &j, double LxM, double LyM)
{
    return -sg[FSCALE] * (0.5 * (sg[NX] * j.dux + sg[NY] * j.duy) + sg[TAU] * j.du - (sg[NX] * LxM + sg[NY] * LyM));
}

template <int N>
struct SipdgConfig {
    static constexpr int NP = Dim<N>::NP, NFACE = Dim<N>::NFACE, T = cmax(NP, NFACE);
    static constexpr int G2 = (256 + T - 1) / T;
    // shared doubles per element of the blocked kernel: lx(=s), ly, Lx, Ly, qr(=w), qs
    static constexpr int SHARED = 2 * NFACE + 4 * NP;
};
// version 3: the launch candidate of each degree (gpu_common.cuh)
constexpr int TUNED[INSDG_GPU_NMAX + 1] = {0, 2, 2, 5, 7, 7, 7, 8, 7, 7, 9};

template <int N, int C>
struct SipdgCand {
    static constexpr int G = cand_groups(C, SipdgConfig<N>::T), P = CAND_P[C];
    static constexpr size_t SHARED = sizeof(double) * SipdgConfig<N>::SHARED * G * P;
    static constexpr bool FITS = SHARED <= SHARED_LIMIT && G * SipdgConfig<N>::T <= 1024 && CAND_R[C] == 1;
};

// ---- version 0 -------------------------------------------------------------------------
template <int N>
__global__ void __launch_bounds__(SipdgConfig<N>::T) sipdg_v0(SipdgArgs a)
{
    constexpr int NP = Dim<N>::NP, NFP = Dim<N>::NFP, NFACE = Dim<N>::NFACE;
    __shared__ double s_Lx[NP], s_Ly[NP], s_qr[NP], s_qs[NP], s_s[NFACE], s_w[NP];
    const size_t e = blockIdx.x;
    const int t = threadIdx.x;
    if (e >= (size_t)a.K) return;  // the whole block
    const size_t e0 = e * NP;
    const double *vg = a.vgeo + e * NVGEO;
    if (t < NP) {
        double Lx = 0.0, Ly = 0.0;
#pragma unroll 1
        for (int m = 0; m < NFACE; ++m) {
            const double *sg = a.sgeo + (e * 3 + m / NFP) * NSGEO;
            const Jump j = sipdg_jump<N>(a, e, m);
            const double liftx = 0.5 * sg[FSCALE] * sg[NX] * j.du, lifty = 0.5 * sg[FSCALE] * sg[NY] * j.du;
            Lx += a.LIFTT[m * NP + t] * liftx;
            Ly += a.LIFTT[m * NP + t] * lifty;
        }
        s_Lx[t] = Lx, s_Ly[t] = Ly;
        const double qx = a.ux[e0 + t] + Lx, qy = a.uy[e0 + t] + Ly;
        s_qr[t] = -(vg[RX] * qx + vg[RY] * qy);
        s_qs[t] = -(vg[SX] * qx + vg[SY] * qy);
    }
    __syncthreads();
    double w = 0.0;
    if (t < NP) {
        w = a.lambda * a.u[e0 + t];
#pragma unroll 1
        for (int j = 0; j < NP; ++j) w += a.DrT[j * NP + t] * s_qr[j];
#pragma unroll 1
        for (int j = 0; j < NP; ++j) w += a.DsT[j * NP + t] * s_qs[j];
    }
    if (t < NFACE) {
        const double *sg = a.sgeo + (e * 3 + t / NFP) * NSGEO;
        const Jump j = sipdg_jump<N>(a, e, t);
        const int fm = a.fn[t];
        s_s[t] = surface_s<N>(sg, j, s_Lx[fm], s_Ly[fm]);
    }
    __syncthreads();
    if (t < NP) {
#pragma unroll 1
        for (int m = 0; m < NFACE; ++m) w += a.LIFTT[m * NP + t] * s_s[m];
        s_w[t] = w;
    }
    __syncthreads();
    if (t < NP) {
        double out = 0.0;
#pragma unroll 1
        for (int j = 0; j < NP; ++j) out += a.M[j * NP + t] * s_w[j];
        a.Au[e0 + t] = vg[JAC] * out;
    }
}

// ---- versions 1..3: G groups of T threads, P elements per thread ----------------------
// Group g handles the block's elements p*G + g, p < P.
template <int N, int G, int P>
__global__ void __launch_bounds__(G * SipdgConfig<N>::T) sipdg_blocked(SipdgArgs a)
{
    constexpr int NP = Dim<N>::NP, NFP = Dim<N>::NFP, NFACE = Dim<N>::NFACE;
    constexpr int T = SipdgConfig<N>::T, NE = G * P;
    __shared__ double s_lx[NE][NFACE], s_ly[NE][NFACE];  // s_lx becomes s (step 3)
    __shared__ double s_Lx[NE][NP], s_Ly[NE][NP], s_qr[NE][NP], s_qs[NE][NP];  // s_qr becomes w (step 4)
    double(*s_s)[NFACE] = s_lx;
    double(*s_w)[NP] = s_qr;

    const int g = threadIdx.x / T, n = threadIdx.x - g * T;  // n: face node (step 1) or volume node
    const size_t e_first = (size_t)blockIdx.x * NE;
    size_t e[P];
    bool valid[P];
#pragma unroll
    for (int p = 0; p < P; ++p) e[p] = e_first + p * G + g, valid[p] = e[p] < (size_t)a.K;

    // 1. jumps, once per face node
    Jump jmp[P];
#pragma unroll
    for (int p = 0; p < P; ++p) jmp[p].du = jmp[p].dux = jmp[p].duy = 0.0;
    if (n < NFACE) {
#pragma unroll
        for (int p = 0; p < P; ++p) {
            const int el = p * G + g;
            double lx = 0.0, ly = 0.0;
            if (valid[p]) {
                const double *sg = a.sgeo + (e[p] * 3 + n / NFP) * NSGEO;
                jmp[p] = sipdg_jump<N>(a, e[p], n);
                lx = 0.5 * sg[FSCALE] * sg[NX] * jmp[p].du;
                ly = 0.5 * sg[FSCALE] * sg[NY] * jmp[p].du;
            }
            s_lx[el][n] = lx, s_ly[el][n] = ly;
        }
    }
    __syncthreads();
    // 2. L = LIFT (lx, ly); q = -(G (grad u + L))
    if (n < NP) {
        double Lx[P], Ly[P];
#pragma unroll
        for (int p = 0; p < P; ++p) Lx[p] = 0.0, Ly[p] = 0.0;
#pragma unroll
        for (int m = 0; m < NFACE; ++m) {
            const double L = a.LIFTT[m * NP + n];
#pragma unroll
            for (int p = 0; p < P; ++p) {
                Lx[p] += L * s_lx[p * G + g][m];
                Ly[p] += L * s_ly[p * G + g][m];
            }
        }
#pragma unroll
        for (int p = 0; p < P; ++p) {
            const int el = p * G + g;
            s_Lx[el][n] = Lx[p], s_Ly[el][n] = Ly[p];
            double qr = 0.0, qs = 0.0;
            if (valid[p]) {
                const double *vg = a.vgeo + e[p] * NVGEO;
                const size_t id = e[p] * NP + n;
                const double qx = a.ux[id] + Lx[p], qy = a.uy[id] + Ly[p];
                qr = -(vg[RX] * qx + vg[RY] * qy);
                qs = -(vg[SX] * qx + vg[SY] * qy);
            }
            s_qr[el][n] = qr, s_qs[el][n] = qs;
        }
    }
    __syncthreads();
    // 3. w = lambda u + Dr qr + Ds qs;  s at the face nodes
    double w[P];
#pragma unroll
    for (int p = 0; p < P; ++p) w[p] = 0.0;
    if (n < NP) {
#pragma unroll
        for (int p = 0; p < P; ++p) w[p] = valid[p] ? a.lambda * a.u[e[p] * NP + n] : 0.0;
#pragma unroll
        for (int j = 0; j < NP; ++j) {
            const double d = a.DrT[j * NP + n];
#pragma unroll
            for (int p = 0; p < P; ++p) w[p] += d * s_qr[p * G + g][j];
        }
#pragma unroll
        for (int j = 0; j < NP; ++j) {
            const double d = a.DsT[j * NP + n];
#pragma unroll
            for (int p = 0; p < P; ++p) w[p] += d * s_qs[p * G + g][j];
        }
    }
    if (n < NFACE) {
        const int fm = a.fn[n];
#pragma unroll
        for (int p = 0; p < P; ++p) {
            const int el = p * G + g;
            double s = 0.0;
            if (valid[p]) {
                const double *sg = a.sgeo + (e[p] * 3 + n / NFP) * NSGEO;
                s = surface_s<N>(sg, jmp[p], s_Lx[el][fm], s_Ly[el][fm]);
            }
            s_s[el][n] = s;
        }
    }
    __syncthreads();
    // 4. w += LIFT s
    if (n < NP) {
#pragma unroll
        for (int m = 0; m < NFACE; ++m) {
            const double L = a.LIFTT[m * NP + n];
#pragma unroll
            for (int p = 0; p < P; ++p) w[p] += L * s_s[p * G + g][m];
        }
#pragma unroll
        for (int p = 0; p < P; ++p) s_w[p * G + g][n] = w[p];
    }
    __syncthreads();
    // 5. Au = J M w
    if (n < NP) {
        double out[P];
#pragma unroll
        for (int p = 0; p < P; ++p) out[p] = 0.0;
#pragma unroll
        for (int j = 0; j < NP; ++j) {
            const double Mv = a.M[j * NP + n];
#pragma unroll
            for (int p = 0; p < P; ++p) out[p] += Mv * s_w[p * G + g][j];
        }
#pragma unroll
        for (int p = 0; p < P; ++p)
            if (valid[p]) a.Au[e[p] * NP + n] = a.vgeo[e[p] * NVGEO + JAC] * out[p];
    }
}

template <int N, int G, int P>
int launch_blocked(const SipdgArgs &a, gpuStream_t s)
{
    sipdg_blocked<N, G, P><<<nblocks_for((size_t)a.K, G * P), G * SipdgConfig<N>::T, 0, s>>>(a);
    return launch_status();
}

template <int N>
int launch(int version, const SipdgArgs &a, gpuStream_t s)
{
    using C = SipdgConfig<N>;
    switch (version) {
    case 0:
        sipdg_v0<N><<<a.K, C::T, 0, s>>>(a);
        return launch_status();
    case 1: return launch_blocked<N, 1, 1>(a, s);
    case 2: return launch_blocked<N, C::G2, 1>(a, s);
    case 3:
        return dispatch_candidate<TUNED[N]>(selected_candidate(INSDG_GPU_KERNEL_SIPDG), [&](auto c) {
            using Q = SipdgCand<N, decltype(c)::value>;
            if constexpr (!Q::FITS) return INSDG_GPU_EBADVERSION;
            else return launch_blocked<N, Q::G, Q::P>(a, s);
        });
    default: return INSDG_GPU_EBADVERSION;
    }
}

template <int N>
int info(int version, insdg_gpu_launch *out)
{
    using C = SipdgConfig<N>;
    constexpr int NP = Dim<N>::NP, NFACE = Dim<N>::NFACE;
    switch (version) {
    case 0: set_launch(out, C::T, 1, 1, sizeof(double) * (5 * NP + NFACE)); break;
    case 1: set_launch(out, C::T, 1, 1, sizeof(double) * C::SHARED); break;
    case 2: set_launch(out, C::G2 * C::T, C::G2, 1, sizeof(double) * C::SHARED * C::G2); break;
    case 3:
        return dispatch_candidate<TUNED[N]>(selected_candidate(INSDG_GPU_KERNEL_SIPDG), [&](auto c) {
            using Q = SipdgCand<N, decltype(c)::value>;
            if constexpr (!Q::FITS) return INSDG_GPU_EBADVERSION;
            set_launch(out, Q::G * C::T, Q::G * Q::P, Q::P, Q::SHARED);
            return INSDG_GPU_OK;
        });
    default: return INSDG_GPU_EBADVERSION;
    }
    return INSDG_GPU_OK;
}

} // namespace

int launch_info_sipdg(int N, int version, insdg_gpu_launch *out)
{
    const int v = resolve_version(version);
    if (v < 0) return INSDG_GPU_EBADVERSION;
    return dispatch_n(N, [&](auto n) { return info<decltype(n)::value>(v, out); });
}

} // namespace insdg_gpu

using namespace insdg_gpu;

extern "C" int insdg_gpu_sipdg(const insdg_gpu_ref *R, const insdg_gpu_block *B, int version,
                               const signed char *bc, const double *g, double lambda, const double *u,
                               const double *ux, const double *uy, const double *u_halo, const double *ux_halo,
                               const double *uy_halo, double *Au, void *stream)
{
    int rc = check_element_args(R, B);
    if (rc != INSDG_GPU_OK) return rc;
    const int v = resolve_version(version);
    if (v < 0) return INSDG_GPU_EBADVERSION;
    if (B->K == 0) return INSDG_GPU_OK;
    if (!R->DrT || !R->DsT || !R->LIFTT || !R->M || !R->face_nodes || !bc || !u || !ux || !uy || !Au)
        return INSDG_GPU_EBADARG;
    if (B->nhalo > 0 && (!u_halo || !ux_halo || !uy_halo)) return INSDG_GPU_EBADARG;
    const SipdgArgs a = {B->K,   lambda, B->vgeo, B->sgeo, B->mapP, R->face_nodes, R->DrT, R->DsT, R->LIFTT,
                         R->M,   bc,     g,       u,       ux,      uy,            u_halo, ux_halo, uy_halo,
                         Au};
    gpuStream_t s = (gpuStream_t)stream;
    rc = dispatch_n(R->N, [&](auto n) { return launch<decltype(n)::value>(v, a, s); });
    CurvedArgs c = {CURVED_SIPDG, 0, bc, lambda, {u, ux, uy}, {u_halo, ux_halo, uy_halo}, {g}, {Au}, nullptr};
    return rc == INSDG_GPU_OK ? curved_launch(B, c, s) : rc;
}
