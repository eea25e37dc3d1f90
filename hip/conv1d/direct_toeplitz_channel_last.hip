/*
 * Direct, channel-last, f16/bf16, wide filters, on the matrix cores: the streaming causal
 * conv1d for widths kToeplitzChannelLastFromWidth .. kMaxStreamWidth (compiled as W = 64)
 * with channels contiguous, each channel's outputs computed as the Toeplitz product of
 * toeplitz.h. (Measured on an H100 at (4,2048,4096,w): 39-40% of copy at width 64
 * against 29% for direct_wide_channel_last.hip's FMAs, but 47% against 49% at 32 and
 * 62% against 73% at 8, so narrower filters stay there; docs/PERFORMANCE.md.)
 *
 *   in   x [batch, seqlen, dim] by strides, channels contiguous, rows of 16-byte vectors
 *        (dim and the strides multiples of 8, 16-byte aligned)
 *        w [dim, width], bias [dim] or NULL
 *   out  y [batch, seqlen, dim], the same
 *        y[b,c,t] = act(bias[c] + sum_tap w[c,tap] * x[b,c,t+tap-(width-1)]),  x[..,<0] = 0
 *
 * A block computes C = 8 · waves channels (64 on NVIDIA, 32 on AMD) × kTile times (128 on
 * NVIDIA, 256 on AMD) of one batch row, in three steps through shared memory:
 *
 *   1. stage, transposed: thread r loads the C channels of time t0 - kReach + r (16-byte
 *      vectors, zero before the sequence, past it and past dim) and writes them to
 *      stage[c][r]: a channel's times contiguous, as a channel-first row. (The 32 lanes of
 *      one 2-byte store hold 32 consecutive r: conflict-free.)
 *
 *        stage  c = 0      | kReach history times | kTile times |
 *               ...
 *               c = C - 1  |                      |             |
 *
 *   2. wave w takes channels 8w .. 8w + 7: for each, the Toeplitz product over its row
 *      (toeplitz.h accumulate, the window at stride P) with the channel's taps, which the
 *      block staged as two rows per channel (ChannelLastTile: on NVIDIA each pair of a
 *      lane's operand is one 4-byte word of one of them).
 *   3. each lane holds the same 4 output times of its wave's 8 channels: bias and
 *      activation, rounded and packed into one 16-byte word per time, stored to the output
 *      tile out[o][c] (reusing the stage); then the block writes the tile's rows to y with
 *      16-byte stores along the channels.
 *
 * The history rows (kReach of them) are read again by the block of the previous times
 * (from L2). No masking is needed: every element outside the sequence is a staged zero.
 *
 * Launch: kThreads threads, one block per (batch, channel tile, time tile), time fastest.
 */
#include "activation.h"
#include "compat.h"
#include "direct_paths.h"
#include "element.h"
#include "hipconv/conv1d.h"
#include "launch.h"
#include "packed.h"
#include "toeplitz.h"
#include "vector_rows.h"

namespace hipconv {

namespace {

using namespace toeplitz;

constexpr int kWaveChannels = 8;                  // one 16-byte vector of outputs per time
constexpr int kChannels = kWaves * kWaveChannels;  // C
constexpr int kRowVectors = kChannels / 8;        // 16-byte vectors per staged time
constexpr int kOutLd = kChannels + 8;             // output-tile pitch: 16-byte rows

template <int kWidth> struct ChannelLastTile {
    static constexpr int kReach = Toeplitz<kWidth>::kReach;
    // A channel's taps, as two rows of 16-bit words: row0[j] = w[c, j - Z] (zero outside
    // [0, width)), Z = P + kReach - width, so that T(k, n) = row0[k - n + P - 1]; row1[j] =
    // row0[j + 1], so that every pair of consecutive taps is one aligned 4-byte word of one
    // of the two rows.
    static constexpr int kTapLen = 16 * Toeplitz<kWidth>::kSteps + kBlockOutputs;
    static constexpr int kLd = kReach + kTile;  // staged times per channel (16-byte rows)
    static constexpr int kPasses = (kLd + kThreads - 1) / kThreads;
    static constexpr int kStageElems = kChannels * kLd > kTile * kOutLd ? kChannels * kLd : kTile * kOutLd;
};

// The taps operand of one channel, read per step from its two tap rows (ChannelLastTile).
template <typename T, int kTapLen> struct RowTaps {
    const uint16_t *rows;  // row0, then row1 at rows + kTapLen
#if defined(HIPCONV_PLATFORM_AMD)
    __device__ StepTaps<T> operator()(int s) const {
        StepTaps<T> f;
        mc::gather_a(f, [&](int n, int k) {
            return __builtin_bit_cast(T, rows[16 * s + k - n + kBlockOutputs - 1]);
        });
        return f;
    }
#else
    // b0 = T(16s + 2q .. +1, g) = row0[i], row0[i + 1] with i = 16s + 2q - g + P - 1; b1 the
    // same 8 taps on. An odd i reads row1 from i - 1.
    __device__ uint2 operator()(int s) const {
        const int l = mc::lane_id();
        const int i = 16 * s + 2 * (l % 4) - l / 4 + kBlockOutputs - 1;
        const uint16_t *pair = (i & 1) != 0 ? rows + kTapLen + i - 1 : rows + i;
        return make_uint2(*reinterpret_cast<const uint32_t *>(pair), *reinterpret_cast<const uint32_t *>(pair + 8));
    }
#endif
};

template <typename T, int kWidth, bool kSilu>
__global__ void __launch_bounds__(kThreads) conv1d_direct_toeplitz_channel_last_kernel(hipconv_conv1d_params p,
                                                                                       int time_tiles,
                                                                                       int channel_tiles) {
    using Tile = ChannelLastTile<kWidth>;
    constexpr int kReach = Tile::kReach, kLd = Tile::kLd;
    __shared__ __align__(16) uint16_t stage[Tile::kStageElems];
    __shared__ __align__(4) uint16_t tap_rows[kChannels][2][Tile::kTapLen];

    const int tid = (int)threadIdx.x;
    const int time_tile = (int)(blockIdx.x % (unsigned)time_tiles);
    const int rest = (int)(blockIdx.x / (unsigned)time_tiles);
    const int c0 = rest % channel_tiles * kChannels;
    const int64_t b = rest / channel_tiles;
    const int64_t t0 = (int64_t)time_tile * kTile;

    // 1. Stage the tile and its history, transposed: every load in flight first.
    const T *x_b = static_cast<const T *>(p.x) + b * p.x_batch_stride;
    uint4 raw[Tile::kPasses][kRowVectors];
#pragma unroll
    for (int pass = 0; pass < Tile::kPasses; ++pass) {
        const int r = tid + pass * kThreads;
        const int64_t t = t0 - kReach + r;
        const bool row = r < kLd && t >= 0 && t < p.seqlen;
#pragma unroll
        for (int v = 0; v < kRowVectors; ++v) {
            const int c = c0 + 8 * v;
            raw[pass][v] = row && c < p.dim ? *reinterpret_cast<const uint4 *>(x_b + t * p.x_seq_stride + c)
                                            : make_uint4(0, 0, 0, 0);
        }
    }
    {
        const T *w = static_cast<const T *>(p.w);
        const int shift = kBlockOutputs + kReach - p.width;  // Z
        auto tap = [&](int c, int j) -> uint16_t {
            const int i = j - shift;
            return c < p.dim && i >= 0 && i < p.width ? __builtin_bit_cast(uint16_t, w[(int64_t)c * p.width + i]) : 0;
        };
        for (int idx = tid; idx < kChannels * Tile::kTapLen; idx += kThreads) {
            const int cl = idx / Tile::kTapLen, j = idx % Tile::kTapLen;
            tap_rows[cl][0][j] = tap(c0 + cl, j);
            tap_rows[cl][1][j] = tap(c0 + cl, j + 1);
        }
    }
#pragma unroll
    for (int pass = 0; pass < Tile::kPasses; ++pass) {
        const int r = tid + pass * kThreads;
        if (r < kLd) {
#pragma unroll
            for (int v = 0; v < kRowVectors; ++v)
#pragma unroll
                for (int e = 0; e < 8; ++e)
                    stage[(8 * v + e) * kLd + r] = (uint16_t)(word_of(raw[pass][v], e / 2) >> (16 * (e % 2)));
        }
    }
    __syncthreads();

    // 2. The Toeplitz products of this wave's 8 channels.
    const int wave = tid / HIPCONV_WAVE_SIZE;
    const T *bias_in = static_cast<const T *>(p.bias);
    TileAcc acc[kWaveChannels];
    float bias[kWaveChannels];
#pragma unroll
    for (int ch = 0; ch < kWaveChannels; ++ch) {
        const int cl = kWaveChannels * wave + ch, c = c0 + cl;
        zero(acc[ch]);
        bias[ch] = 0.f;
        if (c < p.dim) {
            const T *row = reinterpret_cast<const T *>(stage) + cl * kLd;
            accumulate<T, Toeplitz<kWidth>::kSteps, false>(acc[ch], row, RowTaps<T, Tile::kTapLen>{&tap_rows[cl][0][0]},
                                                           0, 0);
            if (bias_in != nullptr) bias[ch] = to_float(bias_in[c]);
        }
    }
    __syncthreads();  // the stage becomes the output tile

    // 3. Per output time, the wave's 8 channels as one 16-byte word; then rows to y.
#pragma unroll
    for (int i = 0; i < kAccValues; ++i) {
        float v[kWaveChannels];
#pragma unroll
        for (int ch = 0; ch < kWaveChannels; ++ch) v[ch] = activate<kSilu>(acc_value(acc[ch], i) + bias[ch]);
        *reinterpret_cast<uint4 *>(stage + output_offset(i) * kOutLd + kWaveChannels * wave) = pack<T>(v);
    }
    __syncthreads();
    T *y_b = static_cast<T *>(p.y) + b * p.y_batch_stride;
    for (int idx = tid; idx < kTile * kRowVectors; idx += kThreads) {
        const int o = idx / kRowVectors, v = idx % kRowVectors;
        const int64_t t = t0 + o;
        const int c = c0 + 8 * v;
        if (t < p.seqlen && c < p.dim)
            *reinterpret_cast<uint4 *>(y_b + t * p.y_seq_stride + c) =
                *reinterpret_cast<const uint4 *>(stage + o * kOutLd + 8 * v);
    }
}

template <typename T, int kWidth> hipconv_status_t launch_width(const hipconv_conv1d_params &p, hipStream_t stream) {
    const int64_t time_tiles = ceil_div((int64_t)p.seqlen, (int64_t)kTile);
    const int64_t channel_tiles = ceil_div((int64_t)p.dim, (int64_t)kChannels);
    const int64_t blocks = time_tiles * channel_tiles * p.batch;
    if (blocks > INT32_MAX) return (hipconv_status_t)hipErrorInvalidValue;
    return with_silu(p.silu != 0, [&](auto silu) {
        hipLaunchKernelGGL((conv1d_direct_toeplitz_channel_last_kernel<T, kWidth, decltype(silu)::value>),
                           dim3((unsigned)blocks), dim3(kThreads), 0, stream, p, (int)time_tiles, (int)channel_tiles);
        return last_launch_status();
    });
}

}  // namespace

template <typename T> bool direct_toeplitz_channel_last_fits(const hipconv_conv1d_params &p) {
    return sizeof(T) == 2 && p.width > kToeplitzChannelLastFromWidth - 1 && p.width <= kMaxStreamWidth &&
           p.x_dim_stride < p.x_seq_stride &&
           rows_vectorizable<T, true>(p.x, p.x_batch_stride, p.x_dim_stride, p.x_seq_stride, p.dim, p.seqlen) &&
           rows_vectorizable<T, true>(p.y, p.y_batch_stride, p.y_dim_stride, p.y_seq_stride, p.dim, p.seqlen);
}

template <typename T>
hipconv_status_t launch_direct_toeplitz_channel_last(const hipconv_conv1d_params &p, hipStream_t stream) {
    if constexpr (sizeof(T) == 2) {
        if (p.width <= 64) return launch_width<T, 64>(p, stream);
    }
    return (hipconv_status_t)hipErrorInvalidValue;
}

#define HIPCONV_INSTANTIATE(T)                                                           \
    template bool direct_toeplitz_channel_last_fits<T>(const hipconv_conv1d_params &);   \
    template hipconv_status_t launch_direct_toeplitz_channel_last<T>(const hipconv_conv1d_params &, hipStream_t);
HIPCONV_INSTANTIATE(__half)
HIPCONV_INSTANTIATE(hipconv_bf16)
HIPCONV_INSTANTIATE(float)
#undef HIPCONV_INSTANTIATE

}  // namespace hipconv
