/*
 * 16-byte vectors (uint4) of 16 / sizeof(T) elements. On AMD they are read and written as
 * 32-bit words, so that clang keeps them in registers (addressing a uint4 through a 2-byte
 * element pointer puts it in scratch memory there); nvcc keeps either form in registers.
 * Element indices must be compile-time constants after unrolling.
 */
#pragma once

#include "compat.h"
#include "element.h"

namespace hipconv {

__device__ inline uint32_t word_of(const uint4 &v, int q) { return q == 0 ? v.x : q == 1 ? v.y : q == 2 ? v.z : v.w; }

__device__ inline float bits_to_float(float, uint32_t w, int) { return __uint_as_float(w); }
__device__ inline float bits_to_float(__half, uint32_t w, int half) {
    return __half2float(__ushort_as_half((unsigned short)(w >> (16 * half))));
}
__device__ inline float bits_to_float(hipconv_bf16, uint32_t w, int half) {
    return __uint_as_float(half ? w & 0xffff0000u : w << 16);  // bf16 is the top half of an fp32
}

// Element e of a vector of T, as fp32. (nvcc keeps a vector addressed by element in
// registers, and selects the half of a word in the conversion itself: fewer instructions
// and registers than the shifts, measured on an H200.)
template <typename T> __device__ inline float unpack(const uint4 &v, int e) {
#if defined(HIPCONV_PLATFORM_NVIDIA)
    return to_float(reinterpret_cast<const T *>(&v)[e]);
#else
    constexpr int kPerWord = 4 / sizeof(T);
    return bits_to_float(T(), word_of(v, e / kPerWord), e % kPerWord);
#endif
}

__device__ inline uint32_t float_to_bits(float, float v) { return __float_as_uint(v); }
__device__ inline uint32_t float_to_bits(__half, float v) { return __half_as_ushort(__float2half_rn(v)); }
__device__ inline uint32_t float_to_bits(hipconv_bf16, float v) {
#if defined(HIPCONV_PLATFORM_AMD)
    return hipconv_bf16(v).data;
#else
    return __bfloat16_as_ushort(__float2bfloat16_rn(v));
#endif
}

// 16 / sizeof(T) fp32 values rounded to T and packed into a vector.
template <typename T> __device__ inline uint4 pack(const float *v) {
#if defined(HIPCONV_PLATFORM_NVIDIA)
    uint4 raw;
    T *e = reinterpret_cast<T *>(&raw);
#pragma unroll
    for (int i = 0; i < 16 / (int)sizeof(T); ++i) e[i] = from_float<T>(v[i]);
    return raw;
#endif
    constexpr int kPerWord = 4 / sizeof(T);
    uint32_t w[4];
#pragma unroll
    for (int q = 0; q < 4; ++q) {
        w[q] = 0;
#pragma unroll
        for (int h = 0; h < kPerWord; ++h) w[q] |= float_to_bits(T(), v[q * kPerWord + h]) << (16 * h);
    }
    return make_uint4(w[0], w[1], w[2], w[3]);
}

// `v` to `to` (global memory, 16-byte aligned) in one 16-byte store. Beside a branch that
// stores the same elements one by one, nvcc split a plain uint4 store into four 32-bit
// ones (backward_channel_first.hip: four times the store requests, half of the L2
// sectors it moved wasted; ncu on an H200), so on NVIDIA the store is written out.
__device__ inline void store_vector16(void *to, const uint4 &v) {
#if defined(HIPCONV_PLATFORM_NVIDIA)
    asm volatile("st.global.v4.b32 [%0], {%1, %2, %3, %4};" ::"l"(to), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w)
                 : "memory");
#else
    *reinterpret_cast<uint4 *>(to) = v;
#endif
}

}  // namespace hipconv
