// gpu_common.cuh -- shared by insdg's kernel sources (CUDA and HIP through gpu_port.h):
// compile-time element sizes per degree, the layouts of src/mesh.h and src/block.h,
// dispatch from a run-time N to a template, and launch helpers. Internal: not part of
// the C interface (insdg_gpu.h).
#ifndef INSDG_GPU_COMMON_CUH
#define INSDG_GPU_COMMON_CUH

#include <stddef.h>

#include <type_traits>
#include <utility>

#include "gpu_port.h"
#include "insdg_gpu.h"

namespace insdg_gpu {


// Sizes of the degree-N triangle (src/ref_tri.h, src/ops_kernels.inc).
template <int N_>
struct Dim {
    static constexpr int N = N_;
    static constexpr int NP = (N + 1) * (N + 2) / 2;  // nodes
    static constexpr int NFP = N + 1;                 // nodes per face
    static constexpr int NFACE = 3 * NFP;             // face nodes of an element
    static constexpr int NQ = (3 * N + 2) / 2;        // Gauss points per direction
    static constexpr int NCUB = NQ * NQ;              // volume cubature points
    static constexpr int NFC = NQ;                    // face cubature points per face
    static constexpr int NFCUB = 3 * NFC;             // face cubature points of an element
};

constexpr int cmax(int a, int b) { return a > b ? a : b; }
constexpr int cmin(int a, int b) { return a < b ? a : b; }

// src/mesh.h: vgeo[e][5] = rx, sx, ry, sy, J; sgeo[e][f][5] = nx, ny, sJ, sJ/J, tau
enum { RX = 0, SX = 1, RY = 2, SY = 3, JAC = 4, NVGEO = 5 };
enum { NX = 0, NY = 1, SJ = 2, FSCALE = 3, TAU = 4, NSGEO = 5 };
// src/block.h
enum { BC_INTERIOR = 0, BC_DIRICHLET = 1, BC_NEUMANN = 2 };

// Exterior trace: inside the block or in the halo (EXT of ops_kernels.inc).
__device__ __forceinline__ double ext(const double *__restrict__ a, const double *__restrict__ halo, size_t knp,
                                      size_t idx)
{
    return idx < knp ? a[idx] : halo[idx - knp];
}

// (u* - u-) * 2 under the central flux (central_jump2 of ops_kernels.inc).
__device__ __forceinline__ double central_jump2(int code, double uM, double uP, const double *__restrict__ g,
                                                size_t gi)
{
    if (code == BC_INTERIOR) return uP - uM;
    if (code == BC_DIRICHLET) return 2.0 * ((g ? g[gi] : 0.0) - uM);
    return 0.0;
}

// Run-time v in LO .. LO+COUNT-1 -> f(std::integral_constant<int, v>{}); `miss` otherwise.
template <int LO, class F, int... I>
int dispatch_seq(int v, int miss, F &&f, std::integer_sequence<int, I...>)
{
    int rc = miss;
    (void)((v == LO + I ? (rc = f(std::integral_constant<int, LO + I>{}), true) : false) || ...);
    return rc;
}
template <int LO, int COUNT, class F>
int dispatch_range(int v, int miss, F &&f)
{
    return dispatch_seq<LO>(v, miss, f, std::make_integer_sequence<int, COUNT>{});
}

// Run-time degree -> compile-time degree: f(std::integral_constant<int, N>{}).
template <class F>
int dispatch_n(int N, F &&f)
{
    return dispatch_range<1, INSDG_GPU_NMAX>(N, INSDG_GPU_EBADN, f);
}

// ---- launch candidates: the per-N choice of elements per block and per thread -------------
// A candidate c is (threads per block aimed at CAND_TB[c], elements per thread CAND_P[c],
// nodes per thread CAND_R[c]): a kernel of T threads per element runs G = ceil(CAND_TB/T)
// groups of T threads, each group handling P elements, so G*P elements per block. With R
// nodes per thread (the kernels whose threads each own output nodes of an element: local
// gradient, mass, inverse mass) an element takes T = ceil(Np/R) threads and thread i its
// nodes i, i+T, ...: each value read from shared memory then serves R*P multiply-adds
// and each matrix entry P, where R = 1 leaves one shared load per P of them (the L1/TEX
// bound of docs/performance.md "GPU"). The other kernels compile R = 1 candidates only.
// Each tunable kernel has a table TUNED[N] of the candidate it uses at degree N (chosen on a GPU by bench_gpu --sweep,
// docs/performance.md "GPU"). A normal build compiles only the tuned candidate of each N;
// -DINSDG_GPU_TUNING=ON compiles them all, so that bench_gpu and test_gpu can run any of
// them through insdg_gpu_select_candidate().
//
// Candidates 16..22 are of another kind, CAND_MMA: the element products on the FP64
// tensor cores (mma_m8n8k4 below), CAND_TB/32 warps per block, each warp CAND_P tiles of 8
// elements (local gradient, mass, inverse mass; CUDA only), in one of two loop orders.
// Their CAND_R is 0, so the kernels that take R = 1 candidates only never compile them.
constexpr int NCAND = INSDG_GPU_NCANDIDATES;
constexpr int CAND_TB[NCAND] = {64, 128, 256, 512, 64, 128, 256, 64, 128, 256, 64, 128, 64, 128, 256, 128,
                                64, 64, 128, 128, 64, 128, 256};
constexpr int CAND_P[NCAND] = {1, 1, 1, 1, 2, 2, 2, 4, 4, 4, 2, 2, 4, 4, 4, 4, 2, 4, 1, 2, 1, 1, 1};
constexpr int CAND_R[NCAND] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 3, 0, 0, 0, 0, 0, 0, 0};
// 0: not MMA; 1: row tile by row tile (the operator's fragments of a row tile in registers
// for the warp's tiles); 2: all row tiles at once, k-tile by k-tile (mma_all_rows)
constexpr int CAND_MMA[NCAND] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2};
constexpr int cand_groups(int c, int T) { return cmax(1, (CAND_TB[c] + T - 1) / T); }
// threads per element with R nodes per thread
__host__ __device__ constexpr int node_threads(int NP, int R) { return (NP + R - 1) / R; }
// the nodes per thread of a candidate for the kernels that have R (1 for an MMA candidate)
constexpr int cand_nodes(int c) { return cmax(1, CAND_R[c]); }
// the operator column of each node thread i owns (i, i + T, ...); a node past NP reads
// node NP-1's column: it is computed and never stored
template <int NP, int R>
__device__ __forceinline__ void node_columns(int i, int col[R])
{
    constexpr int T = node_threads(NP, R);
#pragma unroll
    for (int r = 0; r < R; ++r) col[r] = i + r * T < NP ? i + r * T : NP - 1;
}
constexpr int SHARED_LIMIT = 48 * 1024;  // static shared memory of one block

// ---- element products on the FP64 tensor cores --------------------------------------------
// mma.m8n8k4.f64 (sm_80 and later): a warp computes D = A B + C, A 8x4, B 4x8, C and D 8x8,
// lane l holding a = A[l/4][l%4], b = B[l%4][l/4] and (c0, c1) = C[l/4][2(l%4) + {0, 1}].
// An element product y[e][i] = sum_j A[i][j] u[e][j] of 8 elements is then MT x KT such
// products (MmaShape): row tile mt holds nodes i = 8 mt + l/4, k-tile kt nodes
// j = 4 kt + l%4, and the B operand is u of element l/4 of the tile at node j. The
// operator past NP is zero, so padded rows and columns contribute nothing; the sum over j
// is the tensor core's (four products per step, in its own rounding) rather than the CPU's
// one-by-one order: results agree with the CPU kernels to round-off, not bitwise.
#if defined(__HIPCC__)
constexpr bool HAS_MMA = false;  // AMD's matrix cores have other shapes: no MMA candidates
#else
constexpr bool HAS_MMA = true;   // CUDA (sm_80, sm_90) and the CPU emulation
#endif

__device__ __forceinline__ void mma_m8n8k4(double &c0, double &c1, double a, double b)
{
#if defined(INSDG_GPU_EMULATE)
    insdg_emu::mma_m8n8k4(c0, c1, a, b);
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    // .aligned: every lane of the warp must execute this instruction together. The
    // compiler sees inline asm as an ordinary instruction that it may move next to the
    // divergent stores around it, so the warp meets first and the asm stays in place
    // (volatile, as CUTLASS keeps its mma asm).
    __syncwarp();
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};"
        : "+d"(c0), "+d"(c1)
        : "d"(a), "d"(b));
#elif defined(__CUDA_ARCH__)
    (void)c0, (void)c1, (void)a, (void)b;
    __trap();  // not compiled for: the builds target sm_80 and sm_90
#else
    (void)c0, (void)c1, (void)a, (void)b;
#endif
}

// Tiles of an NP x NP operator, and the shared-memory stride S of one element's values:
// S >= 4 KT and S = 4 (mod 8), so that the B loads of a half-warp (4 elements, 4
// consecutive nodes each) fall in 16 different 8-byte banks.
template <int NP>
struct MmaShape {
    static constexpr int MT = (NP + 7) / 8, KT = (NP + 3) / 4;
    static constexpr int S = (4 * KT) % 8 == 4 ? 4 * KT : 4 * KT + 4;
};

// Stage NE elements' NP values (elements from e_first; zeros past element K) into s[NE][S],
// by the NT threads of the block; the caller synchronises.
template <int NT, int NP, int S>
__device__ __forceinline__ void stage_strided(const double *__restrict__ src, size_t e_first, int K, int NE,
                                              double *s)
{
    const size_t base = e_first * NP, total = (size_t)K * NP;
    for (int k = threadIdx.x; k < NE * NP; k += NT) {
        const int el = k / NP, j = k - el * NP;
        s[el * S + j] = base + k < total ? src[base + k] : 0.0;
    }
}

// The launch of candidate C for an element kernel of NP nodes whose threads own output
// nodes (NODES: the local gradient, mass and inverse mass, which also take the R > 1 and
// the MMA candidates; otherwise R = 1 candidates only): threads and elements per block,
// elements per thread (launch info) and static shared memory.
template <int NP_, int C, bool NODES>
struct NodeCand {
    static constexpr int NP = NP_, MMA = CAND_MMA[C];
    static constexpr int R = cand_nodes(C), T = node_threads(NP, R), G = cand_groups(C, T), P = CAND_P[C];
    static constexpr int W = CAND_TB[C] / 32;  // an MMA candidate: warps, P tiles of 8 elements each
    static constexpr int THREADS = MMA ? 32 * W : G * T, NE = MMA ? 8 * W * P : G * P, EPT = MMA ? 2 * P : P;
    static constexpr size_t SHARED = sizeof(double) * NE * (MMA ? MmaShape<NP>::S : NP);
    static constexpr bool FITS =
        SHARED <= SHARED_LIMIT && THREADS <= 1024 && (NODES ? !MMA || HAS_MMA : CAND_R[C] == 1);
};

// Operator fragment (A of mma_m8n8k4) of row tile mt and k-tile kt for this lane, from
// AT[j*NP + i] = A[i][j]; zero past NP (mt, kt: indices of unrolled loops).
template <int NP>
__device__ __forceinline__ double mma_a(const double *__restrict__ AT, int mt, int kt, int lane)
{
    const int i = 8 * mt + (lane >> 2), j = 4 * kt + (lane & 3);
    return i < NP && j < NP ? AT[j * NP + i] : 0.0;
}

// All row tiles of NOP operators for one tile of 8 elements, k-tile by k-tile: the
// NOP*MT products of a k-tile are independent (the tensor core's latency overlaps) and
// share one B fragment; the operators' fragments are loaded as used (L1). s_row: the
// values of this lane's element l/4 (stride-S staging); c[o][mt]: this lane's two values
// of row tile mt. The sum over k-tiles is in the same order as the row-tile-by-row-tile
// kernels, so both give the same bits.
template <int NP, int NOP>
__device__ __forceinline__ void mma_all_rows(const double *const (&AT)[NOP], const double *s_row, int lane,
                                             double (&c)[NOP][(NP + 7) / 8][2])
{
    constexpr int MT = (NP + 7) / 8, KT = (NP + 3) / 4;
#pragma unroll
    for (int o = 0; o < NOP; ++o)
#pragma unroll
        for (int mt = 0; mt < MT; ++mt) c[o][mt][0] = c[o][mt][1] = 0.0;
#pragma unroll
    for (int kt = 0; kt < KT; ++kt) {
        const int j = 4 * kt + (lane & 3);
        const double b = j < NP ? s_row[j] : 0.0;
#pragma unroll
        for (int mt = 0; mt < MT; ++mt)
#pragma unroll
            for (int o = 0; o < NOP; ++o) mma_m8n8k4(c[o][mt][0], c[o][mt][1], mma_a<NP>(AT[o], mt, kt, lane), b);
    }
}


// The candidate selected for a kernel (INSDG_GPU_KERNEL_*): -1 = its TUNED[N].
int selected_candidate(int kernel);

// f(std::integral_constant<int, C>{}) for candidate c (c < 0: TUNED); EBADVERSION for a
// candidate this build does not compile.
template <int TUNED, class F>
int dispatch_candidate(int c, F &&f)
{
    static_assert(TUNED >= 0 && TUNED < NCAND, "TUNED names a candidate");
    if (c < 0) c = TUNED;
#if defined(INSDG_GPU_TUNING) && INSDG_GPU_TUNING
    return dispatch_range<0, NCAND>(c, INSDG_GPU_EBADVERSION, f);
#else
    return c == TUNED ? f(std::integral_constant<int, TUNED>{}) : INSDG_GPU_EBADVERSION;
#endif
}

// Stage n consecutive doubles src[base ..] into s (zeros from `total` on), by the NT
// threads of the block; the caller synchronises.
template <int NT>
__device__ __forceinline__ void stage_doubles(const double *__restrict__ src, size_t base, size_t total, int n,
                                              double *s)
{
    for (int k = threadIdx.x; k < n; k += NT) s[k] = base + k < total ? src[base + k] : 0.0;
}

// After a launch: a configuration or launch error becomes INSDG_GPU_ELAUNCH.
inline int launch_status()
{
    return gpuGetLastError() == gpuSuccess ? INSDG_GPU_OK : INSDG_GPU_ELAUNCH;
}

inline int nblocks_for(size_t items, int per_block)
{
    return (int)((items + (size_t)per_block - 1) / (size_t)per_block);
}

// Common argument checks of the element operators.
inline int check_element_args(const insdg_gpu_ref *R, const insdg_gpu_block *B)
{
    if (!R || !B) return INSDG_GPU_EBADARG;
    if (R->N < 1 || R->N > INSDG_GPU_NMAX || B->N != R->N) return INSDG_GPU_EBADN;
    if (B->K < 0) return INSDG_GPU_EBADARG;
    if (B->K > 0 && (!B->vgeo || !B->sgeo || !B->mapP)) return INSDG_GPU_EBADARG;
    return INSDG_GPU_OK;
}

inline int resolve_version(int version)
{
    if (version == INSDG_GPU_VERSION_DEFAULT) return INSDG_GPU_NVERSIONS - 1;
    return (version >= 0 && version < INSDG_GPU_NVERSIONS) ? version : -1;
}

inline void set_launch(insdg_gpu_launch *out, int threads, int epb, int ept, size_t shared)
{
    out->threads = threads;
    out->elements_per_block = epb;
    out->elements_per_thread = ept;
    out->shared_bytes = (int)shared;
}

// ---- curved elements (cuda/curved.cu): one thread per curved element of a block ----------
enum CurvedOp {
    CURVED_SAVE,   // work = the curved elements' out[0], out[1] (before an affine surface kernel)
    CURVED_LOCAL_GRADIENT, CURVED_GRADIENT, CURVED_GRADIENT_SURFACE,
    CURVED_DIVERGENCE_VOLUME, CURVED_DIVERGENCE, CURVED_DIVERGENCE_SURFACE,
    CURVED_SIPDG,
    CURVED_ADV_VOLUME, CURVED_ADVECTION, CURVED_ADV_SURFACE,
    CURVED_MASS, CURVED_INVERSE_MASS
};
struct CurvedArgs {
    int op;
    int restore;            // a surface operator: out = work (saved) + the curved surface term
    const signed char *bc;
    double scalar;          // lambda (SIPDG), the dissipation factor (advection), alpha (mass)
    const double *in[4], *halo[4], *g[4];   // as the operator's CPU arguments, the pairs as (in[0], in[1]), (in[2], in[3])
    double *out[2];
    double *work;           // 2 n Np doubles (insdg_gpu_curved_work_doubles)
};
// The curved kernel of a.op on B's curved elements (nothing when B has none).
int curved_launch(const insdg_gpu_block *B, CurvedArgs a, gpuStream_t s);
// A surface operator that adds to out[0], out[1]: save the curved elements' outputs,
// run the affine kernel (affine()), then out = saved + the curved term.
template <class F>
int curved_surface(const insdg_gpu_block *B, CurvedArgs a, double *work, gpuStream_t s, F &&affine)
{
    if (!B->curved) return affine();
    if (!work) return INSDG_GPU_EBADARG;
    CurvedArgs save = a;
    save.op = CURVED_SAVE, save.work = work;
    int rc = curved_launch(B, save, s);
    if (rc == INSDG_GPU_OK) rc = affine();
    a.work = work, a.restore = 1;
    return rc == INSDG_GPU_OK ? curved_launch(B, a, s) : rc;
}
// A failed runtime call (err) or host allocation (err = gpuSuccess): keep "what: message"
// for insdg_gpu_last_error(); returns INSDG_GPU_ERUNTIME (gpu_runtime.cu).
int runtime_failure(gpuError_t err, const char *what);
// The device copy of block b's curved elements (NULL when it has none), its face map and
// affine face factors those of the block's device copy; and its release.
int curved_upload(const struct insdg_block *b, const double *d_sgeo, const int *d_mapP, insdg_gpu_curved **out);
void curved_free(insdg_gpu_curved *cv);

// Launch information of each kernel family (defined beside the kernels).
int launch_info_local_gradient(int N, int version, insdg_gpu_launch *out);
int launch_info_sipdg(int N, int version, insdg_gpu_launch *out);
int launch_info_adv_volume(int N, int version, insdg_gpu_launch *out);
int launch_info_adv_surface(int N, int version, insdg_gpu_launch *out);
int launch_info_grad_div(int kernel, int N, insdg_gpu_launch *out);
int launch_info_mass(int N, insdg_gpu_launch *out);
int launch_info_transfer(int kernel, int N, insdg_gpu_launch *out);

} // namespace insdg_gpu

#endif // INSDG_GPU_COMMON_CUH
