/*
 * Programmatic dependent launch (NVIDIA sm_90 and newer): a small kernel that follows a
 * large one in the same stream starts while the large one's last blocks still run, does
 * its loads, and waits for the large one only before it writes. That hides the follower's
 * launch and its first round of loads behind the tail of the large kernel.
 *
 *   large kernel (primary)     every block calls allow_dependent_launch() first: once every
 *                              block has started, the follower may be launched.
 *   follower (secondary)       launched by launch_dependent(); reads only what the primary
 *                              does not write, then wait_for_primary() in every thread that
 *                              writes, and once more in every thread before it exits, so
 *                              the follower never ends before the primary.
 *
 * Elsewhere (AMD, older NVIDIA devices, a build whose kernels the device runs from code
 * older than compute_90, or a primary that never calls allow_dependent_launch) the
 * follower is an ordinary launch, or starts only when the primary has ended, and both
 * device calls do nothing. Correct either way; only the overlap differs.
 *
 * Chained launches: the same mechanism between whole kernels that read what the kernel
 * before them wrote. A kernel launched by launch_chained() calls begin_chained_kernel()
 * before it touches global memory: it waits for every kernel before it in the stream to end
 * (their writes visible), then lets the next one launch. So back-to-back launches, in a graph
 * or a stream, place the next kernel's blocks while this one's last wave runs, and the gap
 * between them is only the wait's release instead of a launch and a ramp of block starts.
 * Since the wait comes first, a follower that reads before its own wait (the boundary pass)
 * still starts only after everything before its primary has ended. HIPCONV_CHAINED_LAUNCH=0
 * in the environment makes every chained launch an ordinary one (for comparison).
 */
#pragma once

#include <atomic>

#include "compat.h"
#include "launch.h"

namespace hipconv {

// In a primary kernel: this block no longer holds back the follower's launch.
__device__ inline void allow_dependent_launch() {
#if defined(HIPCONV_PLATFORM_NVIDIA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

// In a follower: returns once the primary has ended and its writes are visible.
__device__ inline void wait_for_primary() {
#if defined(HIPCONV_PLATFORM_NVIDIA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

// In a kernel launched by launch_chained(), before its first global access: returns once
// the kernels before it in the stream have ended, then lets the kernel after it launch.
__device__ inline void begin_chained_kernel() {
    wait_for_primary();
    allow_dependent_launch();
}

// begin_chained_kernel(), placed after the computation of `ready`. ptxas schedules a bare
// wait at the very top of a kernel and the arithmetic that precedes it in the source after
// it, on the path from the previous kernel's end to this one's first load; a kernel that
// folds its index arithmetic into `ready` (any mix of the values, say by xor) has it done
// while it waits instead. The wait is predicated on ready != ~ready, which always holds but
// which ptxas does not fold.
__device__ inline void begin_chained_kernel_after(uint32_t ready) {
#if defined(HIPCONV_PLATFORM_NVIDIA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile(
        "{\n\t.reg .pred ready;\n\tsetp.ne.u32 ready, %0, %1;\n\t@ready griddepcontrol.wait;\n\t}" ::"r"(ready),
        "r"(~ready)
        : "memory");
    allow_dependent_launch();
#else
    (void)ready;
#endif
}

// An address folded to 32 bits for begin_chained_kernel_after's `ready`.
template <typename P> __device__ inline uint32_t fold_address(const P *address) {
    const uint64_t bits = reinterpret_cast<uintptr_t>(address);
    return (uint32_t)bits ^ (uint32_t)(bits >> 32);
}

#if defined(HIPCONV_PLATFORM_NVIDIA)
// Compiled like every kernel of the build: device_launches_dependents_early() asks which
// code of it the device runs.
template <int kUnused = 0> __global__ void dependent_launch_probe() {}
#endif

// Whether the current device starts followers early (compute capability 9.0 or newer) and
// runs this build's kernels from code that has the waits: compute_90 or newer. A build
// without sm_90 code (HIPCONV_CUDA_ARCHS=80) runs on such a device from compute_80 PTX,
// where wait_for_primary() and allow_dependent_launch() compile to nothing, so its
// launches stay ordinary there: a follower without its wait could read before the kernel
// before it (this library's or another's) has written.
inline bool device_launches_dependents_early() {
#if defined(HIPCONV_PLATFORM_NVIDIA)
    static std::atomic<int64_t> cache[kMaxCachedDevices];  // 1: yes, 2: no
    int64_t answer = 0;
    const hipError_t err = cached_per_device(
        cache,
        [](int device, int64_t *yes) {
            int major = 0;
            cudaError_t e = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
            cudaFuncAttributes probe{};
            if (e == cudaSuccess && major >= 9) e = cudaFuncGetAttributes(&probe, dependent_launch_probe<>);
            *yes = e == cudaSuccess && major >= 9 && probe.ptxVersion >= 90 ? 1 : 2;
            return (hipError_t)e;
        },
        &answer);
    return err == hipSuccess && answer == 1;
#else
    return false;
#endif
}

// Launches `kernel` in `stream` as a programmatic follower of the kernel before it where
// `early` (an NVIDIA device that starts followers early), an ordinary launch elsewhere.
template <typename... Params, typename... Args>
hipconv_status_t launch_follower(bool early, void (*kernel)(Params...), dim3 grid, dim3 block, int dynamic_shared,
                                 hipStream_t stream, Args... args) {
#if defined(HIPCONV_PLATFORM_NVIDIA)
    if (early) {
        cudaLaunchAttribute attribute[1] = {};
        attribute[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
        attribute[0].val.programmaticStreamSerializationAllowed = 1;
        cudaLaunchConfig_t config = {};
        config.gridDim = grid;
        config.blockDim = block;
        config.dynamicSmemBytes = (size_t)dynamic_shared;
        config.stream = stream;
        config.attrs = attribute;
        config.numAttrs = 1;
        return (hipconv_status_t)cudaLaunchKernelEx(&config, kernel, args...);
    }
#else
    (void)early;
#endif
    hipLaunchKernelGGL(kernel, grid, block, dynamic_shared, stream, args...);
    return last_launch_status();
}

// Launches `kernel` (no dynamic shared memory) as a follower of the kernel before it in
// `stream`: early where the device allows it, an ordinary launch elsewhere.
template <typename... Params, typename... Args>
hipconv_status_t launch_dependent(void (*kernel)(Params...), dim3 grid, dim3 block, hipStream_t stream,
                                  Args... args) {
    return launch_follower(device_launches_dependents_early(), kernel, grid, block, 0, stream, args...);
}

// Whether launch_chained() chains: the device starts followers early and the environment
// does not set HIPCONV_CHAINED_LAUNCH=0 (read once per process).
inline bool chained_launch_enabled() {
    static const bool allowed = switch_left_on("HIPCONV_CHAINED_LAUNCH");
    return allowed && device_launches_dependents_early();
}

// Launches `kernel`, which calls begin_chained_kernel() before its first global access, as
// a follower of whatever kernel comes before it in `stream` where chained_launch_enabled(),
// an ordinary launch elsewhere.
template <typename... Params, typename... Args>
hipconv_status_t launch_chained(void (*kernel)(Params...), dim3 grid, dim3 block, int dynamic_shared,
                                hipStream_t stream, Args... args) {
    return launch_follower(chained_launch_enabled(), kernel, grid, block, dynamic_shared, stream, args...);
}

}  // namespace hipconv
