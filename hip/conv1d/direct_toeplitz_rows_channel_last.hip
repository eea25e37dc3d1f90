/*
 * Direct, channel-last, f16/bf16, widths kRowsChannelLastFromWidth .. 64 on NVIDIA's matrix
 * cores, from rows staged as they lie: the streaming causal conv1d with channels
 * contiguous, each channel's outputs the Toeplitz product of toeplitz_tile.h
 * (mma.m16n8k16, P = 8: 128 outputs of a channel per product), its window operand
 * assembled in registers from 16-byte reads of 8 channels instead of a transposed copy in
 * shared memory (direct_toeplitz_channel_last.hip, which AMD keeps). Compiled per kSteps =
 * 1..5 (K = 16 kSteps >= P + width - 1).
 *
 *   in   x [batch, seqlen, dim] by strides, channels contiguous in 16-byte vectors
 *        (rows_vectorizable: dim and the strides multiples of 8, 16-byte aligned)
 *        w [dim, width], bias [dim] or NULL
 *   out  y [batch, seqlen, dim], the same
 *        y[b,c,t] = act(bias[c] + sum_tap w[c,tap] * x[b,c,t+tap-(width-1)]),  x[..,<0] = 0
 *
 * A tile is 64 channels x kTimes = 256 times (128 where one step suffices) of one batch
 * row. Its rows, times t0 - kReach .. t0 + kTimes - 1 (zero before the sequence, past it
 * and past dim), are copied into a stage by cp.async as they lie in memory, 128 bytes a
 * row; chunk j (channels 8j .. 8j + 7) of row r sits at chunk position j ^ (r / 2 % 8):
 *
 *   stage row r      chunk 0 | chunk 1 | ... | chunk 7      (positions swizzled)
 *   0 .. kReach-1    history: times t0 - kReach .. t0 - 1
 *   kReach ..        the tile's times; after the products, their outputs
 *
 * Warp w owns chunk w: 8 channels, one product of 128 times per 128 times of the tile. In
 * step s of a product the window operand of lane (g, q) = (lane / 4, lane % 4) is four
 * pairs of times (e, e + 1), e = 8g + 2q + 16s + {0, 64, 8, 72} (X(m, k) = row 8m + k): per
 * pair two 16-byte reads (rows e and e + 1, the 8 channels each) and eight byte permutes
 * give the pair of each of the 8 channels. A quarter warp's 8 lanes read rows 2 apart, so
 * 8 distinct chunk positions: conflict-free. Then one mma per channel against its taps
 * operand, read from the channel's two rows of 16-bit taps (RowsTile; built when the
 * block's channel tile changes).
 *
 * Lane (g, q) ends a product with times 8g + 2q + {0, 1, 64, 65} of its warp's 8 channels:
 * with bias and the activation, one 16-byte word per time, written over the stage's row
 * kReach + time in the warp's own chunk (no other warp reads it; a later product runs
 * first, so no window still to be read is overwritten). After a barrier the block stores
 * the tile's rows to y, 16 bytes a thread, 128 contiguous bytes a row.
 *
 * Tiles are numbered channel tile fastest, then time tile, then batch row. The grid is one
 * resident wave cut to a whole number of channel tiles where it holds them, in a
 * grid-stride loop: each block keeps its channel tile (and taps), and the wave reads whole
 * rows of x at a time, a tile's history being the tile before it in time, read by another
 * block a loop earlier (an L2 hit). Two stages, the next tile's copies in flight:
 *   wait for tile u's copies; barrier (tile u visible, the previous tile's stores done)
 *   copy tile u + grid into the other stage
 *   products, outputs into the stage; barrier; the rows to y
 * (Measured on an H100, docs/PERFORMANCE.md: two stages beat three and four; 256 times a
 * tile beat 128 from two steps on, 128 beat 256 for one. With SiLU at widths 10-16 the
 * register-window kernel is faster, and Direct runs it there.)
 * The copies and the products come in two forms of the same arithmetic: each address worked
 * out per row and chunk (issue_tile, warp_products), or once a tile and stepped
 * (issue_tile_walk, warp_products_walk); kWalks picks the walking forms from three steps on
 * and with SiLU, where they measured 4-10 points of copy faster, and the others at one and
 * two steps without SiLU, where the walking forms measured 2 (one step) and 4-6 (two)
 * points slower.
 *
 * Launch: kThreads threads (two blocks an SM: at most 128 registers),
 * RowsTile<kSteps>::kSharedBytes of dynamic shared memory (opted in), the grid above.
 */
#include <atomic>

#include "activation.h"
#include "block_copy.h"
#include "compat.h"
#include "direct_paths.h"
#include "element.h"
#include "hipconv/conv1d.h"
#include "launch.h"
#include "packed.h"
#include "toeplitz_tile.h"
#include "vector_rows.h"

namespace hipconv {

#if defined(HIPCONV_PLATFORM_NVIDIA)

namespace {

using toeplitz::kBlockOutputs;  // P = 8 outputs per row of the product
using toeplitz::kTile;          // 128 outputs of a channel per product

constexpr int kThreads = 256;
constexpr int kRowBytes = 128;  // a staged row: 64 channels of 16 bits
constexpr int kChunks = kRowBytes / 16;
constexpr int kWarpChannels = 8;  // a warp's chunk
constexpr int kChannels = kChunks * kWarpChannels;
constexpr int kStages = 2;
static_assert(kThreads / 32 == kChunks, "one warp per chunk");

template <int kSteps> struct RowsTile {
    static constexpr int kReach = 16 * kSteps - kBlockOutputs;  // history rows
    // Products of 128 times per warp and tile: two (256 times) from two steps on, one for
    // a single step (measured on an H100: 82% of copy with two against 78% with one at
    // width 16; 82% with one against 78% with two at width 9).
    static constexpr int kProducts = kSteps == 1 ? 1 : 2;
    static constexpr int kTimes = kProducts * kTile;  // the tile's times
    static constexpr int kRows = kReach + kTimes;
    static constexpr int kStageBytes = kRows * kRowBytes;
    // A channel's taps as two rows of 16-bit taps: row0[j] = w[c, j - Z] (zero outside
    // [0, width)), Z = P + kReach - width, so that T(k, n) = row0[k - n + P - 1]; row1[j] =
    // row0[j + 1], so that every pair of consecutive taps is one aligned word of one of the
    // two. Row 1 starts kTapPitch words after row 0, kTapPitch = 16 mod 32: a lane's pair
    // comes from row 0 or row 1 by parity, and the two rows' words fall in distinct banks.
    static constexpr int kTapLen = 16 * kSteps + kBlockOutputs;  // elements of a tap row
    static constexpr int kTapPitch = (kTapLen / 2 + 15) / 32 * 32 + 16;
    static constexpr int kTapBytes = kChannels * 2 * kTapPitch * 4;
    // The stages, then the tap rows, then the channel tile's bias (fp32; 0 past dim or
    // without bias).
    static constexpr int kSharedBytes = kStages * kStageBytes + kTapBytes + kChannels * 4;
    static_assert(kTapPitch >= kTapLen / 2, "row 0 ends before row 1");
};

// Byte offset of 16-byte chunk j of stage row r.
__device__ inline int chunk_offset(int r, int j) { return r * kRowBytes + ((j ^ (r >> 1)) & (kChunks - 1)) * 16; }

__device__ inline uint4 load_chunk(const unsigned char *stage, int r, int j) {
    return *reinterpret_cast<const uint4 *>(stage + chunk_offset(r, j));
}

// Where tile u lies: channel tile fastest, then time tile, then batch row.
struct TilePlace {
    int64_t b, time_tile;
    int channel_tile;
};

__device__ inline TilePlace place_of(int64_t u, int64_t time_tiles, int64_t channel_tiles) {
    const QuotientRemainder by_channel = divide(u, channel_tiles);
    const QuotientRemainder by_time = divide(by_channel.quotient, time_tiles);
    return TilePlace{by_time.quotient, by_time.remainder, (int)by_channel.remainder};
}

// The copies of the tile at `at` into `stage` (one commit group is closed by the caller).
template <typename T, int kSteps>
__device__ inline void issue_tile(unsigned char *stage, const hipconv_conv1d_params &p, const TilePlace &at) {
    using Tile = RowsTile<kSteps>;
    const T *x_b = static_cast<const T *>(p.x) + at.b * p.x_batch_stride;
    const int64_t t_first = at.time_tile * Tile::kTimes - Tile::kReach;
    const int c0 = at.channel_tile * kChannels;
    for (int i = (int)threadIdx.x; i < Tile::kRows * kChunks; i += kThreads) {
        const int r = i / kChunks, j = i % kChunks;
        const int64_t tau = t_first + r;
        const int c = c0 + 8 * j;
        const bool inside = tau >= 0 && tau < p.seqlen && c < p.dim;
        copy16_one(inside ? x_b + tau * p.x_seq_stride + c : nullptr, stage + chunk_offset(r, j), p.x);
    }
}

// issue_tile with each thread's addresses stepped: thread t copies chunk t % 8 of rows
// t / 8 + 32k, whose chunk position is the same in every such row (the swizzle's r / 2 % 8
// repeats every 16 rows).
template <typename T, int kSteps>
__device__ inline void issue_tile_walk(unsigned char *stage, const hipconv_conv1d_params &p, const TilePlace &at) {
    using Tile = RowsTile<kSteps>;
    constexpr int kRowsPerPass = kThreads / kChunks;
    const int j = (int)threadIdx.x % kChunks, r0 = (int)threadIdx.x / kChunks;
    const int c = at.channel_tile * kChannels + 8 * j;
    int64_t tau = at.time_tile * Tile::kTimes - Tile::kReach + r0;
    const T *src = static_cast<const T *>(p.x) + at.b * p.x_batch_stride + tau * p.x_seq_stride + c;
    const int64_t src_step = kRowsPerPass * p.x_seq_stride;
    unsigned char *dst = stage + chunk_offset(r0, j);
    const bool channel_in = c < p.dim;
#pragma unroll 4
    for (int r = r0; r < Tile::kRows; r += kRowsPerPass) {
        const bool inside = channel_in && tau >= 0 && tau < p.seqlen;
        copy16_one(inside ? src : nullptr, dst, p.x);
        tau += kRowsPerPass;
        src += src_step;
        dst += kRowsPerPass * kRowBytes;
    }
}

// The tap rows and bias of the channel tile at c0 (every thread writes some; a barrier
// follows).
template <typename T, int kSteps>
__device__ inline void build_tap_rows(uint16_t *rows, float *bias, const hipconv_conv1d_params &p, int c0) {
    using Tile = RowsTile<kSteps>;
    const T *w = static_cast<const T *>(p.w);
    const T *bias_in = static_cast<const T *>(p.bias);
    if (threadIdx.x < kChannels) {
        const int c = c0 + (int)threadIdx.x;
        bias[threadIdx.x] = bias_in != nullptr && c < p.dim ? to_float(bias_in[c]) : 0.f;
    }
    const int shift = kBlockOutputs + Tile::kReach - p.width;  // Z
    auto tap = [&](int c, int j) -> uint16_t {
        const int i = j - shift;
        return c < p.dim && i >= 0 && i < p.width ? __builtin_bit_cast(uint16_t, w[(int64_t)c * p.width + i]) : 0;
    };
    for (int idx = (int)threadIdx.x; idx < kChannels * Tile::kTapLen; idx += kThreads) {
        const int cl = idx / Tile::kTapLen, j = idx % Tile::kTapLen;
        uint16_t *row0 = rows + cl * 4 * Tile::kTapPitch;  // 2 rows of kTapPitch words
        row0[j] = tap(c0 + cl, j);
        row0[2 * Tile::kTapPitch + j] = tap(c0 + cl, j + 1);
    }
}

// This lane's taps operand of step s for the channel whose rows start at `rows`: b0 =
// T(16s + 2q .. +1, g) = row0[i], row0[i + 1] with i = 16s + 2q - g + P - 1 (row 1 from
// i - 1 where i is odd), b1 the same 8 taps on.
template <int kSteps> __device__ inline uint2 step_taps(const uint16_t *rows, int s, int lane) {
    const int i = 16 * s + 2 * (lane % 4) - lane / 4 + kBlockOutputs - 1;
    const uint16_t *pair = (i & 1) != 0 ? rows + 2 * RowsTile<kSteps>::kTapPitch + i - 1 : rows + i;
    return make_uint2(*reinterpret_cast<const uint32_t *>(pair), *reinterpret_cast<const uint32_t *>(pair + 8));
}

// Operand register r of the warp's 8 channels from the chunks of two consecutive rows (times
// e, e + 1): word v of each holds channels 2v, 2v + 1, and a[c][r] = (x[e][c], x[e + 1][c]).
__device__ inline void split_pairs(uint32_t (&a)[kWarpChannels][4], int r, const uint4 &now, const uint4 &next) {
#pragma unroll
    for (int v = 0; v < 4; ++v) {
        a[2 * v][r] = __byte_perm(word_of(now, v), word_of(next, v), 0x5410);
        a[2 * v + 1][r] = __byte_perm(word_of(now, v), word_of(next, v), 0x7632);
    }
}

// The warp's 8 channels of the tile in `stage`: per 128 times the products, then bias,
// activation and the outputs over rows kReach .. of its chunk. The last 128 times go first:
// the outputs of times 128p .. land on rows that only the windows of later times read.
template <typename T, int kSteps, bool kSilu>
__device__ inline void warp_products(unsigned char *stage, const uint16_t *tap_rows, const float *bias, int warp,
                                     int lane) {
    using Tile = RowsTile<kSteps>;
#pragma unroll 1
    for (int product = Tile::kProducts - 1; product >= 0; --product) {
        const int e0 = kTile * product + 8 * (lane / 4) + 2 * (lane % 4);
        float acc[kWarpChannels][4];
#pragma unroll
        for (int ch = 0; ch < kWarpChannels; ++ch)
#pragma unroll
            for (int i = 0; i < 4; ++i) acc[ch][i] = 0.f;
        // Steps rolled: unrolled, ptxas holds several steps' operands and spills at 128 registers.
#pragma unroll 1
        for (int s = 0; s < kSteps; ++s) {
            uint32_t a[kWarpChannels][4];  // X(g, k..), X(g + 8, k..), X(g, k + 8..), X(g + 8, k + 8..), k = 16s + 2q
#pragma unroll
            for (int r = 0; r < 4; ++r) {
                const int e = e0 + 16 * s + (r % 2) * 64 + (r / 2) * 8;
                const uint4 now = load_chunk(stage, e, warp), next = load_chunk(stage, e + 1, warp);
                split_pairs(a, r, now, next);
            }
#pragma unroll
            for (int ch = 0; ch < kWarpChannels; ++ch) {
                const uint2 b =
                    step_taps<kSteps>(tap_rows + (warp * kWarpChannels + ch) * 4 * Tile::kTapPitch, s, lane);
                mc::Mma16x8x16<T>::run(acc[ch], a[ch], b.x, b.y);
            }
        }
        // Every lane's reads of these rows are behind the warp's last mma.sync; the warp's
        // own chunk of them now takes its outputs.
#pragma unroll
        for (int i = 0; i < 4; ++i) {  // Y(g, 2q), Y(g, 2q + 1), Y(g + 8, 2q), Y(g + 8, 2q + 1)
            float v[kWarpChannels];
#pragma unroll
            for (int ch = 0; ch < kWarpChannels; ++ch)
                v[ch] = activate<kSilu>(acc[ch][i] + bias[warp * kWarpChannels + ch]);
            const int r = Tile::kReach + e0 + (i / 2) * 64 + i % 2;
            *reinterpret_cast<uint4 *>(stage + chunk_offset(r, warp)) = pack<T>(v);
        }
    }
}

// warp_products with every address worked out once a product: the rows e0 + 16s + {0, 64}
// (+1) share one chunk position and the rows e0 + 16s + {8, 72} (+1) the other ((r / 2) % 8
// is e0 / 2 % 8, or that ^ 4); the lane's taps pair offset is fixed; the outputs' rows
// kReach + e0 + {0, 1, 64, 65} have the second chunk position (kReach / 2 % 8 is 4).
template <typename T, int kSteps, bool kSilu>
__device__ inline void warp_products_walk(unsigned char *stage, const uint16_t *tap_rows, const float *bias, int warp,
                                          int lane) {
    using Tile = RowsTile<kSteps>;
    const int g = lane / 4, q = lane % 4;
    const int i0 = 2 * q - g + kBlockOutputs - 1;  // step_taps' pair index at s = 0
    const uint16_t *lane_taps =
        tap_rows + warp * kWarpChannels * 4 * Tile::kTapPitch + ((i0 & 1) != 0 ? 2 * Tile::kTapPitch + i0 - 1 : i0);
#pragma unroll 1
    for (int product = Tile::kProducts - 1; product >= 0; --product) {
        const int e0 = kTile * product + 8 * g + 2 * q;
        const int sw = (e0 >> 1) & 7;
        const unsigned char *pa = stage + e0 * kRowBytes + ((warp ^ sw) & 7) * 16;
        const unsigned char *pb = stage + e0 * kRowBytes + ((warp ^ sw ^ 4) & 7) * 16;
        float acc[kWarpChannels][4];
#pragma unroll
        for (int ch = 0; ch < kWarpChannels; ++ch)
#pragma unroll
            for (int i = 0; i < 4; ++i) acc[ch][i] = 0.f;
#pragma unroll 1
        for (int s = 0; s < kSteps; ++s) {
            uint32_t a[kWarpChannels][4];  // as in warp_products
            const unsigned char *ra = pa + s * 16 * kRowBytes, *rb = pb + s * 16 * kRowBytes;
            const unsigned char *row[4] = {ra, ra + 64 * kRowBytes, rb + 8 * kRowBytes, rb + 72 * kRowBytes};
#pragma unroll
            for (int r = 0; r < 4; ++r) {
                const uint4 now = *reinterpret_cast<const uint4 *>(row[r]);
                const uint4 next = *reinterpret_cast<const uint4 *>(row[r] + kRowBytes);
                split_pairs(a, r, now, next);
            }
            const uint16_t *step_pairs = lane_taps + 16 * s;
#pragma unroll
            for (int ch = 0; ch < kWarpChannels; ++ch) {
                const uint16_t *pair = step_pairs + ch * 4 * Tile::kTapPitch;
                mc::Mma16x8x16<T>::run(acc[ch], a[ch], *reinterpret_cast<const uint32_t *>(pair),
                                       *reinterpret_cast<const uint32_t *>(pair + 8));
            }
        }
        unsigned char *const out = stage + (Tile::kReach + e0) * kRowBytes + ((warp ^ sw ^ 4) & 7) * 16;
        const float4 bias_lo = *reinterpret_cast<const float4 *>(bias + warp * kWarpChannels);
        const float4 bias_hi = *reinterpret_cast<const float4 *>(bias + warp * kWarpChannels + 4);
        const float bias_c[kWarpChannels] = {bias_lo.x, bias_lo.y, bias_lo.z, bias_lo.w,
                                             bias_hi.x, bias_hi.y, bias_hi.z, bias_hi.w};
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            float v[kWarpChannels];
#pragma unroll
            for (int ch = 0; ch < kWarpChannels; ++ch) v[ch] = activate<kSilu>(acc[ch][i] + bias_c[ch]);
            *reinterpret_cast<uint4 *>(out + ((i / 2) * 64 + i % 2) * kRowBytes) = pack<T>(v);
        }
    }
}

// Which form a kernel instance runs (measured on an H100, docs/PERFORMANCE.md: the walking
// forms 4-10 points of copy faster from three steps on and with SiLU, 2 and 4-6 slower at
// one and two steps without it, and the one-step instance without SiLU spills with them).
template <int kSteps, bool kSilu> constexpr bool kWalks = kSteps >= 3 || kSilu;

template <typename T, int kSteps, bool kSilu>
__device__ inline void issue(unsigned char *stage, const hipconv_conv1d_params &p, const TilePlace &at) {
    if constexpr (kWalks<kSteps, kSilu>)
        issue_tile_walk<T, kSteps>(stage, p, at);
    else
        issue_tile<T, kSteps>(stage, p, at);
}

template <typename T, int kSteps, bool kSilu>
__global__ void __launch_bounds__(kThreads, 2) conv1d_direct_toeplitz_rows_channel_last_kernel(hipconv_conv1d_params p,
                                                                                               int64_t time_tiles,
                                                                                               int64_t channel_tiles) {
    using Tile = RowsTile<kSteps>;
    extern __shared__ __align__(16) unsigned char rows_shared[];
    uint16_t *const tap_rows = reinterpret_cast<uint16_t *>(rows_shared + kStages * Tile::kStageBytes);
    float *const bias = reinterpret_cast<float *>(rows_shared + kStages * Tile::kStageBytes + Tile::kTapBytes);

    const int64_t tiles = time_tiles * channel_tiles * p.batch;
    const int64_t grid = gridDim.x;
    const int warp = (int)threadIdx.x / 32, lane = (int)threadIdx.x % 32;

#pragma unroll
    for (int s = 0; s < kStages - 1; ++s) {
        const int64_t v = blockIdx.x + s * grid;
        if (v < tiles)
            issue<T, kSteps, kSilu>(rows_shared + s * Tile::kStageBytes, p, place_of(v, time_tiles, channel_tiles));
        copy_commit();
    }
    int built = -1;  // the channel tile whose taps are in tap_rows
    int stage = 0;
    for (int64_t u = blockIdx.x; u < tiles; u += grid, stage = stage + 1 == kStages ? 0 : stage + 1) {
        const TilePlace at = place_of(u, time_tiles, channel_tiles);
        if (at.channel_tile != built) {  // the same for the whole block; the old taps' last reads are behind a barrier
            build_tap_rows<T, kSteps>(tap_rows, bias, p, at.channel_tile * kChannels);
            built = at.channel_tile;
        }
        copy_wait<kStages - 2>();
        __syncthreads();  // tile u landed for all; tile u - grid's rows are stored (its stage is free)
        const int64_t v = u + (kStages - 1) * grid;
        if (v < tiles) {
            const int refill = stage == 0 ? kStages - 1 : stage - 1;
            issue<T, kSteps, kSilu>(rows_shared + refill * Tile::kStageBytes, p,
                                    place_of(v, time_tiles, channel_tiles));
        }
        copy_commit();

        unsigned char *const rows = rows_shared + stage * Tile::kStageBytes;
        if constexpr (kWalks<kSteps, kSilu>)
            warp_products_walk<T, kSteps, kSilu>(rows, tap_rows, bias, warp, lane);
        else
            warp_products<T, kSteps, kSilu>(rows, tap_rows, bias, warp, lane);
        __syncthreads();  // every warp's outputs are in the stage

        T *const y_b = static_cast<T *>(p.y) + at.b * p.y_batch_stride;
        const int64_t t0 = at.time_tile * Tile::kTimes;
        const int c0 = at.channel_tile * kChannels;
#pragma unroll
        for (int pass = 0; pass < Tile::kTimes * kChunks / kThreads; ++pass) {
            const int i = (int)threadIdx.x + pass * kThreads;
            const int o = i / kChunks, j = i % kChunks;
            const int64_t t = t0 + o;
            const int c = c0 + 8 * j;
            if (t < p.seqlen && c < p.dim)
                *reinterpret_cast<uint4 *>(y_b + t * p.y_seq_stride + c) = load_chunk(rows, Tile::kReach + o, j);
        }
    }
}

template <typename T, int kSteps> hipconv_status_t launch_steps(const hipconv_conv1d_params &p, hipStream_t stream) {
    using Tile = RowsTile<kSteps>;
    return with_silu(p.silu != 0, [&](auto silu) -> hipconv_status_t {
        auto kernel = conv1d_direct_toeplitz_rows_channel_last_kernel<T, kSteps, decltype(silu)::value>;
        static std::atomic<int64_t> shared_cache[kMaxCachedDevices];
        static std::atomic<int64_t> resident_cache[kMaxCachedDevices];
        HIPCONV_RETURN_IF_ERROR(allow_dynamic_shared(kernel, Tile::kSharedBytes, shared_cache));
        int64_t resident = 0;
        HIPCONV_RETURN_IF_ERROR(resident_blocks(kernel, kThreads, resident_cache, &resident, Tile::kSharedBytes));
        const int64_t time_tiles = ceil_div((int64_t)p.seqlen, (int64_t)Tile::kTimes);
        const int64_t channel_tiles = ceil_div((int64_t)p.dim, (int64_t)kChannels);
        const int64_t tiles = time_tiles * channel_tiles * p.batch;
        // A whole number of channel rows when one wave holds them: each block keeps its
        // channel tile (its taps) and the wave reads whole rows of x at a time.
        const int64_t wave = channel_tiles <= resident ? resident / channel_tiles * channel_tiles : resident;
        const int64_t blocks = tiles < wave ? tiles : wave;
        hipLaunchKernelGGL(kernel, dim3((unsigned)blocks), dim3(kThreads), Tile::kSharedBytes, stream, p, time_tiles,
                           channel_tiles);
        return last_launch_status();
    });
}

}  // namespace

template <typename T> bool direct_toeplitz_rows_channel_last_fits(const hipconv_conv1d_params &p) {
    // With SiLU past one step (widths 10 .. kWindowMaxWidth) the register-window kernel is
    // faster: this kernel's epilogue (two MUFU operations an output) runs between its
    // barriers (H100, width 16: 76-79% of copy against 73%).
    if (p.silu != 0 && p.width > kRowsOneStepMaxWidth && p.width <= kWindowMaxWidth) return false;
    return sizeof(T) == 2 && p.width >= kRowsChannelLastFromWidth && p.width <= kMaxStreamWidth &&
           p.x_dim_stride < p.x_seq_stride && p.y_dim_stride < p.y_seq_stride &&
           rows_vectorizable<T, true>(p.x, p.x_batch_stride, p.x_dim_stride, p.x_seq_stride, p.dim, p.seqlen) &&
           rows_vectorizable<T, true>(p.y, p.y_batch_stride, p.y_dim_stride, p.y_seq_stride, p.dim, p.seqlen);
}

template <typename T>
hipconv_status_t launch_direct_toeplitz_rows_channel_last(const hipconv_conv1d_params &p, hipStream_t stream) {
    if constexpr (sizeof(T) == 2) {
        switch ((kBlockOutputs + p.width - 1 + 15) / 16) {  // kSteps: K = 16 kSteps >= P + width - 1
        case 1: return launch_steps<T, 1>(p, stream);
        case 2: return launch_steps<T, 2>(p, stream);
        case 3: return launch_steps<T, 3>(p, stream);
        case 4: return launch_steps<T, 4>(p, stream);
        case 5: return launch_steps<T, 5>(p, stream);
        default: break;
        }
    }
    return (hipconv_status_t)hipErrorInvalidValue;
}

#else  // AMD: direct_toeplitz_channel_last.hip and the FMA kernels keep these shapes.

template <typename T> bool direct_toeplitz_rows_channel_last_fits(const hipconv_conv1d_params &) { return false; }

template <typename T>
hipconv_status_t launch_direct_toeplitz_rows_channel_last(const hipconv_conv1d_params &, hipStream_t) {
    return (hipconv_status_t)hipErrorInvalidValue;
}

#endif

#define HIPCONV_INSTANTIATE(T)                                                                \
    template bool direct_toeplitz_rows_channel_last_fits<T>(const hipconv_conv1d_params &);   \
    template hipconv_status_t launch_direct_toeplitz_rows_channel_last<T>(const hipconv_conv1d_params &, hipStream_t);
HIPCONV_INSTANTIATE(__half)
HIPCONV_INSTANTIATE(hipconv_bf16)
HIPCONV_INSTANTIATE(float)
#undef HIPCONV_INSTANTIATE

}  // namespace hipconv
