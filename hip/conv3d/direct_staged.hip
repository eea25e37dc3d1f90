/*
 * Tiled conv3d, staged-strip direct kernel: the part of Tiled's direct path (tiled.hip) for
 * 3x3 taps on h and w (stride and dilation 1 there), at most kMaxStagedSlabs = 9 (ci, kd) slabs per
 * group, cout_g <= 16 and no initial frames, in any layout of x and y. The seed example's
 * shape (cin 3, cout 8, 3x3x3) in NDHWC is what it is for: there a thread reading its own
 * patch from global memory (direct_slabs.hip, NCDHW only) would find each tap's 32 lanes
 * spread over three times the cache lines, so the block stages its strip of x once,
 * coalesced, and every thread reads its patch from shared memory as if x were NCDHW.
 *
 * Two launches (tiled.hip tries the first before the register-slab kernel, the second after):
 *   - one wave, chained (a grid of at most one block an SM where chained_launch_enabled(),
 *     so on sm_90 and newer; any layout, the seed's shape in NCDHW too): a programmatic
 *     follower of the kernel before it, whose blocks are placed beside that kernel's and
 *     compute every address (1a below) before they wait for it, so that only the loads,
 *     the FMAs and the stores follow its end. ptxas would put a plain wait first and the
 *     arithmetic after it (half of the ~550 instructions a warp runs before the barrier);
 *     begin_chained_kernel_after() keeps it before. The seed's shape: 5.5 -> 4.85 us NCDHW
 *     (from the register-slab kernel), 5.5 -> 4.75 NDHWC (H200, docs/PERFORMANCE.md
 *     "Fortieth session").
 *   - otherwise an ordinary launch, which never waits (chained, a grid of several waves ran
 *     2% slower: the next launch's blocks, placed beside this one's last wave, start unevenly
 *     spread over the SMs).
 *
 *   in   x [batch, cin, in[0..2]] by x_stride, w [cout, cin_g, kernel[0], 3, 3] by w_stride,
 *        bias [cout] or NULL
 *   out  y [batch, cout, out[0..2]] by y_stride, fp32 accumulation
 *
 * Block: a tile of kTileRows x kTileCols = 16 x 32 outputs at one (n, od) for kBlockCout =
 * 4 * kHalves output channels of a group (kHalves = 2 where cout_g > 4). Its 128 * kHalves
 * threads are kHalves channel quarters of 128 position threads; a position thread owns 4
 * consecutive output columns of one row for 4 channels (16 fp32 accumulators). Grid:
 * (tiles of a frame, batch x out[0], groups x channel chunks), one tile per block.
 *
 *   staged strip, per slab s = (ci, kd)          position thread (row r, column group q)
 *     18 rows x 34 columns of fp32, column 0 =     window: staged row r + kh, columns 4q ..
 *     iw = ow_tile - pad[2], row 0 = ih =          4q + 5 (three 8-byte shared reads; rows
 *     oh_tile - pad[1]; zeros outside x            are 34 words apart, so the two rows of a
 *                                                  half-warp use disjoint banks)
 *      col 0        4q     4q+5       33           taps: one broadcast 16-byte read per
 *     +---------------------------------+          (s, kh, kw) for its 4 channels
 *     | . . . .   [w w w w w w]   . . . | row r+kh  acc[c][j] += win[c + kw] * tap[j]
 *     +---------------------------------+
 *
 *   1. the addresses of every slab's share of the strip (3 elements a thread with 256
 *      threads) and of the block's taps; then (the chained form waits here) the loads,
 *      spread evenly over the threads: all loads in flight, then
 *      stored to shared memory, one barrier (which waits for the slowest warp: the taps
 *      as 9 loads in each of the first 3 warps instead of 3 in every warp measured 9%
 *      slower at the seed's size);
 *   2. per slab, per kh: the window, then 3 taps x 4 columns x 4 channels FMAs;
 *   3. bias (the accumulators' start), SiLU, stores: where y's channel stride is 1 (NDHWC;
 *      aligned, cout_g a multiple of 4) the block's tile goes back through shared memory
 *      (the strip's space) so that consecutive lanes store consecutive 4-channel vectors;
 *      else a thread stores its own outputs, 4 columns as one vector where y's w stride is
 *      1 (aligned, whole), or element by element.
 *
 * Offsets: in-plane byte offsets of x and tap offsets of one output channel are 32-bit
 * (the launcher checks that they fit, with non-negative strides); plane, tensor and y offsets
 * are 64-bit. Shared memory: 9 * 18 * 34 * 4 + 9 * 9 * 8 * 4 bytes = 24.6 KB.
 */
#include <type_traits>

#include "activation.h"
#include "compat.h"
#include "dependent_launch.h"
#include "element.h"
#include "geometry.h"
#include "hipconv/conv3d.h"
#include "launch.h"
#include "store_vector.h"

namespace hipconv {

namespace {

constexpr int kTileCols = 32;                                   // output columns of a block
constexpr int kTileRows = 16;                                   // output rows of a block
constexpr int kThreadCols = 4;                                  // output columns of a thread
constexpr int kThreadCout = 4;                                  // output channels of a thread
constexpr int kColumnGroups = kTileCols / kThreadCols;          // 8 position threads a row
constexpr int kPositionThreads = kColumnGroups * kTileRows;     // 128
constexpr int kStripRows = kTileRows + 2, kStripCols = kTileCols + 2;  // 18 x 34 (3x3 taps)
constexpr int kStripWords = kStripRows * kStripCols;            // 612 fp32 a slab
constexpr int kMaxStagedSlabs = 9;                              // slabs = cin_g * kernel[0]

// Everything the kernel reads, precomputed on the host.
struct StagedArgs {
    const void *x, *w, *bias;
    void *y;
    int cin_g, cout_g, cout_chunks, slabs;
    uint32_t tiles_w, tiles_h, out_d;  // tiles along w and h, out[0] (grid: x tiles, y (n, od), z channels)
    int in[3], out_h, out_w, pad[3], stride_d;
    uint32_t x_h, x_w;                 // x's h and w strides in bytes (every in-plane byte offset fits int32)
    int kernel_d, kernel_d_reciprocal;  // kernel[0] and ceil(2^16 / kernel[0])
    int w_ci, w_kd, w_kh, w_kw;        // w's tap strides (every tap offset of one output channel fits int32)
    int silu;
    int y_vector;                      // kColumnsVector, kChannelsVector or kNoVector
    int64_t x_n, x_c, x_d;             // x's batch, channel and depth strides
    int64_t w_co;                      // w's output-channel stride
    int64_t y_stride[conv3d::kTensorAxes];
    // Per slab s = (ci, kd), ci = s / kernel[0]: its depth offset kd * dilation[0] and its
    // plane's byte offset from depth 0 of the group's first channel (read with compile-time
    // indices only: a runtime index would put the argument block in scratch memory on AMD).
    int depth[kMaxStagedSlabs];
    int64_t x_plane[kMaxStagedSlabs];  // (ci * x_stride[1] + kd * dilation[0] * x_stride[2]) * sizeof(T)
};

// How a thread's 4 x 4 outputs reach y.
constexpr int kNoVector = 0;       // element by element
constexpr int kColumnsVector = 1;  // a channel's 4 columns are one aligned vector (w stride 1)
constexpr int kChannelsVector = 2;  // a column's 4 channels are one aligned vector (c stride 1)

// NVIDIA: 2 blocks per SM at 256 threads (a register cap of 128).
template <typename T, int kHalves, bool kChained>
__global__ void HIPCONV_BOUNDS_NVIDIA(kPositionThreads *kHalves, 2) conv3d_direct_staged_kernel(StagedArgs a) {
    constexpr int kThreads = kPositionThreads * kHalves;
    constexpr int kBlockCout = kThreadCout * kHalves;
    constexpr int kStripLoads = (kStripWords + kThreads - 1) / kThreads;  // strip elements a thread stages a slab
    constexpr int kTapWords = kMaxStagedSlabs * 9 * kBlockCout;
    constexpr int kTapLoads = (kTapWords + kThreads - 1) / kThreads;  // tap words a thread stages
    __shared__ float4 strip4[kMaxStagedSlabs * kStripWords / 4];  // [s][row][col]; then the output tile
    __shared__ float4 taps4[kTapWords / 4];                       // [s][kh][kw][kBlockCout]
    __shared__ float bias_s[kBlockCout];
    float *strip = reinterpret_cast<float *>(strip4);
    const float2 *strip2 = reinterpret_cast<const float2 *>(strip4);
    float *taps_w = reinterpret_cast<float *>(taps4);
    const int tid = threadIdx.x;

    // The block's tile (n, od, tile row, tile column) and channel chunk.
    const uint32_t tile_row = blockIdx.x / a.tiles_w;
    const int ow_tile = (int)(blockIdx.x - tile_row * a.tiles_w) * kTileCols, oh_tile = (int)tile_row * kTileRows;
    const int n = (int)(blockIdx.y / a.out_d), od = (int)(blockIdx.y - (uint32_t)n * a.out_d);
    const int group = (int)(blockIdx.z / (uint32_t)a.cout_chunks);
    const int co_first = ((int)blockIdx.z - group * a.cout_chunks) * kBlockCout;  // within the group
    const int id0 = od * a.stride_d - a.pad[0];
    const int ih_tile = oh_tile - a.pad[1], iw_tile = ow_tile - a.pad[2];

    // 1a. Addresses, computed while the kernel waits for the kernels before it (all of
    // them folded into the wait's `ready`). This thread's strip elements e = tid + k *
    // kThreads (row e / 34, column e % 34): their in-plane byte offsets (0 outside x's plane)
    // and whether they lie inside it.
    uint32_t offset[kStripLoads], inside = 0;  // inside: bit k
#pragma unroll
    for (int k = 0; k < kStripLoads; ++k) {
        const int e = tid + k * kThreads;
        const int r = e / kStripCols, c = e - r * kStripCols;
        const int ih = ih_tile + r, iw = iw_tile + c;
        const bool in = e < kStripWords && (uint32_t)ih < (uint32_t)a.in[1] && (uint32_t)iw < (uint32_t)a.in[2];
        offset[k] = in ? (uint32_t)ih * a.x_h + (uint32_t)iw * a.x_w : 0u;
        inside |= (uint32_t)in << k;
    }
    // Plane s of depth id0 starts x_plane[s] bytes past x_depth (which may lie before x: only
    // elements inside x are read); bit s of `planes`: slab s exists and its plane lies in x.
    const char *x_depth = reinterpret_cast<const char *>(static_cast<const T *>(a.x) + n * a.x_n +
                                                         (int64_t)group * a.cin_g * a.x_c + (int64_t)id0 * a.x_d);
    uint32_t planes = 0;
#pragma unroll
    for (int s = 0; s < kMaxStagedSlabs; ++s)
        planes |= (uint32_t)(s < a.slabs && (uint32_t)(id0 + a.depth[s]) < (uint32_t)a.in[0]) << s;
    // The chunk's taps: word i = t * kBlockCout + j, t = s * 9 + kh * 3 + kw, spread evenly
    // over the threads (the barrier waits for the slowest warp's loads). Slab s is (ci, kd) =
    // (s / kernel[0], s % kernel[0]), the division as a multiply by the host's 16-bit
    // reciprocal (exact for s < 9): per-slab offsets read at a runtime index would put the
    // argument block in scratch memory on AMD. Words past the slabs or the group's output
    // channels load nothing (zero).
    const T *tap_at[kTapLoads];
    uint32_t tap_live = 0;  // bit k
#pragma unroll
    for (int k = 0; k < kTapLoads; ++k) {
        const int i = tid + k * kThreads;
        const int j = i % kBlockCout, t = i / kBlockCout;
        const int s = t / 9, khw = t - s * 9, kh = khw / 3, kw = khw - kh * 3;
        const int ci = (s * a.kernel_d_reciprocal) >> 16, kd = s - ci * a.kernel_d;
        const bool live = i < a.slabs * 9 * kBlockCout && co_first + j < a.cout_g;
        tap_at[k] = static_cast<const T *>(a.w) + (live ? (int64_t)(group * a.cout_g + co_first + j) * a.w_co +
                                                              ci * a.w_ci + kd * a.w_kd + kh * a.w_kh + kw * a.w_kw
                                                        : 0);
        tap_live |= (uint32_t)live << k;
    }
    // kChained (a grid of one wave, launched while the kernel before it runs): each block
    // waits for the kernels before it with its addresses computed, then lets the next be placed.
    if constexpr (kChained) {
        uint32_t ready = inside ^ planes ^ tap_live ^ fold_address(x_depth);
#pragma unroll
        for (int k = 0; k < kStripLoads; ++k) ready ^= offset[k];
#pragma unroll
        for (int k = 0; k < kTapLoads; ++k) ready ^= fold_address(tap_at[k]);
        begin_chained_kernel_after(ready);
    }

    // 1b. Every slab's elements, loads first (slabs past a.slabs load nothing), a
    // block-uniform branch per slab so that each load carries only its element's predicate;
    // the elements stay in T until they are stored (a conversion next to its load would wait
    // for it there).
    T v[kMaxStagedSlabs][kStripLoads];
#pragma unroll
    for (int s = 0; s < kMaxStagedSlabs; ++s) {
#pragma unroll
        for (int k = 0; k < kStripLoads; ++k) v[s][k] = from_float<T>(0.f);
        if (planes >> s & 1u) {
            const char *plane = x_depth + a.x_plane[s];
#pragma unroll
            for (int k = 0; k < kStripLoads; ++k)
                if (inside >> k & 1u) v[s][k] = *reinterpret_cast<const T *>(plane + offset[k]);
        }
    }
    // 1c. The taps.
    T tap[kTapLoads];
#pragma unroll
    for (int k = 0; k < kTapLoads; ++k) tap[k] = tap_live >> k & 1u ? *tap_at[k] : from_float<T>(0.f);
    const T *bias = static_cast<const T *>(a.bias);
    if (tid < kBlockCout)
        bias_s[tid] = bias != nullptr && co_first + tid < a.cout_g ? to_float(bias[group * a.cout_g + co_first + tid]) : 0.f;
#pragma unroll
    for (int s = 0; s < kMaxStagedSlabs; ++s)
#pragma unroll
        for (int k = 0; k < kStripLoads; ++k) {
            const int e = tid + k * kThreads;
            if (s < a.slabs && e < kStripWords) strip[s * kStripWords + e] = to_float(v[s][k]);
        }
#pragma unroll
    for (int k = 0; k < kTapLoads; ++k)
        if (tid + k * kThreads < kTapWords) taps_w[tid + k * kThreads] = to_float(tap[k]);
    __syncthreads();

    // 2. The multiply-adds: position thread (r, q), channel quarter `half` (warp-uniform).
    const int half = tid / kPositionThreads, position = tid - half * kPositionThreads;
    const int r = position / kColumnGroups, q = position - r * kColumnGroups;
    float acc[kThreadCols][kThreadCout];
#pragma unroll
    for (int c = 0; c < kThreadCols; ++c)
#pragma unroll
        for (int j = 0; j < kThreadCout; ++j) acc[c][j] = bias_s[half * kThreadCout + j];
    const float2 *window = strip2 + (r * kStripCols + q * kThreadCols) / 2;
#pragma unroll
    for (int s = 0; s < kMaxStagedSlabs; ++s) {
        if (s >= a.slabs) continue;  // (a break keeps clang from unrolling the loop)
#pragma unroll
        for (int kh = 0; kh < 3; ++kh) {
            const float2 *row = window + (s * kStripWords + kh * kStripCols) / 2;
            const float2 p0 = row[0], p1 = row[1], p2 = row[2];
            const float win[kThreadCols + 2] = {p0.x, p0.y, p1.x, p1.y, p2.x, p2.y};
#pragma unroll
            for (int kw = 0; kw < 3; ++kw) {
                const float4 t = taps4[(s * 9 + kh * 3 + kw) * kHalves + half];
#pragma unroll
                for (int c = 0; c < kThreadCols; ++c) {
                    acc[c][0] = fmaf(win[c + kw], t.x, acc[c][0]);
                    acc[c][1] = fmaf(win[c + kw], t.y, acc[c][1]);
                    acc[c][2] = fmaf(win[c + kw], t.z, acc[c][2]);
                    acc[c][3] = fmaf(win[c + kw], t.w, acc[c][3]);
                }
            }
        }
    }

    // 3. Epilogue: output (oh, ow_first + c) of channel co + j; SiLU as a compile-time choice.
    const int oh = oh_tile + r, ow_first = ow_tile + q * kThreadCols, co = co_first + half * kThreadCout;
    if (a.y_vector == kChannelsVector) {
        // Channels-last y: the block's outputs go through shared memory (the strip's space)
        // so that consecutive lanes store consecutive 16-byte chunks. Tile word of (row,
        // column, channel k): (row * kTileCols + column) * kBlockCout + k, plus 4 padding
        // words after every 4 columns so that the 8 lanes of a row (4 columns apart) write
        // distinct banks.
        auto tile_word = [](int row, int column) {
            const int position = row * kTileCols + column;
            return position * kBlockCout + (position / 4) * 4;
        };
        __syncthreads();  // every thread is done reading the strip
#pragma unroll
        for (int c = 0; c < kThreadCols; ++c) {
            float4 out;
            if (a.silu != 0)
                out = make_float4(activate<true>(acc[c][0]), activate<true>(acc[c][1]), activate<true>(acc[c][2]),
                                  activate<true>(acc[c][3]));
            else
                out = make_float4(acc[c][0], acc[c][1], acc[c][2], acc[c][3]);
            *reinterpret_cast<float4 *>(strip + tile_word(r, q * kThreadCols + c) + half * kThreadCout) = out;
        }
        __syncthreads();
        constexpr int kChunks = kTileRows * kTileCols * kHalves;  // 4-channel chunks of the tile
        constexpr int kChunkRows = kThreads / (kTileCols * kHalves);  // tile rows a round of chunks covers
        static_assert(kChunks % kThreads == 0 && kThreads % (kTileCols * kHalves) == 0, "whole rounds of rows");
        static_assert(kTileRows * kTileCols * (kBlockCout + 1) <= kMaxStagedSlabs * kStripWords, "the tile fits the strip");
        // This thread's chunks: (column, quarter) fixed, rows row0 + k * kChunkRows.
        const int row0 = tid / (kTileCols * kHalves), rest_c = tid - row0 * (kTileCols * kHalves);
        const int column = rest_c / kHalves, quarter = rest_c - column * kHalves;
        const int ow_c = ow_tile + column, co_c = co_first + quarter * kThreadCout;
        if (ow_c >= a.out_w || co_c >= a.cout_g) return;
        T *y_c = static_cast<T *>(a.y) + conv3d::offset(a.y_stride, n, group * a.cout_g + co_c, od, oh_tile + row0, ow_c);
        const float *tile_c = strip + tile_word(row0, column) + quarter * kThreadCout;
#pragma unroll
        for (int k = 0; k < kChunks / kThreads; ++k) {
            if (oh_tile + row0 + k * kChunkRows >= a.out_h) break;
            const float4 out = *reinterpret_cast<const float4 *>(tile_c + k * (tile_word(kChunkRows, 0) - tile_word(0, 0)));
            const float channels[kThreadCout] = {out.x, out.y, out.z, out.w};
            conv3d::store_vector<T, kThreadCout>(y_c + k * kChunkRows * a.y_stride[3], channels);
        }
        return;
    }
    if (oh >= a.out_h || ow_first >= a.out_w || co >= a.cout_g) return;
    T *y = static_cast<T *>(a.y) + conv3d::offset(a.y_stride, n, group * a.cout_g + co, od, oh, ow_first);
    const bool whole_cols = ow_first + kThreadCols <= a.out_w;
    auto store = [&](auto silu) {
        constexpr bool kSilu = decltype(silu)::value;
        if (a.y_vector == kColumnsVector && whole_cols) {
#pragma unroll
            for (int j = 0; j < kThreadCout; ++j)
                if (co + j < a.cout_g) {
                    T *y_j = y + j * a.y_stride[1];  // before the SiLU math (after it: 4 more s_nop on gfx940)
                    const float columns[kThreadCols] = {activate<kSilu>(acc[0][j]), activate<kSilu>(acc[1][j]),
                                                        activate<kSilu>(acc[2][j]), activate<kSilu>(acc[3][j])};
                    conv3d::store_vector<T, kThreadCols>(y_j, columns);
                }
        } else {
#pragma unroll
            for (int c = 0; c < kThreadCols; ++c)
#pragma unroll
                for (int j = 0; j < kThreadCout; ++j)
                    if (ow_first + c < a.out_w && co + j < a.cout_g)
                        y[c * a.y_stride[4] + j * a.y_stride[1]] = from_float<T>(activate<kSilu>(acc[c][j]));
        }
    };
    if (a.silu != 0)
        store(std::true_type{});
    else
        store(std::false_type{});
}

// Whether y's 4-element runs along `axis` (stride 1) are aligned vectors: the base aligned
// to the run's bytes and every other stride a whole number of runs. (Runs start at multiples
// of 4 along the axis: column groups, and channel quarters where cout_g % 4 == 0.)
template <typename T> bool runs_of_four(const hipconv_conv3d_params &p, int axis) {
    if (p.y_stride[axis] != 1 || (reinterpret_cast<uintptr_t>(p.y) % (4 * sizeof(T))) != 0) return false;
    for (int other = 0; other < conv3d::kTensorAxes; ++other)
        if (other != axis && p.y_stride[other] % 4 != 0) return false;
    return true;
}

// The kernel's arguments, or false where it does not apply (tiled.hip's other paths run).
template <typename T, int kHalves> bool staged_args(const hipconv_conv3d_params &p, StagedArgs &a) {
    const int64_t cin_g = p.cin / p.groups, cout_g = p.cout / p.groups;
    if (!conv3d::taps_3x3_unit_hw(p) || cin_g * p.kernel[0] > kMaxStagedSlabs || p.initial_frames != nullptr) return false;
    // 32-bit in-plane byte offsets of x (non-negative h and w strides) and tap offsets of w.
    const int64_t x_h = p.in[1] > 1 ? p.x_stride[3] : 0, x_w = p.in[2] > 1 ? p.x_stride[4] : 0;
    if (x_h < 0 || x_w < 0 ||
        (conv3d::axis_span(x_h, p.in[1]) + conv3d::axis_span(x_w, p.in[2])) * (int64_t)sizeof(T) > INT32_MAX)
        return false;
    if (!conv3d::channel_taps_fit_int32(p)) return false;
    const int64_t tiles_w = ceil_div(p.out[2], kTileCols), tiles_h = ceil_div(p.out[1], kTileRows);
    const int64_t cout_chunks = ceil_div(cout_g, kThreadCout * kHalves);
    if (tiles_h * tiles_w > INT32_MAX || (int64_t)p.batch * p.out[0] > 65535 || p.groups * cout_chunks > 65535) return false;
    a = StagedArgs{};
    a.x = p.x, a.w = p.w, a.bias = p.bias, a.y = p.y;
    a.cin_g = (int)cin_g, a.cout_g = (int)cout_g, a.cout_chunks = (int)cout_chunks;
    a.slabs = (int)(cin_g * p.kernel[0]);
    a.tiles_w = (uint32_t)tiles_w, a.tiles_h = (uint32_t)tiles_h, a.out_d = (uint32_t)p.out[0];
    for (int axis = 0; axis < 3; ++axis) a.in[axis] = p.in[axis], a.pad[axis] = p.pad[axis];
    a.out_h = p.out[1], a.out_w = p.out[2];
    a.stride_d = p.stride[0];
    a.x_h = (uint32_t)(x_h * (int64_t)sizeof(T)), a.x_w = (uint32_t)(x_w * (int64_t)sizeof(T));
    a.kernel_d = p.kernel[0], a.kernel_d_reciprocal = (65536 + p.kernel[0] - 1) / p.kernel[0];
    a.w_ci = (int)p.w_stride[1], a.w_kd = (int)p.w_stride[2], a.w_kh = (int)p.w_stride[3], a.w_kw = (int)p.w_stride[4];
    a.silu = p.silu;
    a.y_vector = runs_of_four<T>(p, 4) ? kColumnsVector
                 : cout_g % kThreadCout == 0 && runs_of_four<T>(p, 1) ? kChannelsVector
                                                                      : kNoVector;
    a.x_n = p.x_stride[0], a.x_c = p.x_stride[1], a.x_d = p.x_stride[2];
    a.w_co = p.w_stride[0];
    for (int axis = 0; axis < conv3d::kTensorAxes; ++axis) a.y_stride[axis] = p.y_stride[axis];
    conv3d::slab_planes<T>(p, a.slabs, a.depth, a.x_plane);
    return true;
}

// Launches the kernel where it applies and says so. `one_wave_only`: only where the grid
// holds at most one block an SM and launches are chained (chained_launch_enabled()), as a
// chained launch; else an ordinary one. (Chained, a grid of several waves ran 2% slower at
// 2x3->16x8x112x112 NDHWC: the next launch's blocks, placed early beside this one's last
// wave, start unevenly spread over the SMs.)
template <typename T, int kHalves>
bool try_staged(const hipconv_conv3d_params &p, hipStream_t stream, bool one_wave_only, hipconv_status_t &status) {
    StagedArgs a;
    if (!staged_args<T, kHalves>(p, a)) return false;
    const dim3 grid(a.tiles_h * a.tiles_w, (unsigned)(p.batch * p.out[0]), (unsigned)(p.groups * a.cout_chunks));
    const dim3 block(kPositionThreads * kHalves);
    if (!one_wave_only) {
        hipLaunchKernelGGL((conv3d_direct_staged_kernel<T, kHalves, false>), grid, block, 0, stream, a);
        status = last_launch_status();
        return true;
    }
    if (!chained_launch_enabled()) return false;
    int64_t sms = 0;
    const hipError_t err = cached_device_attribute<hipDeviceAttributeMultiprocessorCount>(&sms);
    if (err != hipSuccess) {
        status = (hipconv_status_t)err;
        return true;
    }
    if ((int64_t)grid.x * grid.y * grid.z > sms) return false;
    status = launch_chained(conv3d_direct_staged_kernel<T, kHalves, true>, grid, block, 0, stream, a);
    return true;
}

template <typename T>
bool try_staged(const hipconv_conv3d_params &p, hipStream_t stream, bool one_wave_only, hipconv_status_t &status) {
    const int64_t cout_g = p.cout / p.groups;
    if (cout_g > 16) return false;
    return cout_g > kThreadCout ? try_staged<T, 2>(p, stream, one_wave_only, status)
                                : try_staged<T, 1>(p, stream, one_wave_only, status);
}

}  // namespace

// Launches the staged-strip kernel where it applies (see the header) and says so; false
// where tiled.hip's other paths should run.
template <typename T>
bool try_conv3d_direct_staged(const hipconv_conv3d_params &p, hipStream_t stream, hipconv_status_t &status) {
    return try_staged<T>(p, stream, false, status);
}

// The same, but only for a grid of at most one block an SM launched while the kernel before
// it runs: there each block is placed beside one of that kernel's and waits for it with its
// addresses computed, which takes the seed's shape in NCDHW too, ahead of the register-slab
// kernel. False elsewhere; true with the error in `status` where the SM count query fails.
template <typename T>
bool try_conv3d_direct_staged_one_wave(const hipconv_conv3d_params &p, hipStream_t stream, hipconv_status_t &status) {
    return try_staged<T>(p, stream, true, status);
}

#define HIPCONV_INSTANTIATE(T)                                                                                  \
    template bool try_conv3d_direct_staged<T>(const hipconv_conv3d_params &, hipStream_t, hipconv_status_t &); \
    template bool try_conv3d_direct_staged_one_wave<T>(const hipconv_conv3d_params &, hipStream_t, hipconv_status_t &);
HIPCONV_INSTANTIATE(__half)
HIPCONV_INSTANTIATE(hipconv_bf16)
HIPCONV_INSTANTIATE(float)
#undef HIPCONV_INSTANTIATE

}  // namespace hipconv
