/*
 * Portability: the kernels are written against HIP names. On AMD this header is
 * just <hip/hip_runtime.h>. Under nvcc it maps the HIP names this project uses
 * onto CUDA, which is what HIP-on-NVIDIA does; Debian's HIP 5.2 NVIDIA headers
 * do not compile against CUDA 12/13, so we own this small mapping instead
 * (docs/BACKENDS.md).
 *
 * build.rs defines exactly one of HIPCONV_PLATFORM_AMD / HIPCONV_PLATFORM_NVIDIA.
 */
#pragma once

#if defined(HIPCONV_PLATFORM_AMD) == defined(HIPCONV_PLATFORM_NVIDIA)
#error "define exactly one of HIPCONV_PLATFORM_AMD and HIPCONV_PLATFORM_NVIDIA"
#endif

#include <stdint.h>

#if defined(HIPCONV_PLATFORM_AMD)

#include <hip/hip_fp16.h>
#include <hip/hip_runtime.h>

#define HIPCONV_WAVE_SIZE 64

#else /* HIPCONV_PLATFORM_NVIDIA */

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#define HIPCONV_WAVE_SIZE 32

typedef cudaError_t hipError_t;
typedef cudaStream_t hipStream_t;
typedef cudaEvent_t hipEvent_t;
typedef cudaDeviceProp hipDeviceProp_t;
typedef cudaGraph_t hipGraph_t;
typedef cudaGraphExec_t hipGraphExec_t;
typedef cudaFuncAttributes hipFuncAttributes;

#define hipSuccess cudaSuccess
#define hipErrorInvalidValue cudaErrorInvalidValue

#define hipGetLastError cudaGetLastError
#define hipGetErrorName cudaGetErrorName
#define hipGetErrorString cudaGetErrorString
#define hipGetDeviceCount cudaGetDeviceCount
#define hipSetDevice cudaSetDevice
#define hipGetDevice cudaGetDevice
#define hipDeviceGetAttribute cudaDeviceGetAttribute
#define hipDeviceAttribute_t cudaDeviceAttr
#define hipDeviceAttributeMultiprocessorCount cudaDevAttrMultiProcessorCount
#define hipOccupancyMaxActiveBlocksPerMultiprocessor cudaOccupancyMaxActiveBlocksPerMultiprocessor
#define hipFuncSetAttribute cudaFuncSetAttribute
#define hipFuncGetAttributes cudaFuncGetAttributes
#define hipFuncAttributeMaxDynamicSharedMemorySize cudaFuncAttributeMaxDynamicSharedMemorySize
#define hipGetDeviceProperties cudaGetDeviceProperties
#define hipMalloc cudaMalloc
#define hipFree cudaFree
#define hipMemcpyAsync cudaMemcpyAsync
#define hipMemsetAsync cudaMemsetAsync
#define hipMemcpyHostToDevice cudaMemcpyHostToDevice
#define hipMemcpyDeviceToHost cudaMemcpyDeviceToHost
#define hipMemcpyDeviceToDevice cudaMemcpyDeviceToDevice
#define hipStreamCreateWithFlags cudaStreamCreateWithFlags
#define hipStreamNonBlocking cudaStreamNonBlocking
#define hipStreamDestroy cudaStreamDestroy
#define hipStreamSynchronize cudaStreamSynchronize
#define hipEventCreate cudaEventCreate
#define hipEventDestroy cudaEventDestroy
#define hipEventRecord cudaEventRecord
#define hipEventSynchronize cudaEventSynchronize
#define hipEventElapsedTime cudaEventElapsedTime
#define hipStreamBeginCapture cudaStreamBeginCapture
#define hipStreamCaptureModeThreadLocal cudaStreamCaptureModeThreadLocal
#define hipStreamEndCapture cudaStreamEndCapture
#define hipGraphInstantiateWithFlags cudaGraphInstantiateWithFlags
#define hipGraphDestroy cudaGraphDestroy
#define hipGraphLaunch cudaGraphLaunch
#define hipGraphExecDestroy cudaGraphExecDestroy

#define hipLaunchKernelGGL(kernel, grid, block, shared_bytes, stream, ...) \
    kernel<<<(grid), (block), (shared_bytes), (stream)>>>(__VA_ARGS__)

#endif

/*
 * __launch_bounds__ with a register budget on NVIDIA: at least `blocks_per_sm` resident
 * blocks, so ptxas caps registers at 65536 / (threads · blocks_per_sm). HIP reads the
 * second argument as waves per execution unit instead, which would cap the VGPRs and spill
 * there, so AMD keeps the plain bound and its own allocation (no scratch).
 */
#if defined(HIPCONV_PLATFORM_NVIDIA)
#define HIPCONV_BOUNDS_NVIDIA(threads, blocks_per_sm) __launch_bounds__(threads, blocks_per_sm)
#else
#define HIPCONV_BOUNDS_NVIDIA(threads, blocks_per_sm) __launch_bounds__(threads)
#endif

// A kernel parameter read through its address (a CUtensorMap): __grid_constant__ on NVIDIA.
#if defined(HIPCONV_PLATFORM_NVIDIA)
#define HIPCONV_GRID_CONSTANT __grid_constant__
#else
#define HIPCONV_GRID_CONSTANT
#endif
