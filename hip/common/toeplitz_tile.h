/*
 * A filter along one contiguous axis as a matrix product on the matrix cores (f16/bf16,
 * fp32 accumulation): the Toeplitz tile shared by conv1d's wide streaming kernels
 * (hip/conv1d/toeplitz.h, direct_toeplitz_*.hip) and conv3d's depthwise kernel on the
 * matrix cores (hip/conv3d/depthwise_toeplitz.hip).
 *
 * A tile is kTile = 16 · P consecutive outputs of one channel, as 16 blocks of P, computed
 * from the channel's inputs in shared memory (`window`, contiguous, 16-byte aligned):
 *
 *     Y(m, n) = y[t0 + P·m + n]                          16 x P    m: block, n: output
 *     X(m, k) = window[P·m + k]  (= x[t0 + P·m + k - kReach])
 *                                                        16 x K    rows overlap
 *     T(k, n) = band(k, n)                               K x P     the taps' Toeplitz band
 *     Y = X · T,  K = 16 · kSteps >= P + W - 1,  kReach = K - P  (a multiple of 8)
 *
 * For conv1d's causal filter of W taps the band is TapBand: T(k, n) = w[c, k - n - (kReach
 * - W + 1)], 0 outside [0, W), so X's row m ends with output P·m + P - 1's own input; other
 * alignments of the taps in the window are other bands (build_taps takes any).
 * The vendors' matrix steps differ in which operand holds the window:
 *   NVIDIA  P = 8,  kTile = 128: mma.m16n8k16, A = X from ldmatrix.x4 (rows of 16 bytes at
 *           stride 16: conflict-free), B = T; lane (g, q) holds Y(g, 2q..2q+1) and
 *           Y(g+8, 2q..2q+1).
 *   AMD     P = 16, kTile = 256: v_mfma_f32_16x16x16{f16,bf16_1k} computing Y^T = T^T · X^T,
 *           A = T^T, B = X^T from one 8-byte load per lane (matrix_core.h load_b); lane
 *           (r, j) holds Y(r, 4j..4j+3).
 * Either way values 0, 1 and 2, 3 of a lane's kAccValues are two pairs of consecutive
 * outputs (output_offset(0) and output_offset(2) are even).
 * Products are exact in fp32 and summed in fp32 by the matrix unit. An inf or NaN in x
 * reaches the up to K - W outputs whose window holds it with a zero tap (0 · inf).
 */
#pragma once

#include "activation.h"
#include "compat.h"
#include "element.h"
#include "matrix_core.h"
#include "packed.h"

namespace hipconv {
namespace toeplitz {

constexpr int kBlocks = 16;  // m: rows of a tile's product
#if defined(HIPCONV_PLATFORM_AMD)
constexpr int kBlockOutputs = 16;  // P
#else
constexpr int kBlockOutputs = 8;
#endif
constexpr int kTile = kBlocks * kBlockOutputs;

template <int kWidth> struct Toeplitz {
    static constexpr int kSteps = (kBlockOutputs + kWidth - 1 + 15) / 16;
    static constexpr int kReach = 16 * kSteps - kBlockOutputs;
};

// conv1d's causal band, T(k, n) of channel row `w_row`: w_row[k - n - shift], shift =
// kReach - width + 1.
template <typename T> struct TapBand {
    const T *w_row;
    int width, shift;
    __device__ T operator()(int k, int n) const {
        const int i = k - n - shift;
        return i >= 0 && i < width ? w_row[i] : from_float<T>(0.f);
    }
};

#if defined(HIPCONV_PLATFORM_AMD)

// A lane's taps operand of one step: T^T(n, k) as A(n, 16s + k).
template <typename T> using StepTaps = mc::FragA<T>;

// This lane's taps operand of step s, from band(k, n) = T(k, n).
template <typename T, typename Band> __device__ inline StepTaps<T> step_taps(const Band &band, int s) {
    StepTaps<T> f;
    mc::gather_a(f, [&](int n, int k) { return band(16 * s + k, n); });
    return f;
}

// The taps operand of each step into slot[s · wave size + lane], from band(k, n) = T(k, n).
template <typename T, int kSteps, typename Band>
__device__ inline void build_taps(StepTaps<T> *slot, const Band &band) {
    const int l = mc::lane_id();
#pragma unroll 1
    for (int s = 0; s < kSteps; ++s)  // rolled: a channel change is rare, registers are not
        slot[s * HIPCONV_WAVE_SIZE + l] = step_taps<T>(band, s);
}

struct TileAcc {
    mc::Acc c;
};

__device__ inline void zero(TileAcc &acc) { mc::zero(acc.c); }

// Every output of the tile set to `value` (a bias to accumulate onto).
__device__ inline void fill(TileAcc &acc, float value) {
#pragma unroll
    for (int i = 0; i < 4; ++i) acc.c.v[i] = value;
}

// acc += X · T over the window (window[0] = x[f0 - kReach]), taps(s) giving this lane's
// StepTaps of step s; kMasked: only the window elements at offsets [lo, hi) count, the
// others are zero.
template <typename T, int kSteps, bool kMasked, typename Taps>
__device__ inline void accumulate(TileAcc &acc, const T *window, const Taps &taps, int lo, int hi) {
    constexpr int kUnrolled = kMasked ? 1 : kSteps;  // the masked form is rare: rolled, fewer registers
    const int l = mc::lane_id(), r = l % 16, j = l / 16;
#pragma unroll kUnrolled
    for (int s = 0; s < kSteps; ++s) {
        mc::FragB<T> xb;  // X^T(k, m) = window[16 m + 16 s + k]: lane (r, j) holds m = r, k = 4j..4j+3
        mc::load_b(xb, window + 16 * s, kBlockOutputs);
        if (kMasked) {
#pragma unroll
            for (int i = 0; i < 4; ++i) {
                const int e = kBlockOutputs * r + 16 * s + 4 * j + i;
                if (e < lo || e >= hi) xb.v[i] = 0;
            }
        }
        mc::mma(acc.c, taps(s), xb);
    }
}

// The window's operands of every step, loaded once for several products with other taps
// (load_window, then multiply per taps): the unmasked accumulate in two halves.
template <typename T, int kSteps> struct WindowFrags {
    mc::FragB<T> b[kSteps];
};

template <typename T, int kSteps> __device__ inline void load_window(WindowFrags<T, kSteps> &f, const T *window) {
#pragma unroll
    for (int s = 0; s < kSteps; ++s) mc::load_b(f.b[s], window + 16 * s, kBlockOutputs);
}

template <typename T, int kSteps, typename Taps>
__device__ inline void multiply(TileAcc &acc, const WindowFrags<T, kSteps> &f, const Taps &taps) {
#pragma unroll
    for (int s = 0; s < kSteps; ++s) mc::mma(acc.c, taps(s), f.b[s]);
}

// fn(o, value) for each output o (offset from f0) this lane holds: Y(r, 4j + i).
template <typename F> __device__ inline void for_each_output(const TileAcc &acc, const F &fn) {
    const int l = mc::lane_id(), r = l % 16, j = l / 16;
#pragma unroll
    for (int i = 0; i < 4; ++i) fn(kBlockOutputs * r + 4 * j + i, acc.c.v[i]);
}

// Value i (0..kAccValues-1) of a lane's tile and the output it is: Y(r, 4j + i).
constexpr int kAccValues = 4;
__device__ inline float acc_value(const TileAcc &acc, int i) { return acc.c.v[i]; }
constexpr int kSecondPair = 2;  // output_offset(2) - output_offset(0), every lane
__device__ inline int output_offset(int i) {
    const int l = mc::lane_id();
    return kBlockOutputs * (l % 16) + 4 * (l / 16) + i;
}

// The whole tile to y_tile (= y + f0), four consecutive outputs per 8-byte store.
template <typename T, bool kSilu> __device__ inline void store_tile(T *y_tile, const TileAcc &acc, float bias) {
    const int l = mc::lane_id(), r = l % 16, j = l / 16;
    uint32_t word[2];
#pragma unroll
    for (int h = 0; h < 2; ++h)
        word[h] = float_to_bits(T(), activate<kSilu>(acc.c.v[2 * h] + bias)) |
                  float_to_bits(T(), activate<kSilu>(acc.c.v[2 * h + 1] + bias)) << 16;
    *reinterpret_cast<uint2 *>(y_tile + kBlockOutputs * r + 4 * j) = make_uint2(word[0], word[1]);
}

#else /* HIPCONV_PLATFORM_NVIDIA */

// A lane's taps operand of one step: B(k, n) = T(16s + k, n), b0 = T(16s + 2q.., g) and
// b1 = T(16s + 2q + 8.., g).
template <typename T> using StepTaps = uint2;

// This lane's taps operand of step s, from band(k, n) = T(k, n).
template <typename T, typename Band> __device__ inline StepTaps<T> step_taps(const Band &band, int s) {
    const int l = mc::lane_id(), n = l / 4, k0 = 16 * s + 2 * (l % 4);
    return make_uint2(mc::pack(band(k0, n), band(k0 + 1, n)), mc::pack(band(k0 + 8, n), band(k0 + 9, n)));
}

// The taps operand of each step into slot[s · wave size + lane], from band(k, n) = T(k, n).
template <typename T, int kSteps, typename Band>
__device__ inline void build_taps(StepTaps<T> *slot, const Band &band) {
    const int l = mc::lane_id();
#pragma unroll 1
    for (int s = 0; s < kSteps; ++s)  // rolled: a channel change is rare, registers are not
        slot[s * HIPCONV_WAVE_SIZE + l] = step_taps<T>(band, s);
}

struct TileAcc {
    float v[4];  // Y(g, 2q), Y(g, 2q + 1), Y(g + 8, 2q), Y(g + 8, 2q + 1)
};

__device__ inline void zero(TileAcc &acc) {
#pragma unroll
    for (int i = 0; i < 4; ++i) acc.v[i] = 0.f;
}

// Every output of the tile set to `value` (a bias to accumulate onto).
__device__ inline void fill(TileAcc &acc, float value) {
#pragma unroll
    for (int i = 0; i < 4; ++i) acc.v[i] = value;
}

// The pair of window elements (e, e + 1) in `word`, each zeroed outside [lo, hi).
__device__ inline uint32_t keep_pair(uint32_t word, int e, int lo, int hi) {
    const uint32_t low = e >= lo && e < hi ? 0x0000ffffu : 0u;
    const uint32_t high = e + 1 >= lo && e + 1 < hi ? 0xffff0000u : 0u;
    return word & (low | high);
}

// acc += X · T over the window (window[0] = x[f0 - kReach]), taps(s) giving this lane's
// StepTaps of step s; kMasked: only the window elements at offsets [lo, hi) count, the
// others are zero.
template <typename T, int kSteps, bool kMasked, typename Taps>
__device__ inline void accumulate(TileAcc &acc, const T *window, const Taps &taps, int lo, int hi) {
    constexpr int kUnrolled = kMasked ? 1 : kSteps;  // the masked form is rare: rolled, fewer registers
    const int l = mc::lane_id(), g = l / 4, k = 2 * (l % 4);
#pragma unroll kUnrolled
    for (int s = 0; s < kSteps; ++s) {
        uint32_t a[4];  // X(g, k..), X(g + 8, k..), X(g, k + 8..), X(g + 8, k + 8..) of step s
        mc::ldmatrix_a(a, window + 16 * s, kBlockOutputs * (int)sizeof(T));
        if (kMasked) {
            const int e = kBlockOutputs * g + 16 * s + k;
            a[0] = keep_pair(a[0], e, lo, hi);
            a[1] = keep_pair(a[1], e + 8 * kBlockOutputs, lo, hi);
            a[2] = keep_pair(a[2], e + 8, lo, hi);
            a[3] = keep_pair(a[3], e + 8 * kBlockOutputs + 8, lo, hi);
        }
        const uint2 b = taps(s);
        mc::Mma16x8x16<T>::run(acc.v, a, b.x, b.y);
    }
}

// The window's operands of every step, loaded once for several products with other taps
// (load_window, then multiply per taps): the unmasked accumulate in two halves.
template <typename T, int kSteps> struct WindowFrags {
    uint32_t a[kSteps][4];
};

template <typename T, int kSteps> __device__ inline void load_window(WindowFrags<T, kSteps> &f, const T *window) {
#pragma unroll
    for (int s = 0; s < kSteps; ++s) mc::ldmatrix_a(f.a[s], window + 16 * s, kBlockOutputs * (int)sizeof(T));
}

template <typename T, int kSteps, typename Taps>
__device__ inline void multiply(TileAcc &acc, const WindowFrags<T, kSteps> &f, const Taps &taps) {
#pragma unroll
    for (int s = 0; s < kSteps; ++s) {
        const uint2 b = taps(s);
        mc::Mma16x8x16<T>::run(acc.v, f.a[s], b.x, b.y);
    }
}

// fn(o, value) for each output o (offset from f0) this lane holds.
template <typename F> __device__ inline void for_each_output(const TileAcc &acc, const F &fn) {
    const int l = mc::lane_id(), o = kBlockOutputs * (l / 4) + 2 * (l % 4);
    fn(o, acc.v[0]);
    fn(o + 1, acc.v[1]);
    fn(o + 8 * kBlockOutputs, acc.v[2]);
    fn(o + 8 * kBlockOutputs + 1, acc.v[3]);
}

// Value i (0..kAccValues-1) of a lane's tile and the output it is: Y(g, 2q), Y(g, 2q + 1),
// Y(g + 8, 2q), Y(g + 8, 2q + 1).
constexpr int kAccValues = 4;
__device__ inline float acc_value(const TileAcc &acc, int i) { return acc.v[i]; }
constexpr int kSecondPair = 8 * kBlockOutputs;  // output_offset(2) - output_offset(0), every lane
__device__ inline int output_offset(int i) {
    const int l = mc::lane_id();
    return kBlockOutputs * (l / 4 + 8 * (i / 2)) + 2 * (l % 4) + i % 2;
}

// The whole tile to y_tile (= y + f0): two 4-byte stores per lane, 128 contiguous bytes
// per store of the warp.
template <typename T, bool kSilu> __device__ inline void store_tile(T *y_tile, const TileAcc &acc, float bias) {
    const int l = mc::lane_id(), o = kBlockOutputs * (l / 4) + 2 * (l % 4);
#pragma unroll
    for (int h = 0; h < 2; ++h) {
        const T lo = from_float<T>(activate<kSilu>(acc.v[2 * h] + bias));
        const T hi = from_float<T>(activate<kSilu>(acc.v[2 * h + 1] + bias));
        *reinterpret_cast<uint32_t *>(y_tile + o + 8 * kBlockOutputs * h) = mc::pack(lo, hi);
    }
}

#endif

}  // namespace toeplitz
}  // namespace hipconv
