/*
 * Element types on the device and their conversions to and from fp32, the type every
 * kernel accumulates in:
 *   f16   __half                       (hip_fp16.h / cuda_fp16.h)
 *   bf16  hip_bfloat16 / __nv_bfloat16 (rounds to nearest even on both)
 *   f32   float
 */
#pragma once

#include <type_traits>

#include "compat.h"

#if defined(HIPCONV_PLATFORM_AMD)
#include <hip/hip_bfloat16.h>
typedef hip_bfloat16 hipconv_bf16;
#else
#include <cuda_bf16.h>
typedef __nv_bfloat16 hipconv_bf16;
#endif

// The device type of each dtype suffix of HIPCONV_FOR_EACH_DTYPE (hipconv/runtime.h).
#define HIPCONV_ELEMENT_f16 __half
#define HIPCONV_ELEMENT_bf16 hipconv_bf16
#define HIPCONV_ELEMENT_f32 float

namespace hipconv {

__device__ inline float to_float(float v) { return v; }
__device__ inline float to_float(__half v) { return __half2float(v); }
__device__ inline float to_float(hipconv_bf16 v) {
#if defined(HIPCONV_PLATFORM_AMD)
    return static_cast<float>(v);
#else
    return __bfloat162float(v);
#endif
}

// The raw bits of an element, for kernels that only move elements (or write zeros: all bits
// 0 is +0 in every dtype), so that dtypes of one size share one kernel.
template <typename T> using element_bits_t = typename std::conditional<sizeof(T) == 2, uint16_t, uint32_t>::type;
static_assert(sizeof(element_bits_t<__half>) == sizeof(__half) && sizeof(element_bits_t<hipconv_bf16>) == 2 &&
                  sizeof(element_bits_t<float>) == sizeof(float),
              "every dtype is 2 or 4 bytes");

template <typename T> __device__ inline T from_float(float v);
template <> __device__ inline float from_float<float>(float v) { return v; }
template <> __device__ inline __half from_float<__half>(float v) { return __float2half_rn(v); }
template <> __device__ inline hipconv_bf16 from_float<hipconv_bf16>(float v) {
#if defined(HIPCONV_PLATFORM_AMD)
    return hipconv_bf16(v);
#else
    return __float2bfloat16_rn(v);
#endif
}

}  // namespace hipconv
