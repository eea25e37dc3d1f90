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
 *   A thread owns kVec consecutive channels at kCols consecutive output columns of one
 *   output row, and walks a chunk of `depth_chunk` output depths by input planes:
 *
 *     input plane e (depth od0 - pad[0] + e) feeds outputs od0 + e - kd, kd = 0, 1, 2
 *     acc[3][kCols][kVec]: a ring of three output depths; (e - kd) mod 3 is the slot, made a
 *     compile-time index by unrolling the plane loop by 3; after plane e the output
 *     od0 + e - 2 is complete: rounded, SiLU, 16-byte stores, slot reset to the bias.
 *
 *     per plane and kernel row: kCols+2 16-byte loads (columns ow0-pad .. ow0-pad+kCols+1),
 *     widened once, each used by up to 3 columns x 3 depths: 9*(kCols+2)/kCols loads of
 *     16 bytes per output vector-of-kVec over the plane walk, ~3.5 with kCols = 4,
 *     against 27 for a direct walk.
 *
 *   Block: tile_vecs channel vectors (lanes, tx; min(C/kVec, 32)) x positions (ty), about
 *   256 threads; the block keeps the taps of its channel tile in shared memory as fp32,
 *   [27][tile channels] (16-byte reads, consecutive lanes on consecutive words). Work items:
 *   (position block, channel tile), channel tile fastest, grid-stride.
 *
 * channel_first (NCDHW): 3x3x3 taps, stride 1, dilation 1, pad[2] <= 1, width contiguous
 *   and 16-byte vectors along w aligned in x, y and initial_frames, in[2] and out[2]
 *   multiples of kVec. A thread owns kVec consecutive output columns of one row of one
 *   channel (its 27 taps in registers) and walks depth chunks the same way (ring of three
 *   output depths, acc[3][kVec]); per plane and kernel row one 16-byte load plus the two
 *   halo elements (columns ow0-1 and ow0+kVec with pad 1, ow0+kVec and +1 with pad 0),
 *   neighbouring lanes on neighbouring vectors. Launch: 256 threads, grid-stride over
 *   (n, c, depth chunk, oh, vector of w), w fastest.
 *
 * generic: anything else (other kernels, strides, dilations, unaligned or odd-sized
 *   tensors) runs the naive kernel (naive.hip), which is exact for any geometry.
 */
#include <algorithm>

#include "activation.h"
#include "compat.h"
#include "element.h"
#include "geometry.h"
#include "hipconv/conv3d.h"
#include "launch.h"
#include "packed.h"

namespace hipconv {

template <typename T> hipconv_status_t launch_conv3d_naive(const hipconv_conv3d_params &p, hipStream_t stream);

namespace {

constexpr int kThreads = 256;
constexpr int kTaps = 27;          // 3x3x3
constexpr int kCols = 4;           // channel_last: output columns per thread
constexpr int kMaxTileVecs = 32;   // channel_last: channel vectors per block (lanes)
constexpr int kMaxDepthChunk = 16;  // output depths per thread at most
constexpr int64_t kMinThreads = int64_t(1) << 18;  // depth chunks shrink until this many threads

template <typename T> constexpr int kVecOf = 16 / (int)sizeof(T);

// Accesses through global-memory pointers. On AMD the input row pointer is chosen between x,
// initial_frames and nullptr, and clang then loses that it points to global memory and
// emits flat loads; naming the address space (with a native 4-word vector: HIP's uint4 is a
// class that cannot be copied from it) keeps global_load_dwordx4. nvcc infers it.
#if defined(HIPCONV_PLATFORM_AMD)
typedef uint32_t GlobalWords4 __attribute__((ext_vector_type(4)));
__device__ inline uint4 load16(const void *at) {
    const GlobalWords4 w = *(const __attribute__((address_space(1))) GlobalWords4 *)at;
    return make_uint4(w.x, w.y, w.z, w.w);
}
__device__ inline void store16(void *at, const uint4 &v) {
    *(__attribute__((address_space(1))) GlobalWords4 *)at = GlobalWords4{v.x, v.y, v.z, v.w};
}
template <typename Bits> __device__ inline Bits load_bits(const void *at) {
    return *(const __attribute__((address_space(1))) Bits *)at;
}
#else
__device__ inline uint4 load16(const void *at) { return *static_cast<const uint4 *>(at); }
__device__ inline void store16(void *at, const uint4 &v) { *static_cast<uint4 *>(at) = v; }
template <typename Bits> __device__ inline Bits load_bits(const void *at) { return *static_cast<const Bits *>(at); }
#endif

// kVec elements of T from a 16-byte aligned address, widened to fp32 (zeros if !inside).
template <typename T> __device__ inline void load_vector(float (&v)[kVecOf<T>], const T *at, bool inside) {
    const uint4 raw = inside ? load16(at) : make_uint4(0, 0, 0, 0);
#pragma unroll
    for (int e = 0; e < kVecOf<T>; ++e) v[e] = unpack<T>(raw, e);
}

// One element of T, widened (zero if !inside).
template <typename T> __device__ inline float load_element(const T *at, bool inside) {
    return inside ? bits_to_float(T(), (uint32_t)load_bits<element_bits_t<T>>(at), 0) : 0.f;
}

template <typename T> __device__ inline void store_vector(T *at, const float (&v)[kVecOf<T>]) {
    store16(at, pack<T>(v));
}

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

template <typename T>
__global__ void __launch_bounds__(kThreads) conv3d_depthwise_channel_last_kernel(hipconv_conv3d_params p, LastGeometry g) {
    constexpr int kVec = kVecOf<T>;
    extern __shared__ float4 shared_words[];
    float *taps = reinterpret_cast<float *>(shared_words);  // [kTaps][tile channels]
    const T *w = static_cast<const T *>(p.w);
    const T *bias = static_cast<const T *>(p.bias);
    T *y = static_cast<T *>(p.y);
    const int tile_channels = g.tile_vecs * kVec;
    const int tx = threadIdx.x % g.tile_vecs, ty = threadIdx.x / g.tile_vecs;
    const bool silu = p.silu != 0;
    int staged_tile = -1;

    for (int64_t item = blockIdx.x; item < g.items; item += gridDim.x) {
        const QuotientRemainder by_tile = divide(item, g.channel_tiles);
        const int tile = (int)by_tile.remainder;
        if (tile != staged_tile) {  // block-uniform
            __syncthreads();
            for (int i = threadIdx.x; i < kTaps * tile_channels; i += blockDim.x) {
                const int tap = i / tile_channels;
                const int c = tile * tile_channels + (i - tap * tile_channels);
                taps[i] = c < p.cout ? to_float(w[conv3d::offset(p.w_stride, c, 0, tap / 9, tap / 3 % 3, tap % 3)]) : 0.f;
            }
            __syncthreads();
            staged_tile = tile;
        }
        const int64_t position = by_tile.quotient * g.block_positions + ty;
        const int cv = tile * g.tile_vecs + tx;
        if (ty >= g.block_positions || position >= g.positions || cv >= g.vecs) continue;

        QuotientRemainder r = divide(position, g.col_runs);
        const int ow0 = (int)r.remainder * kCols;
        r = divide(r.quotient, p.out[1]);
        const int oh = (int)r.remainder;
        r = divide(r.quotient, g.depth_chunks);
        const int od0 = (int)r.remainder * g.depth_chunk;
        const int n = (int)r.quotient;
        const int td = min(g.depth_chunk, p.out[0] - od0);
        const int c0 = cv * kVec;
        const float *my_taps = taps + tx * kVec;

        float b[kVec];
#pragma unroll
        for (int e = 0; e < kVec; ++e) b[e] = bias != nullptr ? to_float(bias[c0 + e]) : 0.f;
        // Input columns ow0 - pad[2] + j; x and initial_frames share the w stride.
        int64_t col_offset[kCols + 2];
        bool col_inside[kCols + 2];
#pragma unroll
        for (int j = 0; j < kCols + 2; ++j) {
            const int iw = ow0 - p.pad[2] + j;
            col_inside[j] = iw >= 0 && iw < p.in[2];
            col_offset[j] = (int64_t)iw * p.x_stride[4];
        }
        float acc[3][kCols][kVec];
#pragma unroll
        for (int s = 0; s < 3; ++s)
#pragma unroll
            for (int o = 0; o < kCols; ++o)
#pragma unroll
                for (int e = 0; e < kVec; ++e) acc[s][o][e] = b[e];

        for (int e0 = 0; e0 < td + 2; e0 += 3) {
#pragma unroll
            for (int u = 0; u < 3; ++u) {
                const int plane = e0 + u;
                if (plane >= td + 2) break;
                const int id = od0 - p.pad[0] + plane;
#pragma unroll 1
                for (int kh = 0; kh < 3; ++kh) {
                    const T *row = conv3d::input_row_at<T>(p, n, c0, id, oh - p.pad[1] + kh);
                    if (row == nullptr) continue;
                    float in[kCols + 2][kVec];
#pragma unroll
                    for (int j = 0; j < kCols + 2; ++j) load_vector<T>(in[j], row + col_offset[j], col_inside[j]);
#pragma unroll
                    for (int kd = 0; kd < 3; ++kd) {
                        const int t = plane - kd;
                        if (t < 0 || t >= td) continue;
                        constexpr int kSlots = 3;
                        const int s = (u - kd + kSlots) % kSlots;  // compile-time after unrolling
#pragma unroll
                        for (int kw = 0; kw < 3; ++kw) {
                            float tv[kVec];
                            const float4 *tap4 =
                                reinterpret_cast<const float4 *>(my_taps + ((kd * 3 + kh) * 3 + kw) * tile_channels);
#pragma unroll
                            for (int q = 0; q < kVec / 4; ++q) {
                                const float4 v = tap4[q];
                                tv[4 * q] = v.x;
                                tv[4 * q + 1] = v.y;
                                tv[4 * q + 2] = v.z;
                                tv[4 * q + 3] = v.w;
                            }
#pragma unroll
                            for (int o = 0; o < kCols; ++o)
#pragma unroll
                                for (int e = 0; e < kVec; ++e) acc[s][o][e] += tv[e] * in[o + kw][e];
                        }
                    }
                }
                if (plane >= 2) {  // output od0 + plane - 2 is complete: slot (plane - 2) mod 3
                    const int s = (u + 1) % 3;
                    T *out = y + conv3d::offset(p.y_stride, n, c0, od0 + plane - 2, oh, 0);
#pragma unroll
                    for (int o = 0; o < kCols; ++o) {
                        float v[kVec];
#pragma unroll
                        for (int e = 0; e < kVec; ++e) {
                            v[e] = activate_fast(acc[s][o][e], silu);
                            acc[s][o][e] = b[e];
                        }
                        if (ow0 + o < p.out[2]) store_vector<T>(out + (int64_t)(ow0 + o) * p.y_stride[4], v);
                    }
                }
            }
        }
    }
}

// One output row's kVec columns of one channel, walking a depth chunk; kPadW = pad[2].
template <typename T, int kPadW>
__global__ void __launch_bounds__(kThreads) conv3d_depthwise_channel_first_kernel(hipconv_conv3d_params p, int depth_chunk,
                                                                                  int depth_chunks, int64_t threads) {
    constexpr int kVec = kVecOf<T>;
    static_assert(kPadW == 0 || kPadW == 1, "pad[2]: 0 or 1");
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
        // outside as a whole, in[2] % kVec == 0) and two single elements.
        const bool vec_inside = ow0 < p.in[2];
        const int lone0 = kPadW == 1 ? ow0 - 1 : ow0 + kVec;  // window index 0 or kVec
        const int lone1 = kPadW == 1 ? ow0 + kVec : ow0 + kVec + 1;  // window index kVec+1
        const bool lone0_inside = lone0 >= 0 && lone0 < p.in[2];
        const bool lone1_inside = lone1 < p.in[2];

        float acc[3][kVec];
#pragma unroll
        for (int s = 0; s < 3; ++s)
#pragma unroll
            for (int o = 0; o < kVec; ++o) acc[s][o] = b;

        for (int e0 = 0; e0 < td + 2; e0 += 3) {
#pragma unroll
            for (int u = 0; u < 3; ++u) {
                const int plane = e0 + u;
                if (plane >= td + 2) break;
                const int id = od0 - p.pad[0] + plane;
#pragma unroll
                for (int kh = 0; kh < 3; ++kh) {
                    const T *row = conv3d::input_row_at<T>(p, n, c, id, oh - p.pad[1] + kh);
                    if (row == nullptr) continue;
                    float win[kVec + 2];
                    float vec[kVec];
                    load_vector<T>(vec, row + ow0, vec_inside);
                    const float a = load_element<T>(row + lone0, lone0_inside);
                    const float z = load_element<T>(row + lone1, lone1_inside);
#pragma unroll
                    for (int j = 0; j < kVec; ++j) win[j + kPadW] = vec[j];
                    win[kPadW == 1 ? 0 : kVec] = a;
                    win[kVec + 1] = z;
#pragma unroll
                    for (int kd = 0; kd < 3; ++kd) {
                        const int t = plane - kd;
                        if (t < 0 || t >= td) continue;
                        const int s = (u - kd + 3) % 3;
#pragma unroll
                        for (int kw = 0; kw < 3; ++kw)
#pragma unroll
                            for (int o = 0; o < kVec; ++o) acc[s][o] += tap[(kd * 3 + kh) * 3 + kw] * win[o + kw];
                    }
                }
                if (plane >= 2) {
                    const int s = (u + 1) % 3;
                    float v[kVec];
#pragma unroll
                    for (int o = 0; o < kVec; ++o) {
                        v[o] = activate_fast(acc[s][o], silu);
                        acc[s][o] = b;
                    }
                    store_vector<T>(y + conv3d::offset(p.y_stride, n, c, od0 + plane - 2, oh, ow0), v);
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
    g.tile_vecs = std::min(g.vecs, kMaxTileVecs);
    g.block_positions = kThreads / g.tile_vecs;
    g.channel_tiles = (int)ceil_div(g.vecs, g.tile_vecs);
    g.col_runs = (int)ceil_div(p.out[2], kCols);
    g.depth_chunk = pick_depth_chunk(p.out[0], (int64_t)p.batch * p.out[1] * g.col_runs * g.vecs);
    g.depth_chunks = (int)ceil_div(p.out[0], g.depth_chunk);
    g.positions = (int64_t)p.batch * g.depth_chunks * p.out[1] * g.col_runs;
    g.items = ceil_div(g.positions, g.block_positions) * g.channel_tiles;
    const int shared_bytes = kTaps * g.tile_vecs * kVec * (int)sizeof(float);  // <= 27 KiB
    hipLaunchKernelGGL(conv3d_depthwise_channel_last_kernel<T>, dim3(grid_blocks(g.items)),
                       dim3(g.tile_vecs * g.block_positions), shared_bytes, stream, p, g);
    return last_launch_status();
}

template <typename T> hipconv_status_t launch_channel_first(const hipconv_conv3d_params &p, hipStream_t stream) {
    constexpr int kVec = kVecOf<T>;
    const int64_t per_chunk = (int64_t)p.batch * p.cout * p.out[1] * (p.out[2] / kVec);
    const int depth_chunk = pick_depth_chunk(p.out[0], per_chunk);
    const int depth_chunks = (int)ceil_div(p.out[0], depth_chunk);
    const int64_t threads = per_chunk * depth_chunks;
    const dim3 grid(grid_blocks(ceil_div(threads, kThreads))), block(kThreads);
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
    if (taps3 && unit) {
        // Channels along the vectors: axis 1 (c) has stride 1 in x, y and the frames.
        const bool channel_last =
            p.cin % kVec == 0 && conv3d::vectors_along<T>(p.x, p.x_stride, 1) &&
            conv3d::vectors_along<T>(p.y, p.y_stride, 1) &&
            (p.initial_frames == nullptr || (conv3d::vectors_along<T>(p.initial_frames, p.initial_stride, 1) &&
                                             p.initial_stride[4] == p.x_stride[4]));
        if (channel_last) return launch_channel_last<T>(p, stream);
        // Width along the vectors: axis 4 (w) has stride 1.
        const bool channel_first =
            p.pad[2] <= 1 && p.in[2] % kVec == 0 && p.out[2] % kVec == 0 &&
            conv3d::vectors_along<T>(p.x, p.x_stride, 4) && conv3d::vectors_along<T>(p.y, p.y_stride, 4) &&
            (p.initial_frames == nullptr || conv3d::vectors_along<T>(p.initial_frames, p.initial_stride, 4));
        if (channel_first) return launch_channel_first<T>(p, stream);
    }
    return launch_conv3d_naive<T>(p, stream);
}

}  // namespace hipconv

HIPCONV_EXPORT_PER_DTYPE(conv3d_depthwise, hipconv_conv3d_params)
