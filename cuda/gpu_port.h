/* gpu_port.h -- CUDA/HIP portability layer for insdg's GPU kernels.
 *
 * The same .cu sources are compiled by nvcc (CUDA) and by hipcc (HIP, which
 * defines __HIPCC__). Kernel code uses __global__, __shared__, threadIdx,
 * blockIdx, __syncthreads() and <<<grid, block, shmem, stream>>> launches,
 * which both dialects accept unchanged; host-side runtime calls go through
 * the gpu* names below. Include this only from .cu files, never from C.
 * With INSDG_GPU_EMULATE the names come from the CPU emulation of
 * tests/gpu_emu/gpu_emu.h instead (CI runs the kernels there).
 * Kernels use no warp-level intrinsics (shuffles, ballots), so nothing depends
 * on the warp width (32 on NVIDIA, 64 on gfx90a/gfx908): block reductions go
 * through shared memory with __syncthreads(). The exception is CUDA-only: the
 * FP64 tensor cores' mma of gpu_common.cuh (HAS_MMA), which HIP builds leave out.
 */
#ifndef INSDG_GPU_PORT_H
#define INSDG_GPU_PORT_H

#include <stdio.h>
#include <stdlib.h>

#if defined(INSDG_GPU_EMULATE)
/* CPU emulation for CI without a GPU (tests/gpu_emu/gpu_emu.h defines the same names) */
#include "gpu_emu.h"

#elif defined(__HIPCC__)
#include <hip/hip_runtime.h>

#define gpuError_t hipError_t
#define gpuSuccess hipSuccess
#define gpuStream_t hipStream_t
#define gpuEvent_t hipEvent_t

#define gpuMalloc hipMalloc
#define gpuFree hipFree
#define gpuMemcpy hipMemcpy
#define gpuMemcpyAsync hipMemcpyAsync
#define gpuMemset hipMemset
#define gpuMemcpyHostToDevice hipMemcpyHostToDevice
#define gpuMemcpyDeviceToHost hipMemcpyDeviceToHost
#define gpuMemcpyDeviceToDevice hipMemcpyDeviceToDevice
#define gpuDeviceSynchronize hipDeviceSynchronize
#define gpuGetLastError hipGetLastError
#define gpuGetErrorString hipGetErrorString
#define gpuGetDeviceCount hipGetDeviceCount
#define gpuSetDevice hipSetDevice
#define gpuGetDevice hipGetDevice
#define gpuStreamCreate hipStreamCreate
#define gpuStreamDestroy hipStreamDestroy
#define gpuStreamSynchronize hipStreamSynchronize
#define gpuEventCreate hipEventCreate
#define gpuEventRecord hipEventRecord
#define gpuEventSynchronize hipEventSynchronize
#define gpuEventElapsedTime hipEventElapsedTime
#define gpuEventDestroy hipEventDestroy
#define gpuDeviceProp_t hipDeviceProp_t
#define gpuGetDeviceProperties hipGetDeviceProperties
#define gpuDeviceGetAttribute hipDeviceGetAttribute
#define gpuDevAttrClockRate hipDeviceAttributeClockRate
#define gpuDevAttrMultiProcessorCount hipDeviceAttributeMultiprocessorCount
#define gpuDevAttrMemoryClockRate hipDeviceAttributeMemoryClockRate
#define gpuDevAttrGlobalMemoryBusWidth hipDeviceAttributeMemoryBusWidth
#define gpuDevAttrL2CacheSize hipDeviceAttributeL2CacheSize
#define gpuDevAttrMaxSharedMemoryPerBlock hipDeviceAttributeMaxSharedMemoryPerBlock
#define gpuDevAttrWarpSize hipDeviceAttributeWarpSize
#define gpuDevAttrComputeCapabilityMajor hipDeviceAttributeComputeCapabilityMajor
#define gpuDevAttrComputeCapabilityMinor hipDeviceAttributeComputeCapabilityMinor

#else /* CUDA */
#include <cuda_runtime.h>

#define gpuError_t cudaError_t
#define gpuSuccess cudaSuccess
#define gpuStream_t cudaStream_t
#define gpuEvent_t cudaEvent_t

#define gpuMalloc cudaMalloc
#define gpuFree cudaFree
#define gpuMemcpy cudaMemcpy
#define gpuMemcpyAsync cudaMemcpyAsync
#define gpuMemset cudaMemset
#define gpuMemcpyHostToDevice cudaMemcpyHostToDevice
#define gpuMemcpyDeviceToHost cudaMemcpyDeviceToHost
#define gpuMemcpyDeviceToDevice cudaMemcpyDeviceToDevice
#define gpuDeviceSynchronize cudaDeviceSynchronize
#define gpuGetLastError cudaGetLastError
#define gpuGetErrorString cudaGetErrorString
#define gpuGetDeviceCount cudaGetDeviceCount
#define gpuSetDevice cudaSetDevice
#define gpuGetDevice cudaGetDevice
#define gpuStreamCreate cudaStreamCreate
#define gpuStreamDestroy cudaStreamDestroy
#define gpuStreamSynchronize cudaStreamSynchronize
#define gpuEventCreate cudaEventCreate
#define gpuEventRecord cudaEventRecord
#define gpuEventSynchronize cudaEventSynchronize
#define gpuEventElapsedTime cudaEventElapsedTime
#define gpuEventDestroy cudaEventDestroy
#define gpuDeviceProp_t cudaDeviceProp
#define gpuGetDeviceProperties cudaGetDeviceProperties
#define gpuDeviceGetAttribute cudaDeviceGetAttribute
#define gpuDevAttrClockRate cudaDevAttrClockRate
#define gpuDevAttrMultiProcessorCount cudaDevAttrMultiProcessorCount
#define gpuDevAttrMemoryClockRate cudaDevAttrMemoryClockRate
#define gpuDevAttrGlobalMemoryBusWidth cudaDevAttrGlobalMemoryBusWidth
#define gpuDevAttrL2CacheSize cudaDevAttrL2CacheSize
#define gpuDevAttrMaxSharedMemoryPerBlock cudaDevAttrMaxSharedMemoryPerBlock
#define gpuDevAttrWarpSize cudaDevAttrWarpSize
#define gpuDevAttrComputeCapabilityMajor cudaDevAttrComputeCapabilityMajor
#define gpuDevAttrComputeCapabilityMinor cudaDevAttrComputeCapabilityMinor
#endif

/* Abort with file:line, the failing call and the runtime's error string. */
#define GPU_CHECK(call)                                                                  \
    do {                                                                                 \
        gpuError_t gpu_check_err_ = (call);                                              \
        if (gpu_check_err_ != gpuSuccess) {                                              \
            fprintf(stderr, "%s:%d: GPU error in %s: %s\n", __FILE__, __LINE__, #call,   \
                    gpuGetErrorString(gpu_check_err_));                                  \
            abort();                                                                     \
        }                                                                                \
    } while (0)

#endif /* INSDG_GPU_PORT_H */
