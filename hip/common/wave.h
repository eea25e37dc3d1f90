/*
 * Cross-lane exchange within one wave (64 lanes on AMD, a 32-lane warp on NVIDIA), for
 * kernels that pass neighbouring data between lanes in registers instead of through shared
 * memory. Every lane of the wave must call it (no lane may have returned).
 */
#pragma once

#include "compat.h"

namespace hipconv {

__device__ inline int wave_lane() { return (int)(threadIdx.x % HIPCONV_WAVE_SIZE); }

// The value `v` of lane `source` (0 .. HIPCONV_WAVE_SIZE-1) of this wave.
__device__ inline uint32_t wave_read_lane(uint32_t v, int source) {
#if defined(HIPCONV_PLATFORM_AMD)
    return (uint32_t)__shfl((int)v, source, HIPCONV_WAVE_SIZE);
#else
    return __shfl_sync(0xffffffffu, v, source, HIPCONV_WAVE_SIZE);
#endif
}

// The sum of `v` over the lanes of this wave, in a fixed order (a butterfly of exchanges),
// on every lane: the same inputs give the same bits.
__device__ inline float wave_sum(float v) {
#pragma unroll
    for (int mask = HIPCONV_WAVE_SIZE / 2; mask > 0; mask /= 2) {
#if defined(HIPCONV_PLATFORM_AMD)
        v += __shfl_xor(v, mask, HIPCONV_WAVE_SIZE);
#else
        v += __shfl_xor_sync(0xffffffffu, v, mask, HIPCONV_WAVE_SIZE);
#endif
    }
    return v;
}

}  // namespace hipconv
