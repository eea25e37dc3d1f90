/*
 * Depthwise conv3d (hipconv/conv3d.h with groups == cin == cout): a streaming kernel that
 * reads each input about once from DRAM (the overlapping taps come from L1/L2) and writes
 * each output once, fp32 accumulation, bias, SiLU, initial frames.
 *
 *   in   x [batch, C, in[0..2]] by x_stride, w [C, 1, kernel[0..2]] by w_stride,
 *        bias [C] or NULL, initial_frames [batch, C, pad[0], in[1], in[2]] or NULL
 *   out  y [batch, C, out[0..2]] by y_stride
 *
 * Paths (the launcher picks one; kVec = 16 / sizeof(T)):
 *
 * channel_last (NDHWC): 3x3x3 taps, stride 1, dilation 1, channels contiguous and 16-byte
 *   vectors of channels aligned in x, y and initial_frames (C % kVec == 0), any padding.
 *   A thread owns kVec consecutive channels at kLastCols (2) consecutive output columns of
 *   one output row, and walks a chunk of `depth_chunk` output depths by input planes:
 *
 *     input plane e (depth od0 - pad[0] + e) feeds outputs od0 + e - kd, kd = 0, 1, 2
 *     acc[3][kLastCols][kVec]: a ring of three output depths; (e - kd) mod 3 is the slot,
 *     made a compile-time index by unrolling the plane loop by 3; after plane e the output
 *     od0 + e - 2 is complete: SiLU, rounded, 16-byte stores, slot reset to the bias.
 *
 *     per plane and kernel row: kLastCols+2 16-byte loads, widened once, each used by up to
 *     3 columns x 3 depths. Software-pipelined: the next row's loads are issued before this
 *     row's multiply-adds, with no branch between (out-of-range rows and columns load zeros
 *     through predicated loads).
 *
 *   Block: tile_vecs channel vectors (lanes, tx: the largest power of two <= 32 dividing
 *   C/kVec, 8 for 192 f16 channels) x positions (ty), 128 threads, at most 168 registers
 *   (3 blocks, 12 warps per SM); the block keeps the taps and bias of its channel tile in
 *   shared memory as fp32, per lane [27 + 1][kVec] padded to an odd number of 16-byte
 *   words (conflict-free 16-byte reads, one base register; re-read per row, so the
 *   compiler does not hold 27 * kVec taps in registers). Work items:
 *   (position block, channel tile), channel tile fastest, grid-stride over a grid that is
 *   a multiple of the tile count (a block stages its taps once).
 *
 * On Hopper (an sm_90a build), f16/bf16 NDHWC 3x3x3 with dilation 1, depth stride 1 and
 *   stride 1 or 2 on h and w, where TMA reads x (16-byte aligned positions), runs
 *   depthwise_diagonal.hip first (1.8x depthwise_toeplitz_last.hip at the bench's
 *   192-channel row: 116 against 208 us, H100; at stride 2 the alternative is
 *   depthwise_generic.hip, 61 against 181 us on an H200).
 * f16/bf16 3x3x3 with stride and dilation 1 are tried on the matrix cores next:
 *   NDHWC with channels in groups of 16 (NVIDIA; 8 on AMD), depthwise_toeplitz_last.hip
 *   (1.28x this file's channel_last kernel at the bench's 192-channel row, H100), then
 *   NCDHW with rows of 16-byte vectors in x and a 16-byte aligned y,
 *   depthwise_toeplitz.hip (1.34x this file's channel_first kernel there); each returns
 *   without launching where its conditions do not hold.
 *
 * channel_first (NCDHW): 3x3x3 taps, stride 1, dilation 1, pad[2] <= 1, width contiguous
 *   and 16-byte vectors along w aligned in x, y and initial_frames, in[2] and out[2]
 *   multiples of kVec. A thread owns kVec consecutive output columns of one row of one
 *   channel (its 27 taps in registers) and walks depth chunks the same way (ring of three
 *   output depths, acc[3][kVec]); per plane and kernel row one 16-byte load plus the two
 *   halo elements (columns ow0-1 and ow0+kVec with pad 1, ow0+kVec and +1 with pad 0),
 *   neighbouring lanes on neighbouring vectors. Software-pipelined a plane ahead: row kh of
 *   plane e + 1 is loaded while row kh of plane e is computed (three rows in flight).
 *   Launch: 256 threads, at most 128 registers (2 blocks per SM), grid-stride over
 *   (n, c, depth chunk, oh, vector of w), w fastest.
 *
 *   Both paths walk x and y with running plane pointers (64-bit; no per-row offset
 *   arithmetic) and read initial_frames for the planes before depth 0.
 *
 * generic: anything else (other kernels, strides, dilations, unaligned or odd-sized
 *   tensors) runs depthwise_generic.hip: a vector of channels a thread where channels are
 *   contiguous and aligned, else a channel a thread along w.
 */
#include <algorithm>

#include "activation.h"
#include "compat.h"
#include "element.h"
#include "geometry.h"
#include "global_vectors.h"
#include "hipconv/conv3d.h"
#include "launch.h"
#include "packed.h"

namespace hipconv {

template <typename T>
hipconv_status_t launch_conv3d_depthwise_generic(const hipconv_conv3d_params &p, hipStream_t stream);
template <typename T>
bool launch_conv3d_depthwise_toeplitz(const hipconv_conv3d_params &p, hipStream_t stream, hipconv_status_t *status);
template <typename T>
bool launch_conv3d_depthwise_toeplitz_last(const hipconv_conv3d_params &p, hipStream_t stream,
                                           hipconv_status_t *status);
#if defined(HIPCONV_PLATFORM_NVIDIA)
template <typename T>
bool launch_conv3d_depthwise_diagonal(const hipconv_conv3d_params &p, hipStream_t stream, hipconv_status_t *status);
#endif

namespace {

constexpr int kTaps = 27;          // 3x3x3
constexpr int kLastCols = 2;       // channel_last: output columns per thread
constexpr int kLastThreads = 128;
[[maybe_unused]] constexpr int kLastMinBlocks = 3;  // channel_last: blocks per SM (<= 168 registers a thread, no spills)
constexpr int kMaxTileVecs = 32;   // channel_last: channel vectors per block (lanes)
constexpr int kFirstThreads = 256;
[[maybe_unused]] constexpr int kFirstMinBlocks = 2;  // channel_first: blocks per SM (<= 128 registers a thread)
constexpr int kMaxDepthChunk = 16;  // output depths per thread at most
constexpr int64_t kMinThreads = int64_t(1) << 18;  // depth chunks shrink until this many threads

using namespace depthwise;  // kVecOf, the 16-byte loads and stores (global_vectors.h)

// Leaving the plane loop (unrolled by 3: the ring slots are compile-time indices) past the
// chunk's last plane. hipcc unrolls it only with a single exit (continue); nvcc allocates
// channel_last's registers without local memory only with break. The same in effect.
#if defined(HIPCONV_PLATFORM_NVIDIA)
#define HIPCONV_DW_PAST_CHUNK break
#else
#define HIPCONV_DW_PAST_CHUNK continue
#endif
// channel_last: the floats of one lane's taps in shared memory, [kTaps][kVec] padded to an
// odd number of 16-byte words, so that the lanes' 16-byte reads of one tap hit distinct banks.
// The bias follows the taps ([kTaps + 1][kVec]).
template <typename T>
constexpr int kLaneTaps = (kTaps + 1) * kVecOf<T> + (((kTaps + 1) * kVecOf<T> / 4) % 2 == 0 ? 4 : 0);

struct LastGeometry {
    int tile_vecs;    // channel vectors per block (tx)
    int block_positions;  // positions per block (ty)
    int vecs;         // C / kVec
    int channel_tiles;
    int col_runs;     // ceil(out[2] / kCols)
    int depth_chunk;
    int depth_chunks;
    int64_t positions;  // batch * depth_chunks * out[1] * col_runs
    int64_t items;      // ceil(positions / block_positions) * channel_tiles
};

// The input plane (depth) a thread reads next: the address of its first row (input row
// oh - pad[1]) in x or initial_frames, the row stride there, and whether the plane exists.
template <typename T> struct PlaneRef {
    const T *row0;
    int64_t row_stride;
    bool inside;
};

// Plane `id` (input depth) for a thread whose first row in plane `id` of x is `x_plane`
// (a running pointer: the caller adds x_stride[2] per plane) and whose first row starts
// `frames_row0` elements into initial_frames. Before depth 0 it is initial_frames' plane
// pad[0] + id, where given.
template <typename T>
__device__ inline PlaneRef<T> plane_ref(const hipconv_conv3d_params &p, const T *x_plane, int64_t frames_row0, int id) {
    PlaneRef<T> r;
    if (id >= 0) {
        r.row0 = x_plane;
        r.row_stride = p.x_stride[3];
        r.inside = id < p.in[0];
    } else {
        const bool frames = p.initial_frames != nullptr && id >= -p.pad[0];
        // Without initial_frames the pointer is never read: any base will do.
        r.row0 = static_cast<const T *>(frames ? p.initial_frames : p.x) +
                 (frames ? frames_row0 + (int64_t)(p.pad[0] + id) * p.initial_stride[2] : 0);
        r.row_stride = p.initial_stride[3];
        r.inside = frames;
    }
    return r;
}

// channel_last: one row's kCols + 2 input vectors (16 bytes each), raw.
template <int kCols> struct LastRow {
    uint4 v[kCols + 2];
};

template <typename T, int kCols>
__device__ inline LastRow<kCols> load_last_row(const PlaneRef<T> &plane, int kh, bool row_inside, int64_t col_stride,
                                               const bool (&col_inside)[kCols + 2]) {
    LastRow<kCols> r;
    const T *row = plane.row0 + kh * plane.row_stride;
    const bool inside = plane.inside && row_inside;
#pragma unroll
    for (int j = 0; j < kCols + 2; ++j)
        r.v[j] = inside && col_inside[j] ? load16(row + j * col_stride) : make_uint4(0, 0, 0, 0);
    return r;
}

template <typename T>
__global__ void HIPCONV_BOUNDS_NVIDIA(kLastThreads, kLastMinBlocks)
    conv3d_depthwise_channel_last_kernel(hipconv_conv3d_params p, LastGeometry g) {
    constexpr int kVec = kVecOf<T>;
    extern __shared__ float4 shared_words[];
    float *taps = reinterpret_cast<float *>(shared_words);  // [kTaps][tile channels]
    const T *w = static_cast<const T *>(p.w);
    const T *bias = static_cast<const T *>(p.bias);
    T *y = static_cast<T *>(p.y);
    const int tile_channels = g.tile_vecs * kVec;
    const int tx = threadIdx.x % g.tile_vecs, ty = threadIdx.x / g.tile_vecs;
    const bool silu = p.silu != 0;
    const int64_t col_stride = p.x_stride[4];  // == initial_stride[4] (launcher)
    int staged_tile = -1;

    for (int64_t item = blockIdx.x; item < g.items; item += gridDim.x) {
        const QuotientRemainder by_tile = divide(item, g.channel_tiles);
        const int tile = (int)by_tile.remainder;
        if (tile != staged_tile) {  // block-uniform
            __syncthreads();
            for (int i = threadIdx.x; i < kTaps * tile_channels; i += blockDim.x) {
                const int tap = i / tile_channels;
                const int tc = i - tap * tile_channels;  // channel in the tile
                const int c = tile * tile_channels + tc;
                taps[(tc / kVec) * kLaneTaps<T> + tap * kVec + tc % kVec] =
                    c < p.cout ? to_float(w[conv3d::offset(p.w_stride, c, 0, tap / 9, tap / 3 % 3, tap % 3)]) : 0.f;
            }
            for (int tc = threadIdx.x; tc < tile_channels; tc += blockDim.x) {
                const int c = tile * tile_channels + tc;
                taps[(tc / kVec) * kLaneTaps<T> + kTaps * kVec + tc % kVec] =
                    c < p.cout && bias != nullptr ? to_float(bias[c]) : 0.f;
            }
            __syncthreads();
            staged_tile = tile;
        }
        const int64_t position = by_tile.quotient * g.block_positions + ty;
        const int cv = tile * g.tile_vecs + tx;
        if (ty >= g.block_positions || position >= g.positions || cv >= g.vecs) continue;

        QuotientRemainder r = divide(position, g.col_runs);
        const int ow0 = (int)r.remainder * kLastCols;
        r = divide(r.quotient, p.out[1]);
        const int oh = (int)r.remainder;
        r = divide(r.quotient, g.depth_chunks);
        const int od0 = (int)r.remainder * g.depth_chunk;
        const int n = (int)r.quotient;
        const int td = min(g.depth_chunk, p.out[0] - od0);
        const int c0 = cv * kVec;

        // The bias, from shared memory where the ring's slots are reset (no registers held).
        const float *b = taps + tx * kLaneTaps<T> + kTaps * kVec;
        // Input columns ow0 - pad[2] + j (x and initial_frames share the w stride) and rows
        // oh - pad[1] + kh.
        const int iw0 = ow0 - p.pad[2], ih0 = oh - p.pad[1];
        bool col_inside[kLastCols + 2];
#pragma unroll
        for (int j = 0; j < kLastCols + 2; ++j) col_inside[j] = (unsigned)(iw0 + j) < (unsigned)p.in[2];
        bool row_inside[3];
#pragma unroll
        for (int kh = 0; kh < 3; ++kh) row_inside[kh] = (unsigned)(ih0 + kh) < (unsigned)p.in[1];
        const int64_t x_row0 = conv3d::offset(p.x_stride, n, c0, 0, ih0, iw0);
        const int64_t frames_row0 = conv3d::offset(p.initial_stride, n, c0, 0, ih0, iw0);

        float acc[3][kLastCols][kVec];
#pragma unroll
        for (int s = 0; s < 3; ++s)
#pragma unroll
            for (int o = 0; o < kLastCols; ++o)
#pragma unroll
                for (int e = 0; e < kVec; ++e) acc[s][o][e] = b[e];

        // Software pipeline over rows (plane, kh): the next row's loads are in flight while
        // this row is computed.
        const T *x_plane = static_cast<const T *>(p.x) + (x_row0 + (int64_t)(od0 - p.pad[0]) * p.x_stride[2]);
        T *y_plane = y + conv3d::offset(p.y_stride, n, c0, od0, oh, ow0);  // output od0 + e - 2 at plane e
        PlaneRef<T> plane = plane_ref<T>(p, x_plane, frames_row0, od0 - p.pad[0]);
        LastRow<kLastCols> next = load_last_row<T, kLastCols>(plane, 0, row_inside[0], col_stride, col_inside);
        for (int e0 = 0; e0 < td + 2; e0 += 3) {
#pragma unroll
            for (int u = 0; u < 3; ++u) {
                const int e = e0 + u;
                if (e >= td + 2) HIPCONV_DW_PAST_CHUNK;
                const bool use0 = e < td, use1 = e >= 1 && e <= td, use2 = e >= 2;
                x_plane += p.x_stride[2];
                const PlaneRef<T> following = plane_ref<T>(p, x_plane, frames_row0, od0 - p.pad[0] + e + 1);
                // The taps are re-read from shared memory for every row: an opaque copy of
                // their address keeps the compiler from hoisting all 27 * kVec of them into
                // registers, which would cost the occupancy (nvcc; AMD has the registers).
#pragma unroll
                for (int kh = 0; kh < 3; ++kh) {
                    int tap_at = tx * kLaneTaps<T>;
#if defined(HIPCONV_PLATFORM_NVIDIA)
                    asm volatile("" : "+r"(tap_at));
#endif
#if defined(HIPCONV_PLATFORM_NVIDIA)
                    asm volatile("" ::: "memory");  // one row of loads ahead, no more (registers)
#endif
                    const LastRow<kLastCols> cur = next;
                    if (kh < 2)
                        next = load_last_row<T, kLastCols>(plane, kh + 1, row_inside[kh + 1], col_stride, col_inside);
                    else
                        next = load_last_row<T, kLastCols>(following, 0, row_inside[0] && e + 1 < td + 2, col_stride,
                                                           col_inside);
                    float in[kLastCols + 2][kVec];
#pragma unroll
                    for (int j = 0; j < kLastCols + 2; ++j)
#pragma unroll
                        for (int q = 0; q < kVec; ++q) in[j][q] = unpack<T>(cur.v[j], q);
#pragma unroll
                    for (int kd = 0; kd < 3; ++kd) {
                        if (!(kd == 0 ? use0 : kd == 1 ? use1 : use2)) continue;
                        const int s = (u - kd + 3) % 3;  // slot of output e - kd: compile-time
#pragma unroll
                        for (int kw = 0; kw < 3; ++kw) {
                            float tv[kVec];
                            const float4 *tap4 =
                                reinterpret_cast<const float4 *>(taps + tap_at + ((kd * 3 + kh) * 3 + kw) * kVec);
#pragma unroll
                            for (int q = 0; q < kVec / 4; ++q) {
                                const float4 v = tap4[q];
                                tv[4 * q] = v.x;
                                tv[4 * q + 1] = v.y;
                                tv[4 * q + 2] = v.z;
                                tv[4 * q + 3] = v.w;
                            }
#pragma unroll
                            for (int o = 0; o < kLastCols; ++o)
#pragma unroll
                                for (int q = 0; q < kVec; ++q) acc[s][o][q] += tv[q] * in[o + kw][q];
                        }
                    }
                }
                plane = following;
                if (use2) {  // output od0 + e - 2 is complete: slot (e - 2) mod 3
                    const int s = (u + 1) % 3;
                    if (silu) {
#pragma unroll
                        for (int o = 0; o < kLastCols; ++o)
#pragma unroll
                            for (int q = 0; q < kVec; ++q) acc[s][o][q] = silu_fast(acc[s][o][q]);
                    }
#pragma unroll
                    for (int o = 0; o < kLastCols; ++o) {
                        if (ow0 + o < p.out[2]) store_vector<T>(y_plane + o * p.y_stride[4], acc[s][o]);
#pragma unroll
                        for (int q = 0; q < kVec; ++q) acc[s][o][q] = b[q];
                    }
                    y_plane += p.y_stride[2];
                }
            }
        }
    }
}

// channel_first: one input row's window, raw: the aligned vector and the two lone halo
// elements' bits.
struct FirstRow {
    uint4 v;
    uint32_t a, z;
};

// One output row's kVec columns of one channel, walking a depth chunk; kPadW = pad[2].
template <typename T, int kPadW>
__global__ void HIPCONV_BOUNDS_NVIDIA(kFirstThreads, kFirstMinBlocks)
    conv3d_depthwise_channel_first_kernel(hipconv_conv3d_params p, int depth_chunk, int depth_chunks, int64_t threads) {
    constexpr int kVec = kVecOf<T>;
    static_assert(kPadW == 0 || kPadW == 1, "pad[2]: 0 or 1");
    using Bits = element_bits_t<T>;
    const T *w = static_cast<const T *>(p.w);
    const T *bias = static_cast<const T *>(p.bias);
    T *y = static_cast<T *>(p.y);
    const int col_vecs = p.out[2] / kVec;
    const bool silu = p.silu != 0;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < threads; i += (int64_t)gridDim.x * blockDim.x) {
        QuotientRemainder r = divide(i, col_vecs);
        const int ow0 = (int)r.remainder * kVec;
        r = divide(r.quotient, p.out[1]);
        const int oh = (int)r.remainder;
        r = divide(r.quotient, depth_chunks);
        const int od0 = (int)r.remainder * depth_chunk;
        r = divide(r.quotient, p.cout);
        const int c = (int)r.remainder;
        const int n = (int)r.quotient;
        const int td = min(depth_chunk, p.out[0] - od0);

        float tap[kTaps];
#pragma unroll
        for (int k = 0; k < kTaps; ++k) tap[k] = to_float(w[conv3d::offset(p.w_stride, c, 0, k / 9, k / 3 % 3, k % 3)]);
        const float b = bias != nullptr ? to_float(bias[c]) : 0.f;
        // Window columns ow0 - kPadW + j, j < kVec + 2: the aligned vector at ow0 (inside or
        // outside as a whole, in[2] % kVec == 0) and two single elements at offsets lone0,
        // lone1 from it.
        const bool vec_inside = ow0 < p.in[2];
        constexpr int lone0 = kPadW == 1 ? -1 : kVec;        // window index 0 or kVec
        constexpr int lone1 = kPadW == 1 ? kVec : kVec + 1;  // window index kVec+1
        const bool lone0_inside = ow0 + lone0 >= 0 && ow0 + lone0 < p.in[2];
        const bool lone1_inside = ow0 + lone1 < p.in[2];
        const int ih0 = oh - p.pad[1];
        bool row_inside[3];
#pragma unroll
        for (int kh = 0; kh < 3; ++kh) row_inside[kh] = (unsigned)(ih0 + kh) < (unsigned)p.in[1];
        const int64_t x_row0 = conv3d::offset(p.x_stride, n, c, 0, ih0, ow0);
        const int64_t frames_row0 = conv3d::offset(p.initial_stride, n, c, 0, ih0, ow0);
        auto load_row = [&](const PlaneRef<T> &plane, int kh, bool inside) {
            FirstRow f;
            const T *row = plane.row0 + kh * plane.row_stride;
            inside = inside && plane.inside && row_inside[kh];
            f.v = inside && vec_inside ? load16(row) : make_uint4(0, 0, 0, 0);
            f.a = inside && lone0_inside ? (uint32_t)load_bits<Bits>(row + lone0) : 0u;
            f.z = inside && lone1_inside ? (uint32_t)load_bits<Bits>(row + lone1) : 0u;
            return f;
        };

        float acc[3][kVec];
#pragma unroll
        for (int s = 0; s < 3; ++s)
#pragma unroll
            for (int o = 0; o < kVec; ++o) acc[s][o] = b;

        // Software pipeline: row kh of plane e + 1 is loaded while row kh of plane e is
        // computed (three rows in flight).
        const T *x_plane = static_cast<const T *>(p.x) + (x_row0 + (int64_t)(od0 - p.pad[0]) * p.x_stride[2]);
        T *y_plane = y + conv3d::offset(p.y_stride, n, c, od0, oh, ow0);  // output od0 + e - 2 at plane e
        PlaneRef<T> plane = plane_ref<T>(p, x_plane, frames_row0, od0 - p.pad[0]);
        FirstRow next[3];
#pragma unroll
        for (int kh = 0; kh < 3; ++kh) next[kh] = load_row(plane, kh, true);
        for (int e0 = 0; e0 < td + 2; e0 += 3) {
#pragma unroll
            for (int u = 0; u < 3; ++u) {
                const int e = e0 + u;
                if (e >= td + 2) HIPCONV_DW_PAST_CHUNK;
                const bool use0 = e < td, use1 = e >= 1 && e <= td, use2 = e >= 2;
                x_plane += p.x_stride[2];
                plane = plane_ref<T>(p, x_plane, frames_row0, od0 - p.pad[0] + e + 1);
                const bool more = e + 1 < td + 2;
#pragma unroll
                for (int kh = 0; kh < 3; ++kh) {
                    const FirstRow cur = next[kh];
                    next[kh] = load_row(plane, kh, more);
                    float win[kVec + 2];
#pragma unroll
                    for (int j = 0; j < kVec; ++j) win[j + kPadW] = unpack<T>(cur.v, j);
                    win[kPadW == 1 ? 0 : kVec] = bits_to_float(T(), cur.a, 0);
                    win[kVec + 1] = bits_to_float(T(), cur.z, 0);
#pragma unroll
                    for (int kd = 0; kd < 3; ++kd) {
                        if (!(kd == 0 ? use0 : kd == 1 ? use1 : use2)) continue;
                        const int s = (u - kd + 3) % 3;
#pragma unroll
                        for (int kw = 0; kw < 3; ++kw)
#pragma unroll
                            for (int o = 0; o < kVec; ++o) acc[s][o] += tap[(kd * 3 + kh) * 3 + kw] * win[o + kw];
                    }
                }
                if (use2) {
                    const int s = (u + 1) % 3;
                    if (silu) {
#pragma unroll
                        for (int o = 0; o < kVec; ++o) acc[s][o] = silu_fast(acc[s][o]);
                    }
                    store_vector<T>(y_plane, acc[s]);
                    y_plane += p.y_stride[2];
#pragma unroll
                    for (int o = 0; o < kVec; ++o) acc[s][o] = b;
                }
            }
        }
    }
}

// The depth chunk: the whole depth up to kMaxDepthChunk, halved while the grid would have
// fewer than kMinThreads threads (longer chunks re-read fewer halo planes: (chunk+2)/chunk).
inline int pick_depth_chunk(int depth, int64_t threads_per_depth_chunk) {
    int chunk = std::min(depth, kMaxDepthChunk);
    while (chunk > 2 && threads_per_depth_chunk * ceil_div(depth, chunk) < kMinThreads) chunk = (chunk + 1) / 2;
    return chunk;
}

template <typename T> hipconv_status_t launch_channel_last(const hipconv_conv3d_params &p, hipStream_t stream) {
    constexpr int kVec = kVecOf<T>;
    LastGeometry g;
    g.vecs = p.cout / kVec;
    // Lanes: the largest power of two (<= kMaxTileVecs) dividing the channel vectors, so
    // that blocks are whole warps and no lane idles (192 f16 channels: 8 lanes, 3 tiles).
    g.tile_vecs = 1;
    while (g.tile_vecs < kMaxTileVecs && g.vecs % (2 * g.tile_vecs) == 0) g.tile_vecs *= 2;
    if (g.tile_vecs < 8 && g.vecs > g.tile_vecs) g.tile_vecs = std::min(g.vecs, kMaxTileVecs);  // odd counts
    g.block_positions = kLastThreads / g.tile_vecs;
    g.channel_tiles = (int)ceil_div(g.vecs, g.tile_vecs);
    g.col_runs = (int)ceil_div(p.out[2], kLastCols);
    g.depth_chunk = pick_depth_chunk(p.out[0], (int64_t)p.batch * p.out[1] * g.col_runs * g.vecs);
    g.depth_chunks = (int)ceil_div(p.out[0], g.depth_chunk);
    g.positions = (int64_t)p.batch * g.depth_chunks * p.out[1] * g.col_runs;
    g.items = ceil_div(g.positions, g.block_positions) * g.channel_tiles;
    // A grid that is a multiple of channel_tiles keeps each block on one channel tile (its
    // taps staged once).
    int64_t blocks = grid_blocks(g.items);
    if (blocks < g.items) blocks -= blocks % g.channel_tiles;
    const int shared_bytes = g.tile_vecs * kLaneTaps<T> * (int)sizeof(float);  // <= 29 KiB
    hipLaunchKernelGGL(conv3d_depthwise_channel_last_kernel<T>, dim3((unsigned)blocks),
                       dim3(g.tile_vecs * g.block_positions), shared_bytes, stream, p, g);
    return last_launch_status();
}

template <typename T> hipconv_status_t launch_channel_first(const hipconv_conv3d_params &p, hipStream_t stream) {
    constexpr int kVec = kVecOf<T>;
    const int64_t per_chunk = (int64_t)p.batch * p.cout * p.out[1] * (p.out[2] / kVec);
    const int depth_chunk = pick_depth_chunk(p.out[0], per_chunk);
    const int depth_chunks = (int)ceil_div(p.out[0], depth_chunk);
    const int64_t threads = per_chunk * depth_chunks;
    const dim3 grid(grid_blocks(ceil_div(threads, kFirstThreads))), block(kFirstThreads);
    if (p.pad[2] == 0)
        hipLaunchKernelGGL((conv3d_depthwise_channel_first_kernel<T, 0>), grid, block, 0, stream, p, depth_chunk,
                           depth_chunks, threads);
    else
        hipLaunchKernelGGL((conv3d_depthwise_channel_first_kernel<T, 1>), grid, block, 0, stream, p, depth_chunk,
                           depth_chunks, threads);
    return last_launch_status();
}

}  // namespace

template <typename T> hipconv_status_t launch_conv3d_depthwise(const hipconv_conv3d_params &p, hipStream_t stream) {
    if (!conv3d::valid_params(p) || p.groups != p.cin || p.cout != p.cin) return (hipconv_status_t)hipErrorInvalidValue;
    constexpr int kVec = kVecOf<T>;
    const bool taps3 = p.kernel[0] == 3 && p.kernel[1] == 3 && p.kernel[2] == 3;
    const bool unit = p.stride[0] == 1 && p.stride[1] == 1 && p.stride[2] == 1 && p.dilation[0] == 1 &&
                      p.dilation[1] == 1 && p.dilation[2] == 1;
#if defined(HIPCONV_PLATFORM_NVIDIA)
    if constexpr (sizeof(T) == 2) {  // Hopper: NDHWC 3x3x3, stride 1 or 2 on h and w
        hipconv_status_t status;
        if (launch_conv3d_depthwise_diagonal<T>(p, stream, &status)) return status;
    }
#endif
    if (taps3 && unit) {
        // Channels along the vectors: axis 1 (c) has stride 1 in x, y and the frames.
        const bool channel_last =
            p.cin % kVec == 0 && conv3d::vectors_along<T>(p.x, p.x_stride, 1) &&
            conv3d::vectors_along<T>(p.y, p.y_stride, 1) &&
            (p.initial_frames == nullptr || (conv3d::vectors_along<T>(p.initial_frames, p.initial_stride, 1) &&
                                             p.initial_stride[4] == p.x_stride[4]));
        if constexpr (sizeof(T) == 2) {  // f16/bf16 on the matrix cores where it fits
            hipconv_status_t status;
            if (launch_conv3d_depthwise_toeplitz_last<T>(p, stream, &status)) return status;
            if (!channel_last && launch_conv3d_depthwise_toeplitz<T>(p, stream, &status)) return status;
        }
        if (channel_last) return launch_channel_last<T>(p, stream);
        // Width along the vectors: axis 4 (w) has stride 1.
        const bool channel_first =
            p.pad[2] <= 1 && p.in[2] % kVec == 0 && p.out[2] % kVec == 0 &&
            conv3d::vectors_along<T>(p.x, p.x_stride, 4) && conv3d::vectors_along<T>(p.y, p.y_stride, 4) &&
            (p.initial_frames == nullptr || conv3d::vectors_along<T>(p.initial_frames, p.initial_stride, 4));
        if (channel_first) return launch_channel_first<T>(p, stream);
    }
    return launch_conv3d_depthwise_generic<T>(p, stream);
}

}  // namespace hipconv

HIPCONV_EXPORT_PER_DTYPE(conv3d_depthwise, hipconv_conv3d_params)
