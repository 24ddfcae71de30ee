/* insdg_gpu.h -- plain C interface to insdg's GPU kernels (CUDA or HIP).
 *
 * No CUDA/HIP types appear here: streams are passed as void* (a
 * cudaStream_t / hipStream_t, or NULL for the default stream) and all
 * pointers are device pointers. Link against insdg_cuda (nvcc build) or
 * insdg_hip (hipcc build); both export the same symbols from the same
 * source, so link exactly one of them.
 */
#ifndef INSDG_GPU_H
#define INSDG_GPU_H

#ifdef __cplusplus
extern "C" {
#endif

/* Return codes. */
#define INSDG_GPU_OK 0
#define INSDG_GPU_EBADN (-1)       /* polynomial degree N outside 1..INSDG_GPU_NMAX */
#define INSDG_GPU_EBADVERSION (-2) /* kernel version not implemented */
#define INSDG_GPU_EBADARG (-3)     /* K < 0 or a NULL pointer with K > 0 */
#define INSDG_GPU_ELAUNCH (-4)     /* the runtime reported a launch error */

#define INSDG_GPU_NMAX 10           /* kernels are instantiated for N = 1..10 */
#define INSDG_GPU_LOCAL_GRADIENT_NVERSIONS 2

/* Number of visible GPUs; 0 when there is none or the runtime/driver fails
 * (e.g. no libcuda / no /dev/kfd), so tests can skip cleanly. */
int insdg_gpu_device_count(void);

/* Local gradient (Karakus et al., "Local Gradient Kernel") on K triangles of
 * degree N, Np = (N+1)(N+2)/2 nodes each:
 *   ur = sum_j Dr[i][j] u[e][j],  us = sum_j Ds[i][j] u[e][j]
 *   ux[e][i] = rx*ur + sx*us,     uy[e][i] = ry*ur + sy*us
 * with vgeo[e*5 + {0:rx, 1:sx, 2:ry, 3:sy, 4:J}], fields [K][Np] doubles and
 * Dr, Ds row-major [Np][Np].
 *   version 0: one element per block, one thread per node, u read from
 *              global memory (the paper's Kernel 0);
 *   version 1: several elements per block (about 256 threads), u staged in
 *              shared memory.
 * The launch is asynchronous on `stream`; returns INSDG_GPU_OK or one of the
 * error codes above (launch errors are detected with get-last-error). */
int insdg_gpu_local_gradient(int N, int version, int K, const double *d_Dr,
                             const double *d_Ds, const double *d_vgeo, const double *d_u,
                             double *d_ux, double *d_uy, void *stream);

#ifdef __cplusplus
}
#endif

#endif /* INSDG_GPU_H */
