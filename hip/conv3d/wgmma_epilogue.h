/*
 * The register epilogue of conv3d's wgmma kernels (implicit_gemm_sm90.hip,
 * implicit_gemm_rows.hip): a thread's m64 accumulators, with bias and SiLU, stored into a
 * channel-last y whose positions are 16-byte aligned (OutputView::vector), with no shared
 * memory and no barrier.
 *
 * acc[h][4j + r] is C(row (h, r / 2), co + 8 j + 2 q + r % 2), q = lane % 4 (wgmma.h's
 * accumulator layout: half h of the warpgroup's rows, and the thread's two rows 8 apart in
 * it). The four lanes of a quad hold a row's 8 channels 8j .. 8j + 7 as four pairs. For each
 * 4 consecutive j a quad swaps pairs (transpose_quad: four shuffles) so that lane q holds
 * all 8 channels of j = 4 j' + q, one 16-byte store; a warp's store then covers 8 rows x 64
 * contiguous bytes. The caller names each of the thread's 4 rows by its y address:
 * row_address(2h + r / 2) (channel co included), nullptr where the row is not written;
 * called as each row is stored, so that no row's address is held across the others.
 *
 * For every other y the kernels go through shared memory: accumulators_to_shared puts the
 * same accumulators into c[co][m] (row (h, r / 2) = first_accumulator_row() + 64 h +
 * 8 (r / 2)), from which they write y.
 */
#pragma once

#include <cstdint>

#include "activation.h"
#include "compat.h"
#include "element.h"
#include "output_tile.h"

#if defined(HIPCONV_PLATFORM_NVIDIA)

namespace hipconv {
namespace conv3d {

// The launch's SiLU and bias compiled in, or tested at run time (as run-time tests the
// SiLU's instructions issue, predicated off, for every value without SiLU too).
enum class Epilogue { kRunTime, kPlain, kBias, kSilu, kSiluBias };

// The thread's first accumulator row in its block: warpgroup wg's rows start at 128 wg, warp
// (warp % 4) of it holds rows 16 (warp % 4) .. + 15 of each half, lane / 4 one of them.
__device__ inline int first_accumulator_row() {
    return (int)threadIdx.x / 128 * 128 + ((int)threadIdx.x % 128) / 32 * 16 + (int)threadIdx.x % 32 / 4;
}

// The thread's accumulators into c[n][m] in shared memory (channel n counted from the tile's
// first, row m from the block's first, c's rows ld floats apart), for an epilogue that writes
// y from there: acc[h][4j + r] to n = 8j + 2q + r % 2, m = first_accumulator_row() + 64h +
// 8 (r / 2).
template <int BN> __device__ inline void accumulators_to_shared(const float (&acc)[2][BN / 2], float *c, int ld) {
    const int m_base = first_accumulator_row(), q = (int)threadIdx.x % 4;
#pragma unroll
    for (int h = 0; h < 2; ++h)
#pragma unroll
        for (int i = 0; i < BN / 2; ++i)
            c[(8 * (i / 4) + 2 * q + i % 2) * ld + m_base + 64 * h + 8 * ((i % 4) / 2)] = acc[h][i];
}

// Channels from `channels` on (counted from co) are not written. All 32 lanes of each warp
// call this.
template <typename T, int BN, Epilogue kEpilogue, typename RowAddress>
__device__ inline void store_accumulator_rows(const OutputView &o, const float (&acc)[2][BN / 2],
                                              RowAddress row_address, int co, int channels) {
    static_assert(sizeof(T) == 2 && BN % 32 == 0, "16-bit pairs, whole groups of four j");
    constexpr bool kRunTime = kEpilogue == Epilogue::kRunTime;
    const bool silu = kRunTime ? o.silu != 0 : kEpilogue == Epilogue::kSilu || kEpilogue == Epilogue::kSiluBias;
    const bool with_bias =
        kRunTime ? o.bias != nullptr : kEpilogue == Epilogue::kBias || kEpilogue == Epilogue::kSiluBias;
    const T *const bias = static_cast<const T *>(o.bias);
    const int q = (int)threadIdx.x % 4;
#pragma unroll
    for (int row = 0; row < 4; ++row) {  // (h, r / 2)
        T *const dst = row_address(row);
#pragma unroll
        for (int j4 = 0; j4 < BN / 32; ++j4) {
            uint32_t pairs[4];  // pairs[jj]: this lane's channels 8 (4 j4 + jj) + 2q, + 1 (then transposed)
#pragma unroll
            for (int jj = 0; jj < 4; ++jj) {
                const int j = 4 * j4 + jj, n = 8 * j + 2 * q;
                float v0 = acc[row / 2][4 * j + 2 * (row % 2)], v1 = acc[row / 2][4 * j + 2 * (row % 2) + 1];
                if (with_bias) {
                    v0 += n < channels ? to_float(bias[co + n]) : 0.f;
                    v1 += n + 1 < channels ? to_float(bias[co + n + 1]) : 0.f;
                }
                pairs[jj] = element_bits(from_float<T>(activate_fast(v0, silu))) |
                            element_bits(from_float<T>(activate_fast(v1, silu))) << 16;
            }
            transpose_quad(pairs, q);  // lane q: pair jj of j = 4 j4 + q
            const int n = 8 * (4 * j4 + q);  // this lane's 8 channels
            if (dst == nullptr || n >= channels) continue;
            if (n + 8 <= channels) {
                *reinterpret_cast<uint4 *>(dst + n) = make_uint4(pairs[0], pairs[1], pairs[2], pairs[3]);
            } else {
#pragma unroll
                for (int e = 0; e < 8; ++e) {
                    const uint16_t bits = (uint16_t)(pairs[e / 2] >> (16 * (e % 2)));
                    if (n + e < channels) *reinterpret_cast<uint16_t *>(dst + n + e) = bits;
                }
            }
        }
    }
}

}  // namespace conv3d
}  // namespace hipconv

#endif
