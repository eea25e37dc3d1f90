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
 * Elsewhere (AMD, older NVIDIA devices, or a primary that never calls
 * allow_dependent_launch) the follower is an ordinary launch, or starts only when the
 * primary has ended, and both device calls do nothing. Correct either way; only the
 * overlap differs.
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

// Whether the current device starts followers early (compute capability 9.0 or newer).
inline bool device_launches_dependents_early() {
#if defined(HIPCONV_PLATFORM_NVIDIA)
    static std::atomic<int64_t> cache[kMaxCachedDevices];  // 1: yes, 2: no
    int64_t answer = 0;
    const hipError_t err = cached_per_device(
        cache,
        [](int device, int64_t *yes) {
            int major = 0;
            const hipError_t e = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
            *yes = e == cudaSuccess && major >= 9 ? 1 : 2;
            return e;
        },
        &answer);
    return err == hipSuccess && answer == 1;
#else
    return false;
#endif
}

// Launches `kernel` (no dynamic shared memory) as a follower of the kernel before it in
// `stream`: early where the device allows it, an ordinary launch elsewhere.
template <typename... Params, typename... Args>
hipconv_status_t launch_dependent(void (*kernel)(Params...), dim3 grid, dim3 block, hipStream_t stream,
                                  Args... args) {
#if defined(HIPCONV_PLATFORM_NVIDIA)
    if (device_launches_dependents_early()) {
        cudaLaunchAttribute attribute[1] = {};
        attribute[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
        attribute[0].val.programmaticStreamSerializationAllowed = 1;
        cudaLaunchConfig_t config = {};
        config.gridDim = grid;
        config.blockDim = block;
        config.dynamicSmemBytes = 0;
        config.stream = stream;
        config.attrs = attribute;
        config.numAttrs = 1;
        return (hipconv_status_t)cudaLaunchKernelEx(&config, kernel, args...);
    }
#endif
    hipLaunchKernelGGL(kernel, grid, block, 0, stream, args...);
    return last_launch_status();
}

}  // namespace hipconv
