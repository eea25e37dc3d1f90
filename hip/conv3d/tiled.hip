/*
 * Tiled conv3d (hipconv/conv3d.h): any geometry, groups, strides, padding, dilation and
 * initial frames, on the vector units, in one of two paths the launcher picks:
 *
 *   direct         taps_g = cin_g*kernel[0]*kernel[1]*kernel[2] <= 128 and cout_g <= 16 (and
 *                  32-bit in-plane offsets, below): no input staging; latency-bound shapes
 *                  such as the seed's (cin 3, cout 8, 3x3x3) finish in one short wave.
 *   shared memory  everything else: input tiles plus halo staged in shared memory per chunk of
 *                  input channels and reused by a block's kTileH x kTileW outputs.
 *
 *   in   x [batch, cin, in[0..2]] by x_stride, w [cout, cin_g, kernel[0..2]] by w_stride,
 *        bias [cout] or NULL, initial_frames [batch, cin, pad[0], in[1], in[2]] or NULL
 *   out  y [batch, cout, out[0..2]] by y_stride, fp32 accumulation
 *
 * Direct path (conv3d_tiled_direct_kernel). A thread computes kDirectRows = 2 output rows
 * (oh0, oh0+1) at one (n, od, ow) for kCout = 8 output channels of a group (4 where cout_g
 * <= 4): 16 fp32 accumulators. Launch: 128 threads, grid (position blocks, groups x channel
 * chunks), both grid-stride; threads of a block on consecutive (n, od, row pair, ow), ow
 * fastest, so a warp's x reads and NCDHW y writes are coalesced. The seed (14x62x62 outputs)
 * is 26.9 K threads, 211 blocks: every SM of an H100 busy, none with more than 2.
 *
 *   block (per chunk of kCout channels)      thread (per (ci, kd) slab of 3x3 taps)
 *   1. load the chunk's taps [t][kCout] and   rows ih0 .. ih0+3, columns iw0 .. iw0+2 of
 *      bias from w to registers, after the      plane (n, ci, id0 + kd*dilation[0]): 12 loads
 *      first slab's inputs are in flight        from global memory (L1/L2 serve neighbours),
 *   2. store them to shared memory (4 KB),      issued before the previous slab's FMAs
 *      one barrier                              (ping-pong registers); then 9 taps x 2 rows
 *   3. every thread: slabs, then bias/SiLU      x kCout FMAs, each tap's kCout weights one or
 *      and the stores (16-byte vectors where    two broadcast 16-byte shared reads
 *      y's channel stride is 1, NDHWC)
 *
 * Register-slab kernel (direct_slabs.hip) first: where the taps are 3x3 on h and w with
 * stride and dilation 1 there, cin_g * kernel[0] <= 9, x's w stride 1 and no initial frames
 * (the seed's NCDHW shape), every slab's inputs are loaded at once. Then the staged-strip
 * kernel (direct_staged.hip) for the same taps in any other layout (the seed's NDHWC shape:
 * a block stages its strip of x in shared memory, coalesced, and stores y through it). The
 * kernel below takes the rest (initial frames, other kernels, more slabs).
 *
 * Variants: kDirect3x3UnitW (3x3 taps on h, w with stride and dilation 1 there, x's w stride
 * 1: one address per row, the columns as immediate offsets), kDirect3x3 (the same with any
 * w stride: NDHWC), kDirectAny (any kernel, stride, dilation: per (ci, kd, kh) row the taps kw
 * in runs of 4, loads before FMAs). Padding and initial frames resolve per plane (a plane
 * before depth 0 comes from initial_frames, with its own strides) and per element (the
 * row/column mask, fixed per thread). In-plane offsets are 32-bit (the launcher checks that
 * x's and initial_frames' h and w strides are non-negative and every in-plane offset, and
 * every tap offset of one output channel of w, fits int32; else the shared-memory path
 * runs); plane and tensor offsets are 64-bit.
 *
 * Shared-memory path (conv3d_tiled_kernel).
 * Work item of a block: (n, group, od, tile of kTileH x kTileW output rows/columns, tile of
 * kCout output channels of the group). 256 threads = 32 columns (tx, lanes) x 8 thread rows
 * (ty); a thread owns kRows consecutive output rows at one column, for all kCout channels
 * (kRows*kCout fp32 accumulators). Grid-stride over the work items, the channel tile
 * fastest (neighbouring blocks read the same input tile from L2).
 *
 *   output tile (one od)                 input staged per input channel ci of a chunk
 *       ow0 ........ ow0+31                 kd = 0 .. kernel[0]-1 planes, each
 *   oh0  [ty0: rows 0,1      ]              HH = (kTileH-1)*stride[1] + (kernel[1]-1)*dilation[1] + 1 rows
 *        [ty1: rows 2,3      ]   <-  taps   WW = (kTileW-1)*stride[2] + (kernel[2]-1)*dilation[2] + 1 cols
 *        [   ...             ]              (fp32, padding and initial frames resolved while staging)
 *   +15  [ty7: rows 14,15    ]
 *
 * Per chunk of input channels (as many as the shared-memory budget holds, kBudgetBytes):
 * stage the chunk's planes (input depth od*stride[0] - pad[0] + kd*dilation[0]) and the taps
 * [ci, kd, kh, kw][kCout] of the block's channels, synchronise, accumulate, synchronise.
 * Staging is coalesced: consecutive threads take consecutive elements of the axis whose
 * stride is 1 in x (width for NCDHW; the channel for NDHWC, then the chunk's per-channel
 * blocks are an odd number of words apart so that those shared-memory writes do not
 * conflict), in batches of kStageBatch loads issued before their stores. The inner loop
 * reads one staged word per (row, tap) with the 32 lanes of a row on consecutive words
 * (conflict-free at stride 1; stride[2] = 2 is a 2-way conflict) and the taps as broadcast
 * 16-byte reads. kFixed3 specialises 3x3 taps on h and w with stride and dilation 1 there
 * (unrolled: neighbouring rows and columns are read once and reused from registers).
 *
 * Fallback: when one input channel's planes and taps exceed kBudgetBytes (very large
 * kernel*dilation or stride on h/w), the launcher runs the naive kernel (naive.hip) instead.
 */
#include <algorithm>

#include "activation.h"
#include "compat.h"
#include "element.h"
#include "geometry.h"
#include "hipconv/conv3d.h"
#include "launch.h"
#include "store_vector.h"

namespace hipconv {

template <typename T> hipconv_status_t launch_conv3d_naive(const hipconv_conv3d_params &p, hipStream_t stream);
template <typename T> bool try_conv3d_direct_slabs(const hipconv_conv3d_params &p, hipStream_t stream, hipconv_status_t &status);
template <typename T> bool try_conv3d_direct_staged(const hipconv_conv3d_params &p, hipStream_t stream, hipconv_status_t &status);
template <typename T>
bool try_conv3d_direct_staged_one_wave(const hipconv_conv3d_params &p, hipStream_t stream, hipconv_status_t &status);

namespace {

constexpr int kTiledThreads = 256;
constexpr int kTileW = 32;                         // output columns of a tile (= lanes of a row)
constexpr int kThreadRows = kTiledThreads / kTileW;  // 8
constexpr int kRows = 2;                           // output rows per thread
constexpr int kTileH = kThreadRows * kRows;        // 16
constexpr int kStageBatch = 4;                     // loads in flight per thread while staging
constexpr int kBudgetBytes = 48 * 1024;            // dynamic shared memory (no opt-in needed)

struct TiledGeometry {
    int hh, ww;          // staged rows and columns per plane
    int channel_words;   // words between two staged input channels (odd)
    int chunk;           // input channels per chunk
    int taps_offset;     // words before the taps (a multiple of 4)
    int tiles_h, tiles_w, cout_tiles;
    int channel_fastest;  // staging order: x's channel stride is 1
    int64_t items;
};

// The digits of a staged element, slowest first: (c, kd, hh, ww), or with channel_fastest
// (kd, hh, ww, c). Radix r[1..3] of the three fastest digits; the slowest is unbounded.
struct Digits {
    int d[4];
};
__device__ inline Digits split(int e, const int (&r)[4]) {
    Digits v;
    v.d[3] = e % r[3];
    e /= r[3];
    v.d[2] = e % r[2];
    e /= r[2];
    v.d[1] = e % r[1];
    v.d[0] = e / r[1];
    return v;
}
// v += s (s < the radices digit by digit, so each digit carries at most one).
__device__ inline void advance(Digits &v, const Digits &s, const int (&r)[4]) {
    int carry = 0;
#pragma unroll
    for (int k = 3; k >= 1; --k) {
        v.d[k] += s.d[k] + carry;
        carry = v.d[k] >= r[k];
        if (carry) v.d[k] -= r[k];
    }
    v.d[0] += s.d[0] + carry;
}

// The kCout taps of one (ci, kd, kh, kw), a broadcast read: 16-byte (or 8-byte) words
// (the taps start at a multiple of 4 words and each tap's kCout words are a multiple of 2).
template <int kCout> __device__ inline void load_taps(float (&wv)[kCout], const float *at) {
    static_assert(kCout % 4 == 0 || kCout == 2, "kCout: a multiple of 4, or 2");
    if constexpr (kCout % 4 == 0) {
#pragma unroll
        for (int q = 0; q < kCout / 4; ++q) {
            const float4 v = reinterpret_cast<const float4 *>(at)[q];
            wv[4 * q] = v.x;
            wv[4 * q + 1] = v.y;
            wv[4 * q + 2] = v.z;
            wv[4 * q + 3] = v.w;
        }
    } else {
        const float2 v = *reinterpret_cast<const float2 *>(at);
        wv[0] = v.x;
        wv[1] = v.y;
    }
}

template <typename T, int kCout, bool kFixed3>
__global__ void __launch_bounds__(kTiledThreads) conv3d_tiled_kernel(hipconv_conv3d_params p, TiledGeometry g) {
    extern __shared__ float4 shared_words[];
    float *staged = reinterpret_cast<float *>(shared_words);
    const float *taps = staged + g.taps_offset;
    float *taps_w = staged + g.taps_offset;
    const T *w = static_cast<const T *>(p.w);
    const T *bias = static_cast<const T *>(p.bias);
    T *y = static_cast<T *>(p.y);
    const int tid = threadIdx.x, tx = tid % kTileW, ty = tid / kTileW;
    const int cin_g = p.cin / p.groups, cout_g = p.cout / p.groups;
    const int kD = p.kernel[0], kH = kFixed3 ? 3 : p.kernel[1], kW = kFixed3 ? 3 : p.kernel[2];
    const int sh = kFixed3 ? 1 : p.stride[1], sw = kFixed3 ? 1 : p.stride[2];
    const int dh = kFixed3 ? 1 : p.dilation[1], dw = kFixed3 ? 1 : p.dilation[2];
    const int plane_words = g.hh * g.ww;
    const int taps_per_channel = kD * kH * kW;
    const bool silu = p.silu != 0;

    for (int64_t item = blockIdx.x; item < g.items; item += gridDim.x) {
        QuotientRemainder r = divide(item, g.cout_tiles);
        const int ct = (int)r.remainder;
        r = divide(r.quotient, g.tiles_w);
        const int ow0 = (int)r.remainder * kTileW;
        r = divide(r.quotient, g.tiles_h);
        const int oh0 = (int)r.remainder * kTileH;
        r = divide(r.quotient, p.out[0]);
        const int od = (int)r.remainder;
        r = divide(r.quotient, p.groups);
        const int group = (int)r.remainder;
        const int n = (int)r.quotient;
        const int co_first = ct * kCout;  // within the group
        const int id0 = od * p.stride[0] - p.pad[0];
        const int ih0 = oh0 * p.stride[1] - p.pad[1];
        const int iw0 = ow0 * p.stride[2] - p.pad[2];

        float acc[kRows][kCout];
#pragma unroll
        for (int j = 0; j < kCout; ++j) {
            const int co = co_first + j;
            const float b = bias != nullptr && co < cout_g ? to_float(bias[group * cout_g + co]) : 0.f;
#pragma unroll
            for (int rr = 0; rr < kRows; ++rr) acc[rr][j] = b;
        }

        for (int ci0 = 0; ci0 < cin_g; ci0 += g.chunk) {
            const int cc = min(g.chunk, cin_g - ci0);
            const int c_base = group * cin_g + ci0;
            __syncthreads();  // the previous chunk's reads are done

            // Input planes: cc*kD*hh*ww elements, consecutive threads on x's stride-1 axis.
            {
                const int radix[4] = {0, g.channel_fastest ? g.hh : kD, g.channel_fastest ? g.ww : g.hh,
                                      g.channel_fastest ? cc : g.ww};
                const int total = cc * kD * plane_words;
                Digits v = split(tid, radix);
                const Digits step = split(kTiledThreads, radix);
                for (int e = tid; e < total;) {
                    float value[kStageBatch];
                    int dst[kStageBatch];
#pragma unroll
                    for (int b = 0; b < kStageBatch; ++b) {
                        dst[b] = -1;
                        value[b] = 0.f;
                        if (e < total) {
                            const int c = g.channel_fastest ? v.d[3] : v.d[0];
                            const int kd = g.channel_fastest ? v.d[0] : v.d[1];
                            const int hh = g.channel_fastest ? v.d[1] : v.d[2];
                            const int ww = g.channel_fastest ? v.d[2] : v.d[3];
                            dst[b] = c * g.channel_words + kd * plane_words + hh * g.ww + ww;
                            const T *at = conv3d::input_at<T>(p, n, c_base + c, id0 + kd * p.dilation[0], ih0 + hh, iw0 + ww);
                            if (at != nullptr) value[b] = to_float(*at);
                        }
                        e += kTiledThreads;
                        advance(v, step, radix);
                    }
#pragma unroll
                    for (int b = 0; b < kStageBatch; ++b)
                        if (dst[b] >= 0) staged[dst[b]] = value[b];
                }
            }
            // Taps [c, kd, kh, kw][kCout], zero for channels past the group.
            for (int e = tid; e < cc * taps_per_channel * kCout; e += kTiledThreads) {
                const int j = e % kCout;
                int t = e / kCout;
                const int kw = t % kW;
                t /= kW;
                const int kh = t % kH;
                t /= kH;
                const int kd = t % kD;
                const int c = t / kD;
                const int co = co_first + j;
                taps_w[e] = co < cout_g ? to_float(w[conv3d::offset(p.w_stride, group * cout_g + co, ci0 + c, kd, kh, kw)])
                                        : 0.f;
            }
            __syncthreads();

            for (int c = 0; c < cc; ++c) {
                for (int kd = 0; kd < kD; ++kd) {
                    const float *plane = staged + c * g.channel_words + kd * plane_words;
                    const float *tap = taps + (c * kD + kd) * kH * kW * kCout;
                    if constexpr (kFixed3) {
                        // Rows ty*kRows .. +kRows+1, columns tx .. tx+2: each read once.
                        float in[kRows + 2][3];
#pragma unroll
                        for (int rr = 0; rr < kRows + 2; ++rr)
#pragma unroll
                            for (int kw = 0; kw < 3; ++kw) in[rr][kw] = plane[(ty * kRows + rr) * g.ww + tx + kw];
#pragma unroll
                        for (int kh = 0; kh < 3; ++kh)
#pragma unroll
                            for (int kw = 0; kw < 3; ++kw) {
                                float wv[kCout];
                                load_taps<kCout>(wv, tap + (kh * 3 + kw) * kCout);
#pragma unroll
                                for (int rr = 0; rr < kRows; ++rr)
#pragma unroll
                                    for (int j = 0; j < kCout; ++j) acc[rr][j] += in[rr + kh][kw] * wv[j];
                            }
                    } else {
                        for (int kh = 0; kh < kH; ++kh)
                            for (int kw = 0; kw < kW; ++kw) {
                                float wv[kCout];
                                load_taps<kCout>(wv, tap + (kh * kW + kw) * kCout);
                                const float *at = plane + (ty * kRows * sh + kh * dh) * g.ww + tx * sw + kw * dw;
#pragma unroll
                                for (int rr = 0; rr < kRows; ++rr) {
                                    const float in = at[rr * sh * g.ww];
#pragma unroll
                                    for (int j = 0; j < kCout; ++j) acc[rr][j] += in * wv[j];
                                }
                            }
                    }
                }
            }
        }

        const int ow = ow0 + tx;
#pragma unroll
        for (int rr = 0; rr < kRows; ++rr) {
            const int oh = oh0 + ty * kRows + rr;
            if (oh >= p.out[1] || ow >= p.out[2]) continue;
#pragma unroll
            for (int j = 0; j < kCout; ++j) {
                const int co = co_first + j;
                if (co >= cout_g) continue;
                y[conv3d::offset(p.y_stride, n, group * cout_g + co, od, oh, ow)] =
                    from_float<T>(activate_fast(acc[rr][j], silu));
            }
        }
    }
}

// The staging geometry for kCout, or false where one input channel does not fit the budget.
template <int kCout> bool tiled_geometry(const hipconv_conv3d_params &p, TiledGeometry &g, int &shared_bytes) {
    constexpr int64_t kBudgetWords = kBudgetBytes / 4;
    const int64_t hh = (int64_t)(kTileH - 1) * p.stride[1] + (int64_t)(p.kernel[1] - 1) * p.dilation[1] + 1;
    const int64_t ww = (int64_t)(kTileW - 1) * p.stride[2] + (int64_t)(p.kernel[2] - 1) * p.dilation[2] + 1;
    const int64_t taps = (int64_t)p.kernel[0] * p.kernel[1] * p.kernel[2] * kCout;
    if (hh > kBudgetWords || ww > kBudgetWords || taps > kBudgetWords) return false;
    const int64_t channel_words = ((int64_t)p.kernel[0] * hh * ww) | 1;
    const int64_t per_channel = channel_words + taps;
    if (per_channel + 4 > kBudgetWords) return false;
    const int cin_g = p.cin / p.groups, cout_g = p.cout / p.groups;
    const int64_t chunk = std::min<int64_t>(cin_g, (kBudgetWords - 4) / per_channel);
    g.hh = (int)hh;
    g.ww = (int)ww;
    g.channel_words = (int)channel_words;
    g.chunk = (int)chunk;
    g.taps_offset = (int)((chunk * channel_words + 3) / 4 * 4);
    g.tiles_h = (int)ceil_div(p.out[1], kTileH);
    g.tiles_w = (int)ceil_div(p.out[2], kTileW);
    g.cout_tiles = (int)ceil_div(cout_g, kCout);
    g.channel_fastest = p.x_stride[1] == 1 && p.x_stride[4] != 1;
    g.items = (int64_t)p.batch * p.groups * p.out[0] * g.tiles_h * g.tiles_w * g.cout_tiles;
    shared_bytes = (int)((g.taps_offset + chunk * taps) * 4);
    return true;
}

template <typename T, int kCout> hipconv_status_t launch_tiled(const hipconv_conv3d_params &p, hipStream_t stream) {
    TiledGeometry g;
    int shared_bytes = 0;
    if (!tiled_geometry<kCout>(p, g, shared_bytes)) return launch_conv3d_naive<T>(p, stream);
    const bool fixed3 = conv3d::taps_3x3_unit_hw(p);
    const dim3 grid(grid_blocks(g.items)), block(kTiledThreads);
    if (fixed3)
        hipLaunchKernelGGL((conv3d_tiled_kernel<T, kCout, true>), grid, block, shared_bytes, stream, p, g);
    else
        hipLaunchKernelGGL((conv3d_tiled_kernel<T, kCout, false>), grid, block, shared_bytes, stream, p, g);
    return last_launch_status();
}

// ------------------------------------------------------------------------ direct path
//
// Few taps per output (taps_g = cin_g*kernel[0]*kernel[1]*kernel[2] <= kDirectMaxTaps, cout_g
// <= kDirectMaxCout): no input staging. A thread computes 2 output rows (oh0, oh0+1) at one
// (n, od, ow) for the kCout channels of a chunk, from inputs read straight from global memory
// (neighbouring threads share them in L1/L2) and the chunk's taps staged once in shared memory.

constexpr int kDirectThreads = 128;  // 4 warps (2 on AMD): the seed's 27 K threads fill every SM
constexpr int kDirectRows = 2;       // output rows per thread (taps read once for both)
constexpr int kDirectMaxTaps = 128;  // taps_g, the selection's bound (shared: taps*kCout words)
constexpr int kDirectMaxCout = 16;   // cout_g, the selection's bound (2 chunks of 8)

struct DirectGeometry {
    uint32_t x_h, x_w;        // x's h and w strides (every in-plane offset fits int32 unsigned)
    uint32_t init_h, init_w;  // initial_frames' h and w strides (likewise; 0 without frames)
    int w_ci, w_kd, w_kh, w_kw;  // w's tap strides (every tap offset of one co fits int32)
    int row_pairs;         // ceil(out[1] / kDirectRows)
    int cout_chunks;       // ceil(cout_g / kCout)
    int group_chunks;      // groups * cout_chunks: the grid's y items
    int y_vector;          // y's kCout channels of a position are one aligned vector
    int64_t positions;     // batch * out[0] * row_pairs * out[2]: the threads' items
    int64_t blocks;        // ceil(positions / kDirectThreads): the grid's x items
};

// The kR x kC input patch of one (ci, kd) plane at the element offsets `off` (32-bit, within the
// plane), zero where `mask` (bit r*kC + c) is clear or the plane reads zero (plane == nullptr).
template <typename T, int kR, int kC>
__device__ inline void load_patch(float (&v)[kR][kC], const T *plane, const uint32_t (&off)[kR][kC], uint32_t mask) {
#pragma unroll
    for (int r = 0; r < kR; ++r)
#pragma unroll
        for (int c = 0; c < kC; ++c)
            v[r][c] = plane != nullptr && (mask >> (r * kC + c) & 1u) != 0 ? to_float(plane[off[r][c]]) : 0.f;
}

// The same patch where the plane's w stride is 1: row r starts at row[r] (signed: the first
// column may lie in the padding, at -pad[2]; only masked-in elements are read) and its kC
// elements are consecutive (one address per row, the columns as immediate offsets).
template <typename T, int kR, int kC>
__device__ inline void load_patch(float (&v)[kR][kC], const T *plane, const int (&row)[kR], uint32_t mask) {
#pragma unroll
    for (int r = 0; r < kR; ++r) {
        const T *at = plane + row[r];
#pragma unroll
        for (int c = 0; c < kC; ++c)
            v[r][c] = plane != nullptr && (mask >> (r * kC + c) & 1u) != 0 ? to_float(at[c]) : 0.f;
    }
}

// The direct kernel's variants: any kernel/stride/dilation on h and w, or 3x3 taps with stride
// and dilation 1 there, the second with w strides of 1 (NCDHW).
enum DirectPath { kDirectAny, kDirect3x3, kDirect3x3UnitW };

// NVIDIA: 3 blocks per SM (a register cap of 65536 / (128 * 3) = 170; the 3x3 path keeps a
// slab's taps in flight from shared memory and spills under the 128 of 4 blocks, and ptxas
// left to itself stops the generic path at 64 with spills; compat.h says why AMD keeps the
// plain bound).
template <typename T, int kCout, int kPath>
__global__ void HIPCONV_BOUNDS_NVIDIA(kDirectThreads, 3)
    conv3d_tiled_direct_kernel(hipconv_conv3d_params p, DirectGeometry g) {
    constexpr int kStaged = kDirectMaxTaps * kCout / kDirectThreads;  // taps words per thread
    constexpr int kTapStep = kDirectThreads / kCout;                   // taps between a thread's words
    static_assert(kDirectThreads % kCout == 0 && kStaged >= 1, "whole taps per block pass");
    __shared__ float4 shared_words[(kDirectMaxTaps + 1) * kCout / 4];  // taps [t][kCout], then bias [kCout]
    float *taps_w = reinterpret_cast<float *>(shared_words);
    const float *taps = taps_w;
    const T *x = static_cast<const T *>(p.x);
    const T *frames = static_cast<const T *>(p.initial_frames);
    const T *w = static_cast<const T *>(p.w);
    const T *bias = static_cast<const T *>(p.bias);
    T *y = static_cast<T *>(p.y);
    const int tid = threadIdx.x;
    const int cin_g = p.cin / p.groups, cout_g = p.cout / p.groups;
    constexpr bool kFixed3 = kPath != kDirectAny;
    const int kD = p.kernel[0], kH = kFixed3 ? 3 : p.kernel[1], kW = kFixed3 ? 3 : p.kernel[2];
    const int taps_g = cin_g * kD * kH * kW;
    const int slabs = cin_g * kD;  // (ci, kd) planes, kH*kW taps each
    const bool silu = p.silu != 0;

    for (int gc = blockIdx.y; gc < g.group_chunks; gc += gridDim.y) {
        const int group = gc / g.cout_chunks;
        const int co_first = (gc - group * g.cout_chunks) * kCout;  // within the group
        if (gc != (int)blockIdx.y) __syncthreads();  // the previous chunk's taps are read

        // The chunk's taps [t][kCout] and bias, staged by the first position block once its
        // first inputs are in flight. This thread's words e = tid + b*kDirectThreads: channel
        // j = tid % kCout, tap t = tid / kCout + b*kTapStep.
        bool taps_ready = false;
        auto stage_taps = [&]() {
            if (taps_ready) return;
            const int j = tid % kCout;
            const bool live = co_first + j < cout_g;
            const T *w_co = w + (live ? (int64_t)(group * cout_g + co_first + j) * p.w_stride[0] : 0);
            const int radix[4] = {0, kD, kH, kW};
            Digits v = split(tid / kCout, radix);  // (ci, kd, kh, kw)
            const Digits step = split(kTapStep, radix);
            float staged[kStaged];
#pragma unroll
            for (int b = 0; b < kStaged; ++b) {
                const int t = tid / kCout + b * kTapStep;
                staged[b] = live && t < taps_g
                                ? to_float(w_co[v.d[0] * g.w_ci + v.d[1] * g.w_kd + v.d[2] * g.w_kh + v.d[3] * g.w_kw])
                                : 0.f;
                advance(v, step, radix);
            }
            const float bias_value =
                tid < kCout && bias != nullptr && co_first + tid < cout_g ? to_float(bias[group * cout_g + co_first + tid]) : 0.f;
#pragma unroll
            for (int b = 0; b < kStaged; ++b) taps_w[tid + b * kDirectThreads] = staged[b];
            if (tid < kCout) taps_w[kDirectMaxTaps * kCout + tid] = bias_value;
            __syncthreads();
            taps_ready = true;
        };

        for (int64_t block = blockIdx.x; block < g.blocks; block += gridDim.x) {
            // Position (n, od, row pair, ow), ow fastest.
            const int64_t item = block * kDirectThreads + tid;
            const bool valid = item < g.positions;
            QuotientRemainder r = divide(valid ? item : 0, p.out[2]);
            const int ow = (int)r.remainder;
            r = divide(r.quotient, g.row_pairs);
            const int oh0 = (int)r.remainder * kDirectRows;
            r = divide(r.quotient, p.out[0]);
            const int od = (int)r.remainder;
            const int n = (int)r.quotient;
            const int id0 = od * p.stride[0] - p.pad[0];
            const int ih0 = oh0 * p.stride[1] - p.pad[1];
            const int iw0 = ow * p.stride[2] - p.pad[2];
            const int c0 = group * cin_g;
            const T *x_n = x + conv3d::offset(p.x_stride, n, c0, 0, 0, 0);
            const T *frames_n = frames != nullptr ? frames + conv3d::offset(p.initial_stride, n, c0, 0, 0, 0) : nullptr;
            // The plane (ci, id) in x or initial_frames (x_plane says which), nullptr where it reads zero.
            auto plane_at = [&](int ci, int id, bool &x_plane) -> const T * {
                x_plane = id >= 0;
                if (id >= p.in[0]) return nullptr;
                if (id >= 0) return x_n + ci * p.x_stride[1] + id * p.x_stride[2];
                if (frames_n == nullptr || id < -p.pad[0]) return nullptr;
                return frames_n + ci * p.initial_stride[1] + (p.pad[0] + id) * p.initial_stride[2];
            };

            float acc[kDirectRows][kCout];
            if constexpr (kFixed3) {
                // 3x3 taps on h and w, stride and dilation 1 there: the (ci, kd) slab is a
                // (kDirectRows+2) x 3 patch; the next slab's loads are issued before this one's FMAs.
                constexpr int kR = kDirectRows + 2;
                // Offsets in x's planes of the patch's elements (kDirect3x3) or rows
                // (kDirect3x3UnitW), and which elements lie inside the input (bit rr*3 + c).
                uint32_t off[kR][3];
                int row[kR];
                uint32_t mask = 0;
#pragma unroll
                for (int rr = 0; rr < kR; ++rr) {
                    const int ih = ih0 + rr;
                    const bool row_in = valid && ih >= 0 && ih < p.in[1];
                    row[rr] = row_in ? (int)(ih * g.x_h) + iw0 : 0;
#pragma unroll
                    for (int c = 0; c < 3; ++c) {
                        const int iw = iw0 + c;
                        const bool in = row_in && iw >= 0 && iw < p.in[2];
                        off[rr][c] = in ? ih * g.x_h + iw * g.x_w : 0u;
                        mask |= (uint32_t)in << (rr * 3 + c);
                    }
                }
                auto load_slab = [&](float (&v)[kR][3], int ci, int kd) {
                    bool x_plane;
                    const T *plane = plane_at(ci, id0 + kd * p.dilation[0], x_plane);
                    if (x_plane || plane == nullptr) {
                        if constexpr (kPath == kDirect3x3UnitW)
                            load_patch<T, kR, 3>(v, plane, row, mask);
                        else
                            load_patch<T, kR, 3>(v, plane, off, mask);
                    } else if constexpr (kPath == kDirect3x3UnitW) {  // initial_frames: its own h stride
                        int row_frames[kR];
#pragma unroll
                        for (int rr = 0; rr < kR; ++rr) row_frames[rr] = (int)((ih0 + rr) * g.init_h) + iw0;
                        load_patch<T, kR, 3>(v, plane, row_frames, mask);
                    } else {  // initial_frames: its own strides
                        uint32_t off_frames[kR][3];
#pragma unroll
                        for (int rr = 0; rr < kR; ++rr)
#pragma unroll
                            for (int c = 0; c < 3; ++c)
                                off_frames[rr][c] =
                                    (mask >> (rr * 3 + c) & 1u) != 0 ? (ih0 + rr) * g.init_h + (iw0 + c) * g.init_w : 0u;
                        load_patch<T, kR, 3>(v, plane, off_frames, mask);
                    }
                };
                // acc += slab s (patch v) times its 9 taps.
                auto accumulate = [&](const float (&v)[kR][3], int s) {
                    const float *tap = taps + s * 9 * kCout;
#pragma unroll
                    for (int kh = 0; kh < 3; ++kh)
#pragma unroll
                        for (int kw = 0; kw < 3; ++kw) {
                            float wv[kCout];
                            load_taps<kCout>(wv, tap + (kh * 3 + kw) * kCout);
#pragma unroll
                            for (int rr = 0; rr < kDirectRows; ++rr)
#pragma unroll
                                for (int j = 0; j < kCout; ++j) acc[rr][j] += v[rr + kh][kw] * wv[j];
                        }
                };
                float even[kR][3], odd[kR][3];  // slabs 2i and 2i+1
                load_slab(even, 0, 0);
                stage_taps();
#pragma unroll
                for (int rr = 0; rr < kDirectRows; ++rr)
#pragma unroll
                    for (int j = 0; j < kCout; ++j) acc[rr][j] = taps[kDirectMaxTaps * kCout + j];
                int ci = 0, kd = 0;  // the slab after the one being accumulated
                auto step = [&]() {
                    if (++kd == kD) kd = 0, ++ci;
                };
                for (int s = 0; s < slabs; s += 2) {
                    step();
                    if (s + 1 < slabs) load_slab(odd, ci, kd);
                    accumulate(even, s);
                    if (s + 1 >= slabs) break;
                    step();
                    if (s + 2 < slabs) load_slab(even, ci, kd);
                    accumulate(odd, s + 1);
                }
            } else {
                // Any kernel, stride and dilation on h and w: per (ci, kd, kh) row, the taps kw in
                // runs of kRun (loads of a run issued before its FMAs).
                constexpr int kRun = 4;
                stage_taps();
#pragma unroll
                for (int rr = 0; rr < kDirectRows; ++rr)
#pragma unroll
                    for (int j = 0; j < kCout; ++j) acc[rr][j] = taps[kDirectMaxTaps * kCout + j];
                const float *tap = taps;
                for (int ci = 0; ci < cin_g; ++ci)
                    for (int kd = 0; kd < kD; ++kd) {
                        bool x_plane = true;
                        const T *plane = valid ? plane_at(ci, id0 + kd * p.dilation[0], x_plane) : nullptr;
                        const uint32_t hs = x_plane ? g.x_h : g.init_h, ws = x_plane ? g.x_w : g.init_w;
                        for (int kh = 0; kh < kH; ++kh, tap += kW * kCout) {
                            uint32_t row[kDirectRows];
                            bool row_in[kDirectRows];
#pragma unroll
                            for (int rr = 0; rr < kDirectRows; ++rr) {
                                const int ih = ih0 + rr * p.stride[1] + kh * p.dilation[1];
                                row_in[rr] = plane != nullptr && ih >= 0 && ih < p.in[1];
                                row[rr] = row_in[rr] ? ih * hs : 0u;
                            }
                            for (int kw0 = 0; kw0 < kW; kw0 += kRun) {
                                float v[kDirectRows][kRun];
#pragma unroll
                                for (int q = 0; q < kRun; ++q) {
                                    const int iw = iw0 + (kw0 + q) * p.dilation[2];
                                    const bool col_in = kw0 + q < kW && iw >= 0 && iw < p.in[2];
#pragma unroll
                                    for (int rr = 0; rr < kDirectRows; ++rr)
                                        v[rr][q] = col_in && row_in[rr] ? to_float(plane[row[rr] + iw * ws]) : 0.f;
                                }
#pragma unroll
                                for (int q = 0; q < kRun; ++q) {
                                    if (kw0 + q >= kW) break;
                                    float wv[kCout];
                                    load_taps<kCout>(wv, tap + (kw0 + q) * kCout);
#pragma unroll
                                    for (int rr = 0; rr < kDirectRows; ++rr)
#pragma unroll
                                        for (int j = 0; j < kCout; ++j) acc[rr][j] += v[rr][q] * wv[j];
                                }
                            }
                        }
                    }
            }

            if (!valid) continue;
            T *y_at = y + conv3d::offset(p.y_stride, n, group * cout_g + co_first, od, oh0, ow);
#pragma unroll
            for (int rr = 0; rr < kDirectRows; ++rr, y_at += p.y_stride[3]) {
                if (oh0 + rr >= p.out[1]) continue;
                float out[kCout];
#pragma unroll
                for (int j = 0; j < kCout; ++j) out[j] = activate_fast(acc[rr][j], silu);
                if (g.y_vector) {
                    conv3d::store_vector<T, kCout>(y_at, out);
                } else {
#pragma unroll
                    for (int j = 0; j < kCout; ++j)
                        if (co_first + j < cout_g) y_at[j * p.y_stride[1]] = from_float<T>(out[j]);
                }
            }
        }
    }
}

// The direct path's geometry for kCout, or false where its 32-bit offsets would not fit: the
// in-plane offsets of x and initial_frames (non-negative h and w strides, every offset below
// 2^31) and the tap offsets of one output channel of w (the shared-memory path runs instead).
template <typename T, int kCout> bool direct_geometry(const hipconv_conv3d_params &p, DirectGeometry &g) {
    const int cin_g = p.cin / p.groups, cout_g = p.cout / p.groups;
    auto fits = [](int64_t a, int64_t b) { return a + b <= INT32_MAX; };
    auto plane_fits = [&](const int64_t (&s)[conv3d::kTensorAxes]) {
        return (p.in[1] == 1 || s[3] >= 0) && (p.in[2] == 1 || s[4] >= 0) &&
               fits(conv3d::axis_span(s[3], p.in[1]), conv3d::axis_span(s[4], p.in[2]));
    };
    // Strides of axes of extent 1 never multiply a nonzero index: passed as 0.
    auto narrow = [](int64_t stride, int32_t extent) { return extent > 1 ? (int)stride : 0; };
    if (!plane_fits(p.x_stride) || (p.initial_frames != nullptr && !plane_fits(p.initial_stride))) return false;
    if (!fits(conv3d::axis_span(p.w_stride[1], cin_g) + conv3d::axis_span(p.w_stride[2], p.kernel[0]),
              conv3d::axis_span(p.w_stride[3], p.kernel[1]) + conv3d::axis_span(p.w_stride[4], p.kernel[2])))
        return false;
    g.x_h = (uint32_t)narrow(p.x_stride[3], p.in[1]);
    g.x_w = (uint32_t)narrow(p.x_stride[4], p.in[2]);
    g.init_h = p.initial_frames != nullptr ? (uint32_t)narrow(p.initial_stride[3], p.in[1]) : 0u;
    g.init_w = p.initial_frames != nullptr ? (uint32_t)narrow(p.initial_stride[4], p.in[2]) : 0u;
    g.w_ci = narrow(p.w_stride[1], cin_g);
    g.w_kd = narrow(p.w_stride[2], p.kernel[0]);
    g.w_kh = narrow(p.w_stride[3], p.kernel[1]);
    g.w_kw = narrow(p.w_stride[4], p.kernel[2]);
    g.row_pairs = (int)ceil_div(p.out[1], kDirectRows);
    g.cout_chunks = (int)ceil_div(cout_g, kCout);
    g.group_chunks = p.groups * g.cout_chunks;  // <= cout (cout_g >= 1 per chunk)
    // One vector per position: channel stride 1, whole chunks, and every other stride and the
    // base a whole number of vectors.
    constexpr int kVector = (kCout * (int)sizeof(T) < 16 ? kCout * (int)sizeof(T) : 16) / (int)sizeof(T);
    bool vector = p.y_stride[1] == 1 && cout_g % kCout == 0 &&
                  reinterpret_cast<uintptr_t>(p.y) % (kVector * sizeof(T)) == 0;
    for (int a = 0; a < conv3d::kTensorAxes; ++a) vector = vector && (a == 1 || p.y_stride[a] % kVector == 0);
    g.y_vector = vector;
    g.positions = (int64_t)p.batch * p.out[0] * g.row_pairs * p.out[2];
    g.blocks = ceil_div(g.positions, kDirectThreads);
    return true;
}

template <typename T, int kCout> hipconv_status_t launch_direct(const hipconv_conv3d_params &p, const DirectGeometry &g,
                                                                hipStream_t stream) {
    const bool fixed3 = conv3d::taps_3x3_unit_hw(p);
    // w strides of 1 (or a width of 1, where only column 0 is read).
    const bool unit_w = p.in[2] == 1 || (p.x_stride[4] == 1 && (p.initial_frames == nullptr || p.initial_stride[4] == 1));
    const dim3 grid(grid_blocks(g.blocks), (unsigned)std::min(g.group_chunks, 65535)), block(kDirectThreads);
    if (fixed3 && unit_w)
        hipLaunchKernelGGL((conv3d_tiled_direct_kernel<T, kCout, kDirect3x3UnitW>), grid, block, 0, stream, p, g);
    else if (fixed3)
        hipLaunchKernelGGL((conv3d_tiled_direct_kernel<T, kCout, kDirect3x3>), grid, block, 0, stream, p, g);
    else
        hipLaunchKernelGGL((conv3d_tiled_direct_kernel<T, kCout, kDirectAny>), grid, block, 0, stream, p, g);
    return last_launch_status();
}

// The direct path where it applies (few taps, few channels, offsets that fit); false where
// the shared-memory path should run.
template <typename T> bool try_direct(const hipconv_conv3d_params &p, hipStream_t stream, hipconv_status_t &status) {
    const int64_t cin_g = p.cin / p.groups, cout_g = p.cout / p.groups;
    const int64_t taps_g = cin_g * p.kernel[0] * p.kernel[1] * p.kernel[2];
    if (taps_g > kDirectMaxTaps || cout_g > kDirectMaxCout) return false;
    // The staged-strip kernel's chained one-wave launch (sm_90 and newer) before the
    // register-slab kernel, its ordinary launch after it (direct_staged.hip).
    if (try_conv3d_direct_staged_one_wave<T>(p, stream, status)) return true;
    if (try_conv3d_direct_slabs<T>(p, stream, status)) return true;
    if (try_conv3d_direct_staged<T>(p, stream, status)) return true;
    DirectGeometry g;
    if (cout_g > 4) {
        if (!direct_geometry<T, 8>(p, g)) return false;
        status = launch_direct<T, 8>(p, g, stream);
    } else {
        if (!direct_geometry<T, 4>(p, g)) return false;
        status = launch_direct<T, 4>(p, g, stream);
    }
    return true;
}

}  // namespace

template <typename T> hipconv_status_t launch_conv3d_tiled(const hipconv_conv3d_params &p, hipStream_t stream) {
    if (!conv3d::valid_params(p)) return (hipconv_status_t)hipErrorInvalidValue;
    hipconv_status_t status;
    if (try_direct<T>(p, stream, status)) return status;
    // 8 output channels per block where the group has more than 4, else 2 (depthwise-like
    // groups waste at most one of the two).
    return p.cout / p.groups > 4 ? launch_tiled<T, 8>(p, stream) : launch_tiled<T, 2>(p, stream);
}

}  // namespace hipconv

HIPCONV_EXPORT_PER_DTYPE(conv3d_tiled, hipconv_conv3d_params)
