// curved.cu -- the curved elements of a block on the GPU (src/curved.h): their geometry's
// upload with the block (insdg_gpu_block_create) and the kernels that overwrite or add what
// the curved geometry gives after the affine kernels, as src/ops_cpu.c does on the CPU.
//
// The element code is src/curved_elem.inc, the CPU path's own source, compiled here as
// device functions: one thread per curved element, run-time loops over the element's
// nodes. Curved elements are the boundary layer of a mesh (a few percent of it), so this
// simple shape is what they need; the affine fast path is untouched. The surface operators
// add to their output, so the launcher first saves the curved elements' outputs into the
// caller's work array (the affine surface kernel adds its straight-sided term to them),
// then the curved kernel writes saved + curved surface term.

#include "gpu_common.cuh"

#include <math.h>
#include <stdlib.h>
#include <string.h>

extern "C" {
#include "block.h"
#include "curved.h"
#include "curved_kernels.h"
#include "ref_tri.h"
}

namespace insdg_gpu {
namespace {

#define CE_FN static __device__
#define CE_NMAX INSDG_GPU_NMAX
#include "curved_elem.inc"

constexpr int kThreads = 64;

__global__ void __launch_bounds__(kThreads) curved_kernel(insdg_curved_ctx C, int n, const int *__restrict__ celem,
                                                          CurvedArgs a)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n) return;
    const int e = celem[k], Np = C.Np;
    const size_t e0 = (size_t)e * Np;
    double *o0 = a.out[0] ? a.out[0] + e0 : nullptr, *o1 = a.out[1] ? a.out[1] + e0 : nullptr;
    if (a.op == CURVED_SAVE) {   // work[k] = out0_e, work[n + k] = out1_e
        for (int i = 0; i < Np; ++i) {
            a.work[(size_t)k * Np + i] = o0[i];
            if (o1) a.work[((size_t)n + k) * Np + i] = o1[i];
        }
        return;
    }
    if (a.restore)   // a surface operator: out_e = saved (what was there before the affine term)
        for (int i = 0; i < Np; ++i) {
            o0[i] = a.work[(size_t)k * Np + i];
            if (o1) o1[i] = a.work[((size_t)n + k) * Np + i];
        }
    const insdg_curved_pair P0 = {a.in[0], a.in[1], a.halo[0], a.halo[1], a.g[0], a.g[1]};
    const insdg_curved_pair P1 = {a.in[2], a.in[3], a.halo[2], a.halo[3], a.g[2], a.g[3]};
    switch (a.op) {
    case CURVED_LOCAL_GRADIENT: ce_local_gradient(&C, k, a.in[0] + e0, o0, o1); break;
    case CURVED_GRADIENT: ce_local_gradient(&C, k, a.in[0] + e0, o0, o1); /* fall through */
    case CURVED_GRADIENT_SURFACE: ce_gradient_surface(&C, e, k, a.bc, a.g[0], a.in[0], a.halo[0], o0, o1); break;
    case CURVED_DIVERGENCE:
    case CURVED_DIVERGENCE_VOLUME:
        ce_divergence_volume(&C, k, a.in[0] + e0, a.in[1] + e0, o0);
        if (a.op == CURVED_DIVERGENCE) ce_divergence_surface(&C, e, k, a.bc, &P0, o0);
        break;
    case CURVED_DIVERGENCE_SURFACE: ce_divergence_surface(&C, e, k, a.bc, &P0, o0); break;
    case CURVED_SIPDG:
        ce_sipdg(&C, e, k, a.bc, a.g[0], a.scalar, a.in[0], a.in[1], a.in[2], a.halo[0], a.halo[1], a.halo[2], o0);
        break;
    case CURVED_ADVECTION:
    case CURVED_ADV_VOLUME:
        ce_adv_volume(&C, k, a.in[0] + e0, a.in[1] + e0, a.in[2] + e0, a.in[3] + e0, o0, o1);
        if (a.op == CURVED_ADVECTION) ce_adv_surface(&C, e, k, a.bc, a.scalar, &P0, &P1, o0, o1);
        break;
    case CURVED_ADV_SURFACE: ce_adv_surface(&C, e, k, a.bc, a.scalar, &P0, &P1, o0, o1); break;
    case CURVED_MASS: ce_mass(&C, k, a.scalar, a.in[0] + e0, o0); break;
    case CURVED_INVERSE_MASS: ce_inverse_mass_apply(&C, k, a.in[0] + e0, o0, 0); break;
    default: break;
    }
}

template <class T>
int upload_part(T **dst, const T *src, size_t count)
{
    *dst = nullptr;
    if (count == 0) return INSDG_GPU_OK;
    gpuError_t err = gpuMalloc((void **)dst, sizeof(T) * count);
    if (err != gpuSuccess) {
        *dst = nullptr;
        return runtime_failure(err, "gpuMalloc(curved geometry)");
    }
    err = gpuMemcpy(*dst, src, sizeof(T) * count, gpuMemcpyHostToDevice);
    return err == gpuSuccess ? INSDG_GPU_OK : runtime_failure(err, "gpuMemcpy(curved geometry, host to device)");
}

} // namespace
} // namespace insdg_gpu

// The device copy of a block's curved elements: the element operators' context with
// device pointers (the per-element arrays compact, k = 0..n-1 in block order) and the
// allocations behind it.
struct insdg_gpu_curved {
    insdg_curved_ctx ctx;
    int n;
    int *celem;
    double *arrays[13];
    int *face_nodes;
};

namespace insdg_gpu {

int curved_upload(const insdg_block *b, const double *d_sgeo, const int *d_mapP, insdg_gpu_curved **out)
{
    *out = nullptr;
    if (!b->ncurved) return INSDG_GPU_OK;
    const insdg_curved *c = b->curved;
    const insdg_ref *ref = c->ref;
    const int n = b->ncurved, Np = c->Np, Nfp = c->Nfp, Nc = c->Ncub, Nfc = c->Nfcub;
    insdg_gpu_curved *cv = (insdg_gpu_curved *)calloc(1, sizeof *cv);
    if (!cv) return runtime_failure(gpuSuccess, "out of host memory (curved geometry)");
    cv->n = n;
    *out = cv;
    // the block's curved elements in block order, their per-element arrays gathered
    int *celem = (int *)malloc(sizeof(int) * n);
    const size_t per[6] = {(size_t)Np * CV_NV, (size_t)3 * Nfp * CF_NF, (size_t)Nc * CC_NC, (size_t)3 * Nfc * CF_NF,
                           (size_t)Np * Np, (size_t)Np * Np};
    const double *src[6] = {c->vgeo, c->sgeo, c->cgeo, c->fcgeo, c->M, c->invM};
    double *gathered[6] = {nullptr};
    int rc = INSDG_GPU_OK;
    for (int a = 0; a < 6 && celem; ++a) gathered[a] = (double *)malloc(sizeof(double) * per[a] * n);
    for (int a = 0; a < 6; ++a)
        if (!celem || !gathered[a]) rc = runtime_failure(gpuSuccess, "out of host memory (curved geometry)");
    for (int e = 0, j = 0; e < b->K && rc == INSDG_GPU_OK; ++e) {
        const int k = b->cindex[e];
        if (k < 0) continue;
        celem[j] = e;
        for (int a = 0; a < 6; ++a) memcpy(gathered[a] + per[a] * j, src[a] + per[a] * k, sizeof(double) * per[a]);
        ++j;
    }
    if (rc == INSDG_GPU_OK) rc = upload_part(&cv->celem, (const int *)celem, (size_t)n);
    for (int a = 0; a < 6 && rc == INSDG_GPU_OK; ++a)
        rc = upload_part(&cv->arrays[a], (const double *)gathered[a], per[a] * n);
    // the reference data of degree N, row-major as the CPU reads it
    const double *refs[7] = {ref->Dr, ref->Ds, ref->cub_interp, ref->face_interp, c->Mf, c->cub_Dr, c->cub_Ds};
    const size_t nref[7] = {(size_t)Np * Np, (size_t)Np * Np, (size_t)Nc * Np, (size_t)Nfc * Nfp, (size_t)Nfp * Nfp,
                            (size_t)Nc * Np, (size_t)Nc * Np};
    for (int a = 0; a < 7 && rc == INSDG_GPU_OK; ++a) rc = upload_part(&cv->arrays[6 + a], refs[a], nref[a]);
    if (rc == INSDG_GPU_OK) rc = upload_part(&cv->face_nodes, (const int *)ref->face_nodes, (size_t)3 * Nfp);
    free(celem);
    for (int a = 0; a < 6; ++a) free(gathered[a]);
    insdg_curved_ctx &C = cv->ctx;
    double **A = cv->arrays;
    C.K = b->K, C.Np = Np, C.Nfp = Nfp, C.Ncub = Nc, C.Nfcub = Nfc;
    C.mapP = d_mapP, C.face_nodes = cv->face_nodes, C.esgeo = d_sgeo;
    C.Dr = A[6], C.Ds = A[7], C.cub_interp = A[8], C.face_interp = A[9], C.Mf = A[10], C.cub_Dr = A[11],
    C.cub_Ds = A[12];
    C.vgeo = A[0], C.sgeo = A[1], C.cgeo = A[2], C.fcgeo = A[3], C.M = A[4], C.invM = A[5];
    return rc;
}

void curved_free(insdg_gpu_curved *cv)
{
    if (!cv) return;
    (void)gpuFree(cv->celem);
    for (double *p : cv->arrays) (void)gpuFree(p);
    (void)gpuFree(cv->face_nodes);
    free(cv);
}

int curved_launch(const insdg_gpu_block *B, CurvedArgs a, gpuStream_t s)
{
    const insdg_gpu_curved *cv = B->curved;
    if (!cv) return INSDG_GPU_OK;
    if ((a.op == CURVED_SAVE || a.restore) && !a.work) return INSDG_GPU_EBADARG;
    curved_kernel<<<nblocks_for((size_t)cv->n, kThreads), kThreads, 0, s>>>(cv->ctx, cv->n, cv->celem, a);
    return launch_status();
}

} // namespace insdg_gpu

extern "C" size_t insdg_gpu_curved_work_doubles(const insdg_gpu_block *B)
{
    return B && B->curved ? 2 * (size_t)B->curved->n * (size_t)B->Np : 0;
}
