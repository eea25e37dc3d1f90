/*
 * Launch helpers shared by every operation: error propagation (no kernel or
 * launcher prints, exits or swallows an error) and grid sizing for the
 * grid-stride loops all kernels use, so no shape can exceed a grid limit.
 */
#pragma once

#include <atomic>
#include <cstdlib>
#include <cstring>

#include "compat.h"
#include "element.h"
#include "hipconv/runtime.h"

#define HIPCONV_RETURN_IF_ERROR(expr)                      \
    do {                                                   \
        const hipError_t hipconv_err_ = (expr);            \
        if (hipconv_err_ != hipSuccess)                    \
            return (hipconv_status_t)hipconv_err_;         \
    } while (0)

namespace hipconv {

// Blocks launched for `work` independent pieces; kernels loop over the rest.
constexpr int64_t kMaxGridBlocks = int64_t(1) << 20;

inline unsigned grid_blocks(int64_t work) {
    return (unsigned)(work < kMaxGridBlocks ? (work > 0 ? work : 1) : kMaxGridBlocks);
}

__host__ __device__ inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// n / d and n % d for non-negative n and positive d, in 32-bit arithmetic when both fit
// (a 64-bit division is a long software sequence on GPUs; most sizes fit in 32 bits).
struct QuotientRemainder {
    int64_t quotient;
    int64_t remainder;
};
__device__ inline QuotientRemainder divide(int64_t n, int64_t d) {
    if (((uint64_t)n | (uint64_t)d) >> 32 == 0) {
        const uint32_t q = (uint32_t)n / (uint32_t)d;
        return {(int64_t)q, (int64_t)((uint32_t)n - q * (uint32_t)d)};
    }
    return {n / d, n % d};
}

constexpr int kMaxCachedDevices = 64;

// A per-device fact asked of the runtime once per device: `query(device, &value)` answers
// for the current device, and `cache` (zero-initialised, a slot per device) keeps a positive
// answer for the next call. Facts are stored as positive numbers (counts, or 1/2 for yes/no).
template <typename Query>
hipError_t cached_per_device(std::atomic<int64_t> (&cache)[kMaxCachedDevices], Query query, int64_t *value) {
    int device = 0;
    hipError_t err = hipGetDevice(&device);
    if (err != hipSuccess) return err;
    const bool cacheable = device >= 0 && device < kMaxCachedDevices;
    if (cacheable && (*value = cache[device].load(std::memory_order_relaxed)) > 0) return hipSuccess;
    err = query(device, value);
    if (err == hipSuccess && cacheable && *value > 0) cache[device].store(*value, std::memory_order_relaxed);
    return err;
}

// Device attribute kAttribute of the current device (hipDeviceGetAttribute), asked once per
// device and attribute.
template <hipDeviceAttribute_t kAttribute> hipError_t cached_device_attribute(int64_t *value) {
    static std::atomic<int64_t> cache[kMaxCachedDevices];
    return cached_per_device(
        cache,
        [](int device, int64_t *answer) {
            int v = 0;
            const hipError_t e = hipDeviceGetAttribute(&v, kAttribute, device);
            *answer = v;
            return e;
        },
        value);
}

// Blocks of `kernel` (with `threads` threads and `dynamic_shared` bytes of dynamic shared
// memory) that the current device holds at once: a grid this size is one resident wave, and
// a grid-stride loop walks the rest of the work. The answer is fixed for a (kernel, device)
// while the process runs, so the caller keeps one `cache` per kernel and the runtime is
// asked once per device instead of on every launch.
template <typename Kernel>
hipError_t resident_blocks(Kernel kernel, int threads, std::atomic<int64_t> (&cache)[kMaxCachedDevices],
                           int64_t *blocks, int dynamic_shared = 0) {
    return cached_per_device(
        cache,
        [&](int device, int64_t *answer) {
            int sms = 0, per_sm = 0;
            hipError_t err = hipDeviceGetAttribute(&sms, hipDeviceAttributeMultiprocessorCount, device);
            if (err == hipSuccess)
                err = hipOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, dynamic_shared);
            *answer = (int64_t)(sms > 0 ? sms : 1) * (per_sm > 0 ? per_sm : 1);
            return err;
        },
        blocks);
}

// Lets `kernel` launch with `bytes` of dynamic shared memory. NVIDIA caps a block's shared
// memory, static and dynamic together, at 48 KB unless the kernel opts in. Where `bytes`
// and the kernel's static shared memory (its attributes, asked once) fit in 48 KB nothing
// is set; otherwise the opt-in is asked. `cache`, one per kernel, keeps per device the
// largest size known to launch, so either is done once per kernel, device and size.
// Exactly 48 KB of stages plus a few bytes of barriers needs the opt-in (the tiled
// channel-last backward's short f32 tiles at width 1). AMD grants its whole LDS without an
// attribute.
template <typename Kernel>
hipError_t allow_dynamic_shared(Kernel kernel, int bytes, std::atomic<int64_t> (&cache)[kMaxCachedDevices]) {
#if defined(HIPCONV_PLATFORM_NVIDIA)
    constexpr int kDefaultShared = 48 * 1024;
    if (bytes <= 0) return hipSuccess;
    int device = 0;
    hipError_t err = hipGetDevice(&device);
    if (err != hipSuccess) return err;
    const bool cacheable = device >= 0 && device < kMaxCachedDevices;
    if (cacheable && cache[device].load(std::memory_order_relaxed) >= bytes) return hipSuccess;
    bool fits = false;
    if (bytes <= kDefaultShared) {
        hipFuncAttributes attributes{};
        err = hipFuncGetAttributes(&attributes, (const void *)kernel);
        if (err != hipSuccess) return err;
        fits = (int64_t)attributes.sharedSizeBytes + bytes <= kDefaultShared;
    }
    if (!fits) err = hipFuncSetAttribute((const void *)kernel, hipFuncAttributeMaxDynamicSharedMemorySize, bytes);
    if (err == hipSuccess && cacheable) {
        int64_t granted = cache[device].load(std::memory_order_relaxed);
        while (granted < bytes && !cache[device].compare_exchange_weak(granted, bytes, std::memory_order_relaxed)) {
        }
    }
    return err;
#else
    (void)kernel;
    (void)bytes;
    (void)cache;
    return hipSuccess;
#endif
}

// Whether the environment leaves the default-on switch `name` on: unset, or set to anything
// but "0" (HIPCONV_CHAINED_LAUNCH, HIPCONV_CONV3D_TMA). Callers keep the answer in a static,
// so the environment is read once per process.
inline bool switch_left_on(const char *name) {
    const char *value = std::getenv(name);
    return value == nullptr || std::strcmp(value, "0") != 0;
}

// The status of the launch just made (configuration errors surface here).
inline hipconv_status_t last_launch_status() { return (hipconv_status_t)hipGetLastError(); }

}  // namespace hipconv

// Emits the C entry points hipconv_<op>_<dtype>(const params_type *, stream) for every dtype
// of HIPCONV_FOR_EACH_DTYPE (the list the headers declare them by), each calling
// hipconv::launch_<op><T>(params, stream) with T the dtype's device type (element.h).
#define HIPCONV_EXPORT_ONE_DTYPE_(dtype, op, params_type)                                         \
    extern "C" hipconv_status_t hipconv_##op##_##dtype(const params_type *params,                 \
                                                       hipconv_stream_t stream) {                 \
        if (params == nullptr) return (hipconv_status_t)hipErrorInvalidValue;                     \
        return hipconv::launch_##op<HIPCONV_ELEMENT_##dtype>(*params, (hipStream_t)stream);       \
    }
#define HIPCONV_EXPORT_PER_DTYPE(op, params_type) \
    HIPCONV_FOR_EACH_DTYPE(HIPCONV_EXPORT_ONE_DTYPE_, op, params_type)
