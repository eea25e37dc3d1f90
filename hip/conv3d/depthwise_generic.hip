/*
 * Depthwise conv3d for any geometry (hipconv/conv3d.h with groups == cin == cout): what
 * depthwise.hip's launcher runs where none of its 3x3x3 unit-stride kernels (nor, on
 * Hopper, depthwise_diagonal.hip) applies: other kernel sizes, strides, dilations, odd or
 * unaligned tensors. fp32 accumulation, bias, SiLU, initial frames, 64-bit tensor offsets.
 *
 *   in   x [batch, C, in[0..2]] by x_stride, w [C, 1, kernel[0..2]] by w_stride,
 *        bias [C] or NULL, initial_frames [batch, C, pad[0], in[1], in[2]] or NULL
 *   out  y [batch, C, out[0..2]] by y_stride
 *        y[n, c, o] = act(bias[c] + sum_k w[c, 0, k] * x[n, c, o * stride - pad + k * dilation])
 *        (input depths before 0 from initial_frames where given, else zero; every tap in
 *        the order kd, kh, kw)
 *
 * vectors: channels contiguous (c stride 1, C % kVec == 0 and 16-byte vectors of kVec =
 *   16 / sizeof(T) channels aligned in x, y and initial_frames). A thread owns one vector
 *   of channels at kVectorCols (4) consecutive output columns of one output row; per tap
 *   it reads the tap's kVec weights from shared memory once and each column's input vector
 *   with one 16-byte load (predicated off outside x), neighbouring lanes on neighbouring
 *   vectors of one position.
 *
 *   Block: tile_vecs channel vectors (lanes, tx) x block_positions positions (ty), at most
 *   128 threads; grid (position blocks, channel tiles), grid-stride over position blocks, so
 *   that a block stages its channel tile's taps and bias once, as fp32:
 *
 *     shared [kernel taps + 1 (the bias)][kVec / 4 quarters][tile_vecs][4 floats]
 *              lane tx reads float4 [t][q][tx]: a warp's lanes read consecutive 16-byte
 *              words (no bank conflicts; lanes of other positions read the same word)
 *
 *     output row (n, od, oh):   ow0 .. ow0+3 (kVectorCols)   x row (n, id, ih), id = od *
 *       stride[0] - pad[0] + kd * dilation[0]: input columns (ow0 + c) * stride[2] -
 *       pad[2] + kw * dilation[2], c = 0..3, one 16-byte load each (kVec channels)
 *
 * columns: anything else. A thread owns kColumnsCols (4) output columns ow = j + k * runs
 *   (k = 0..3, runs = ceil(out[2] / 4)) of one channel of one output row, so that
 *   consecutive threads (j, j + 1) read and write neighbouring columns of each of their
 *   four; where y's channel stride is 1 and its w stride is not, consecutive threads take
 *   consecutive channels of the same columns instead. The taps come from w per tap (in
 *   the width-fastest order the same address in most of a warp's lanes); no shared
 *   memory. 256 threads, grid-stride.
 *
 * Shared memory of vectors: (taps + 1) * tile_vecs * kVec * 4 bytes, at most 48 KiB (the
 * launcher halves tile_vecs until it fits, and runs columns where one vector's taps do not,
 * or where the channel tiles pass the grid's 65535).
 */
#include <algorithm>

#include "activation.h"
#include "compat.h"
#include "element.h"
#include "geometry.h"
#include "global_vectors.h"
#include "hipconv/conv3d.h"
#include "launch.h"

namespace hipconv {

namespace {

using namespace depthwise;  // kVecOf, the 16-byte loads and stores

constexpr int kVectorCols = 4;            // vectors: output columns per thread
constexpr int kVectorThreads = 128;       // vectors: threads per block, at most
constexpr int kMaxTileVecs = 32;          // vectors: channel vectors per block (lanes)
constexpr int kMaxSharedBytes = 48 * 1024;
constexpr int kColumnsCols = 4;           // columns: output columns per thread
constexpr int kColumnsThreads = 256;

// Leaving the unrolled store loop past the row's last column. hipcc unrolls a loop with a
// single exit only (continue); with break, and with the minimum of one block an SM named in
// the launch bounds (HIPCONV_BOUNDS_NVIDIA: NVIDIA only), nvcc compiles the vectors kernel
// without a stack frame (without either: 4 bytes spilled in the 16-bit forms, 5-60% slower
// at the dev bench's cases, H200). The same in effect.
#if defined(HIPCONV_PLATFORM_NVIDIA)
#define HIPCONV_DW_PAST_ROW break
#else
#define HIPCONV_DW_PAST_ROW continue
#endif

struct VectorsGeometry {
    int taps;             // kernel[0] * kernel[1] * kernel[2]
    int tile_vecs;        // channel vectors per block (tx)
    int block_positions;  // positions per block (ty)
    int vecs;             // C / kVec
    int col_runs;         // ceil(out[2] / kVectorCols)
    int64_t positions;    // batch * out[0] * out[1] * col_runs
};

// The input plane `id` of one (n, c): in x, or in initial_frames before depth 0, with the
// strides of the tensor it lies in; `at` is nullptr where the whole plane reads zero.
template <typename T> struct InputPlane {
    const T *at;
    int64_t row_stride, col_stride;
};
template <typename T>
__device__ inline InputPlane<T> input_plane(const hipconv_conv3d_params &p, const T *x_nc, const T *frames_nc, int id) {
    if (id >= 0) return {id < p.in[0] ? x_nc + id * p.x_stride[2] : nullptr, p.x_stride[3], p.x_stride[4]};
    const bool framed = frames_nc != nullptr && id >= -p.pad[0];
    return {framed ? frames_nc + (p.pad[0] + id) * p.initial_stride[2] : nullptr, p.initial_stride[3],
            p.initial_stride[4]};
}

// x and initial_frames (or nullptr) at (n, c, depth 0, row 0, column 0).
template <typename T> __device__ inline const T *x_at(const hipconv_conv3d_params &p, int n, int c) {
    return static_cast<const T *>(p.x) + conv3d::offset(p.x_stride, n, c, 0, 0, 0);
}
template <typename T> __device__ inline const T *frames_at(const hipconv_conv3d_params &p, int n, int c) {
    return p.initial_frames == nullptr ? nullptr
                                       : static_cast<const T *>(p.initial_frames) + conv3d::offset(p.initial_stride, n, c, 0, 0, 0);
}

template <typename T, bool kSilu>
__global__ void HIPCONV_BOUNDS_NVIDIA(kVectorThreads, 1) conv3d_depthwise_vectors_kernel(hipconv_conv3d_params p, VectorsGeometry g) {
    constexpr int kVec = kVecOf<T>;
    constexpr int kQuarters = kVec / 4;  // float4 words of one vector's taps
    extern __shared__ float4 shared_taps[];  // [taps + 1][kQuarters][tile_vecs]
    const int tx = threadIdx.x % g.tile_vecs, ty = threadIdx.x / g.tile_vecs;
    const int tile_channels = g.tile_vecs * kVec;
    const int channel0 = (int)blockIdx.y * tile_channels;

    // The tile's taps (t = (kd * kernel[1] + kh) * kernel[2] + kw) and, as tap `taps`, its bias.
    const T *w = static_cast<const T *>(p.w), *bias = static_cast<const T *>(p.bias);
    float *staged = reinterpret_cast<float *>(shared_taps);
    for (int i = threadIdx.x; i < (g.taps + 1) * tile_channels; i += blockDim.x) {
        const int t = i / tile_channels, tc = i - t * tile_channels, c = channel0 + tc;
        const int lane = tc / kVec, e = tc - lane * kVec;  // word (t, e / 4, lane, e % 4)
        float v = 0.f;
        if (c < p.cout && t < g.taps) {
            const int kw = t % p.kernel[2], khd = t / p.kernel[2];
            v = to_float(w[conv3d::offset(p.w_stride, c, 0, khd / p.kernel[1], khd % p.kernel[1], kw)]);
        } else if (c < p.cout && bias != nullptr) {
            v = to_float(bias[c]);
        }
        staged[((t * kQuarters + e / 4) * g.tile_vecs + lane) * 4 + e % 4] = v;
    }
    __syncthreads();
    const int cv = (int)blockIdx.y * g.tile_vecs + tx;
    if (ty >= g.block_positions || cv >= g.vecs) return;  // no barrier follows
    const int c0 = cv * kVec;
    const float4 *lane_taps = shared_taps + tx;

    for (int64_t position = (int64_t)blockIdx.x * g.block_positions + ty; position < g.positions;
         position += (int64_t)gridDim.x * g.block_positions) {
        QuotientRemainder r = divide(position, g.col_runs);
        const int ow0 = (int)r.remainder * kVectorCols;
        r = divide(r.quotient, p.out[1]);
        const int oh = (int)r.remainder;
        r = divide(r.quotient, p.out[0]);
        const int od = (int)r.remainder, n = (int)r.quotient;

        float acc[kVectorCols][kVec];
#pragma unroll
        for (int q = 0; q < kQuarters; ++q) {
            const float4 b = lane_taps[(g.taps * kQuarters + q) * g.tile_vecs];
#pragma unroll
            for (int c = 0; c < kVectorCols; ++c)
                acc[c][4 * q] = b.x, acc[c][4 * q + 1] = b.y, acc[c][4 * q + 2] = b.z, acc[c][4 * q + 3] = b.w;
        }
        int iw0[kVectorCols];  // input column of tap kw = 0, per output column
#pragma unroll
        for (int c = 0; c < kVectorCols; ++c) iw0[c] = (ow0 + c) * p.stride[2] - p.pad[2];
        const int id0 = od * p.stride[0] - p.pad[0], ih0 = oh * p.stride[1] - p.pad[1];
        const T *x_nc = x_at<T>(p, n, c0), *frames_nc = frames_at<T>(p, n, c0);
        int t = 0;  // the tap of (kd, kh, kw = 0)
        for (int kd = 0; kd < p.kernel[0]; ++kd) {
            const InputPlane<T> plane = input_plane<T>(p, x_nc, frames_nc, id0 + kd * p.dilation[0]);
            if (plane.at == nullptr) {
                t += p.kernel[1] * p.kernel[2];
                continue;
            }
            const int64_t col_step = p.stride[2] * plane.col_stride, kw_step = p.dilation[2] * plane.col_stride;
            for (int kh = 0; kh < p.kernel[1]; ++kh, t += p.kernel[2]) {
                const int ih = ih0 + kh * p.dilation[1];
                if ((unsigned)ih >= (unsigned)p.in[1]) continue;
                const T *at = plane.at + ih * plane.row_stride + iw0[0] * plane.col_stride;  // (c, kw) = (0, 0)
                for (int kw = 0; kw < p.kernel[2]; ++kw, at += kw_step) {
                    float tap[kVec];
#pragma unroll
                    for (int q = 0; q < kQuarters; ++q) {
                        const float4 v = lane_taps[((t + kw) * kQuarters + q) * g.tile_vecs];
                        tap[4 * q] = v.x, tap[4 * q + 1] = v.y, tap[4 * q + 2] = v.z, tap[4 * q + 3] = v.w;
                    }
                    const int dw = kw * p.dilation[2];
#pragma unroll
                    for (int c = 0; c < kVectorCols; ++c) {
                        float v[kVec];
                        load_vector<T>(v, at + c * col_step, (unsigned)(iw0[c] + dw) < (unsigned)p.in[2]);
#pragma unroll
                        for (int e = 0; e < kVec; ++e) acc[c][e] = fmaf(v[e], tap[e], acc[c][e]);
                    }
                }
            }
        }
        T *y = static_cast<T *>(p.y) + conv3d::offset(p.y_stride, n, c0, od, oh, ow0);
#pragma unroll
        for (int c = 0; c < kVectorCols; ++c) {
            if (ow0 + c >= p.out[2]) HIPCONV_DW_PAST_ROW;
            if constexpr (kSilu) {
#pragma unroll
                for (int e = 0; e < kVec; ++e) acc[c][e] = silu_fast(acc[c][e]);
            }
            store_vector<T>(y + c * p.y_stride[4], acc[c]);
        }
    }
}

template <typename T, bool kSilu>
__global__ void __launch_bounds__(kColumnsThreads)
    conv3d_depthwise_columns_kernel(hipconv_conv3d_params p, int col_runs, int64_t items, bool channel_fastest) {
    const T *w = static_cast<const T *>(p.w), *bias = static_cast<const T *>(p.bias);
    for (int64_t item = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; item < items;
         item += (int64_t)gridDim.x * blockDim.x) {
        // item = (((n * C + c) * out[0] + od) * out[1] + oh) * col_runs + j, or, channel
        // fastest, (((n * out[0] + od) * out[1] + oh) * col_runs + j) * C + c.
        int c = 0;
        QuotientRemainder r = {item, 0};
        if (channel_fastest) {
            r = divide(r.quotient, p.cout);
            c = (int)r.remainder;
        }
        r = divide(r.quotient, col_runs);
        const int j = (int)r.remainder;
        r = divide(r.quotient, p.out[1]);
        const int oh = (int)r.remainder;
        r = divide(r.quotient, p.out[0]);
        const int od = (int)r.remainder;
        int n;
        if (channel_fastest) {
            n = (int)r.quotient;
        } else {
            r = divide(r.quotient, p.cout);
            c = (int)r.remainder, n = (int)r.quotient;
        }

        const float b = bias != nullptr ? to_float(bias[c]) : 0.f;
        float acc[kColumnsCols];
        int iw0[kColumnsCols];  // input column of tap kw = 0, per output column
#pragma unroll
        for (int k = 0; k < kColumnsCols; ++k) acc[k] = b, iw0[k] = (j + k * col_runs) * p.stride[2] - p.pad[2];
        const int id0 = od * p.stride[0] - p.pad[0], ih0 = oh * p.stride[1] - p.pad[1];
        const T *w_c = w + c * p.w_stride[0];
        const T *x_nc = x_at<T>(p, n, c), *frames_nc = frames_at<T>(p, n, c);
        for (int kd = 0; kd < p.kernel[0]; ++kd) {
            const InputPlane<T> plane = input_plane<T>(p, x_nc, frames_nc, id0 + kd * p.dilation[0]);
            if (plane.at == nullptr) continue;
            const int64_t col_step = col_runs * p.stride[2] * plane.col_stride, kw_step = p.dilation[2] * plane.col_stride;
            for (int kh = 0; kh < p.kernel[1]; ++kh) {
                const int ih = ih0 + kh * p.dilation[1];
                if ((unsigned)ih >= (unsigned)p.in[1]) continue;
                const T *at = plane.at + ih * plane.row_stride + iw0[0] * plane.col_stride;  // (k, kw) = (0, 0)
                const T *w_row = w_c + kd * p.w_stride[2] + kh * p.w_stride[3];
                for (int kw = 0; kw < p.kernel[2]; ++kw, at += kw_step) {
                    const float tap = to_float(w_row[kw * p.w_stride[4]]);
                    const int dw = kw * p.dilation[2];
#pragma unroll
                    for (int k = 0; k < kColumnsCols; ++k) {
                        const float v = (unsigned)(iw0[k] + dw) < (unsigned)p.in[2] ? to_float(at[k * col_step]) : 0.f;
                        acc[k] = fmaf(v, tap, acc[k]);
                    }
                }
            }
        }
        T *y = static_cast<T *>(p.y) + conv3d::offset(p.y_stride, n, c, od, oh, j);
#pragma unroll
        for (int k = 0; k < kColumnsCols; ++k)
            if (j + k * col_runs < p.out[2]) y[k * col_runs * p.y_stride[4]] = from_float<T>(activate<kSilu>(acc[k]));
    }
}

// The vectors kernel's block shape and shared memory, or false where it does not apply.
template <typename T> bool vectors_geometry(const hipconv_conv3d_params &p, VectorsGeometry &g, int &shared_bytes) {
    constexpr int kVec = kVecOf<T>;
    const bool channels_contiguous =
        p.cout % kVec == 0 && conv3d::vectors_along<T>(p.x, p.x_stride, 1) &&
        conv3d::vectors_along<T>(p.y, p.y_stride, 1) &&
        (p.initial_frames == nullptr || conv3d::vectors_along<T>(p.initial_frames, p.initial_stride, 1));
    if (!channels_contiguous) return false;
    g.taps = p.kernel[0] * p.kernel[1] * p.kernel[2];
    g.vecs = p.cout / kVec;
    // Lanes: the largest power of two (<= kMaxTileVecs) dividing the channel vectors, so that
    // no lane idles (192 f16 channels: 8 lanes); all of them, up to 32, where that is small.
    g.tile_vecs = 1;
    while (g.tile_vecs < kMaxTileVecs && g.vecs % (2 * g.tile_vecs) == 0) g.tile_vecs *= 2;
    if (g.tile_vecs < 8 && g.vecs > g.tile_vecs) g.tile_vecs = std::min(g.vecs, kMaxTileVecs);
    auto bytes = [&](int tile_vecs) { return (int64_t)(g.taps + 1) * tile_vecs * kVec * (int64_t)sizeof(float); };
    while (g.tile_vecs > 1 && bytes(g.tile_vecs) > kMaxSharedBytes) g.tile_vecs = (g.tile_vecs + 1) / 2;
    if (bytes(g.tile_vecs) > kMaxSharedBytes) return false;
    g.block_positions = std::max(1, kVectorThreads / g.tile_vecs);
    g.col_runs = (int)ceil_div(p.out[2], kVectorCols);
    g.positions = (int64_t)p.batch * p.out[0] * p.out[1] * g.col_runs;
    shared_bytes = (int)bytes(g.tile_vecs);
    return true;
}

}  // namespace

template <typename T> hipconv_status_t launch_conv3d_depthwise_generic(const hipconv_conv3d_params &p, hipStream_t stream) {
    VectorsGeometry g;
    int shared_bytes = 0;
    if (vectors_geometry<T>(p, g, shared_bytes)) {
        const int64_t channel_tiles = ceil_div(g.vecs, g.tile_vecs);
        const int64_t position_blocks = std::min<int64_t>(ceil_div(g.positions, g.block_positions), 65535);
        if (channel_tiles <= 65535) {
            const dim3 grid((unsigned)position_blocks, (unsigned)channel_tiles), block(g.tile_vecs * g.block_positions);
            with_silu(p.silu != 0, [&](auto silu) {
                hipLaunchKernelGGL((conv3d_depthwise_vectors_kernel<T, decltype(silu)::value>), grid, block, shared_bytes,
                                   stream, p, g);
            });
            return last_launch_status();
        }
    }
    const int col_runs = (int)ceil_div(p.out[2], kColumnsCols);
    const int64_t items = (int64_t)p.batch * p.cout * p.out[0] * p.out[1] * col_runs;
    const bool channel_fastest = p.y_stride[1] == 1 && p.y_stride[4] != 1;
    with_silu(p.silu != 0, [&](auto silu) {
        hipLaunchKernelGGL((conv3d_depthwise_columns_kernel<T, decltype(silu)::value>),
                           dim3(grid_blocks(ceil_div(items, kColumnsThreads))), dim3(kColumnsThreads), 0, stream, p,
                           col_runs, items, channel_fastest);
    });
    return last_launch_status();
}

#define HIPCONV_INSTANTIATE(T) \
    template hipconv_status_t launch_conv3d_depthwise_generic<T>(const hipconv_conv3d_params &, hipStream_t);
HIPCONV_INSTANTIATE(__half)
HIPCONV_INSTANTIATE(hipconv_bf16)
HIPCONV_INSTANTIATE(float)
#undef HIPCONV_INSTANTIATE

}  // namespace hipconv
