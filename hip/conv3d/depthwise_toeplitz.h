/*
 * What the two matrix-core depthwise conv3d kernels share (depthwise_toeplitz.hip for
 * NCDHW, depthwise_toeplitz_last.hip for NDHWC): a channel's staged input plane is its
 * rows as one flattened sequence, each row followed by a gap of zeros (pitch = row + 8),
 * so that a filter along that sequence is the filter along w of every row with its zero
 * padding, and the 3x3x3 taps are nine Toeplitz bands (kd, kh) along it
 * (hip/common/toeplitz_tile.h):
 *
 *     slot:  | lead 0s | row 0 (ih = oh0-pad1) | 0s | row 1 | 0s | ... | row rows+1 | 0s | tail |
 *              kLead     <------ pitch ------>
 *
 * Output (oh0 + j, ow) sits at e = lead + (j + 1) * pitch + ow + 2; tap (kd, kh, kw) reads
 * input plane od + kd at e + (kh - 1) * pitch + kw - 2 - pad2. Tiles of kTile consecutive e
 * (the band shift kReach - 2 - pad2 keeps them 8-aligned) cover the rows; outputs in the
 * gaps are computed and dropped.
 */
#pragma once

#include <atomic>

#include "launch.h"
#include "toeplitz_tile.h"

namespace hipconv {
namespace depthwise_toeplitz {

using namespace toeplitz;

constexpr int kSlots = 4;             // input planes in the ring: one read, three in flight
constexpr int kBands = 9;             // (kd, kh)
constexpr int kRowVec = 8;            // 16-byte vectors of 16-bit elements: 8 elements
using Band3 = Toeplitz<3>;            // kSteps, kReach of a 3-tap filter
constexpr int kLead = Band3::kReach;  // zeros before row 0 (the first window's reach)
static_assert(kLead % kRowVec == 0, "slot rows 16-byte aligned");
constexpr int kMaxTiles = 4;          // tiles per wave: 2 or kMaxTiles (the kernels' instances)

// n / d and n % d for 0 <= n < 2^22 by a float reciprocal, corrected by one step.
struct SmallDivisor {
    int d;
    float inverse;
    __device__ inline int quotient(int n, int &remainder) const {
        int q = (int)((float)n * inverse);
        int r = n - q * d;
        if (r < 0) q -= 1, r += d;
        if (r >= d) q += 1, r -= d;
        remainder = r;
        return q;
    }
};
inline SmallDivisor small_divisor(int d) { return SmallDivisor{d, 1.f / (float)d}; }

// T(k, n) of band (kd, kh): the tap k - n - shift along w, shift = kReach - 2 - pad[2].
template <typename T> struct DepthwiseBand {
    const T *w;
    int64_t kw_stride;
    int shift;
    __device__ T operator()(int k, int n) const {
        const int kw = k - n - shift;
        return kw >= 0 && kw < 3 ? w[kw * kw_stride] : from_float<T>(0.f);
    }
};

// Leaving a plane loop unrolled by 3 past the chunk's last plane: hipcc unrolls it only
// with a single exit (continue), nvcc keeps the ring in registers with break (as in
// depthwise.hip).
#if defined(HIPCONV_PLATFORM_NVIDIA)
#define HIPCONV_DWT_PAST_CHUNK break
#else
#define HIPCONV_DWT_PAST_CHUNK continue
#endif

// Tiles per wave for `tiles` tiles over `waves` waves: 2 or kMaxTiles.
inline int tiles_per_wave(int tiles, int waves) { return ceil_div(tiles, waves) <= 2 ? 2 : kMaxTiles; }

// Elements a slot needs for `rows` output rows: every staged row, and every window the
// (padded) tiles of `waves` waves read: the last one's reach past the last row, one row down.
inline int slot_elements(int rows, int pitch, int out_w, int waves, int &tiles) {
    tiles = (int)ceil_div((int64_t)(rows - 1) * pitch + out_w + 2, kTile);
    const int windows = kLead + 2 * pitch + waves * tiles_per_wave(tiles, waves) * kTile;
    const int staged = kLead + (rows + 2) * pitch;
    return windows > staged ? windows : staged;
}

// Depth chunks of up to 16 outputs (each re-reads 2 planes), halved down to 8 while the
// grid would be under 8 blocks per SM; `per_chunk` blocks per chunk. Sets *depth_chunk and
// returns the chunks, or sets *err.
inline int depth_chunks(int out_d, int64_t per_chunk, int *depth_chunk, hipError_t *err) {
    int64_t sms = 0;
    *err = cached_device_attribute<hipDeviceAttributeMultiprocessorCount>(&sms);
    int chunk = out_d < 16 ? out_d : 16;
    while (chunk > 8 && per_chunk * ceil_div(out_d, chunk) < 8 * sms) chunk = (chunk + 1) / 2;
    *depth_chunk = chunk;
    return (int)ceil_div(out_d, chunk);
}

}  // namespace depthwise_toeplitz
}  // namespace hipconv
