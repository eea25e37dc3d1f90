/*
 * Tiled conv3d (hipconv/conv3d.h): a block computes a tile of outputs for a few output
 * channels of one group from shared memory; any geometry, groups, strides, padding,
 * dilation and initial frames.
 *
 *   in   x [batch, cin, in[0..2]] by x_stride, w [cout, cin_g, kernel[0..2]] by w_stride,
 *        bias [cout] or NULL, initial_frames [batch, cin, pad[0], in[1], in[2]] or NULL
 *   out  y [batch, cout, out[0..2]] by y_stride, fp32 accumulation
 *
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

namespace hipconv {

template <typename T> hipconv_status_t launch_conv3d_naive(const hipconv_conv3d_params &p, hipStream_t stream);

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
    const bool fixed3 = p.kernel[1] == 3 && p.kernel[2] == 3 && p.stride[1] == 1 && p.stride[2] == 1 &&
                        p.dilation[1] == 1 && p.dilation[2] == 1;
    const dim3 grid(grid_blocks(g.items)), block(kTiledThreads);
    if (fixed3)
        hipLaunchKernelGGL((conv3d_tiled_kernel<T, kCout, true>), grid, block, shared_bytes, stream, p, g);
    else
        hipLaunchKernelGGL((conv3d_tiled_kernel<T, kCout, false>), grid, block, shared_bytes, stream, p, g);
    return last_launch_status();
}

}  // namespace

template <typename T> hipconv_status_t launch_conv3d_tiled(const hipconv_conv3d_params &p, hipStream_t stream) {
    if (!conv3d::valid_params(p)) return (hipconv_status_t)hipErrorInvalidValue;
    // 8 output channels per block where the group has more than 4, else 2 (depthwise-like
    // groups waste at most one of the two).
    return p.cout / p.groups > 4 ? launch_tiled<T, 8>(p, stream) : launch_tiled<T, 2>(p, stream);
}

}  // namespace hipconv

HIPCONV_EXPORT_PER_DTYPE(conv3d_tiled, hipconv_conv3d_params)
