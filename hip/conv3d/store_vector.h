/*
 * A run of fp32 outputs rounded to T and written to y as whole vectors, shared by Tiled's
 * direct kernels (tiled.hip: a position's kCout channels; direct_staged.hip: 4 columns or 4
 * channels). The values are packed into 32-bit words with bit operations (packed.h's
 * float_to_bits): an array of T would be a stack slot on AMD.
 */
#pragma once

#include "compat.h"
#include "element.h"
#include "packed.h"

namespace hipconv {
namespace conv3d {

// kN fp32 values rounded to T, stored at `at` (aligned to min(16, kN * sizeof(T)) bytes) as
// 16-byte vectors, or as one 8-byte vector where kN * sizeof(T) is 8.
template <typename T, int kN> __device__ inline void store_vector(T *at, const float (&v)[kN]) {
    constexpr int kBytes = kN * (int)sizeof(T);
    constexpr int kPerWord = 4 / (int)sizeof(T);
    static_assert(kBytes == 8 || kBytes % 16 == 0, "one 8-byte vector or whole 16-byte vectors");
    uint32_t bits[kBytes / 4];
#pragma unroll
    for (int k = 0; k < kBytes / 4; ++k) {
        bits[k] = 0;
#pragma unroll
        for (int h = 0; h < kPerWord; ++h) bits[k] |= float_to_bits(T(), v[k * kPerWord + h]) << (16 * h);
    }
    if constexpr (kBytes == 8) {
        *reinterpret_cast<uint2 *>(at) = make_uint2(bits[0], bits[1]);
    } else {
#pragma unroll
        for (int q = 0; q < kBytes / 16; ++q)
            reinterpret_cast<uint4 *>(at)[q] = make_uint4(bits[4 * q], bits[4 * q + 1], bits[4 * q + 2], bits[4 * q + 3]);
    }
}

}  // namespace conv3d
}  // namespace hipconv
