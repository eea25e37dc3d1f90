/*
 * conv1d_fused_gemm: the causal depthwise conv1d as an implicit GEMM on matrix cores,
 * with bias and SiLU fused. Same contract as conv1d_direct (hipconv.h): x, y by strides
 * (channel-first or channel-last), w [dim, width], bias [dim] or NULL, fp32 accumulation.
 *
 * The GEMM. Per channel c, cut a tile of 256 outputs into 16 rows of 16 times. With
 * H = 16 * ceil((width-1)/16) history steps and K = 16 + H:
 *
 *     Y[i, j] = y[c, t0 + 16i + j]               (16 x 16)
 *     A[i, m] = x[c, t0 - H + 16i + m]           (16 x K)   rows overlap: A is the time
 *                                                            window read at stride 16
 *     B[m, j] = w[c, m - H - j + width - 1]      (K x 16)   Toeplitz band of the taps,
 *                                                            0 outside [0, width)
 *     Y = A * B,  K/16 instructions of 16x16x16 (mma_gather.h)
 *
 * This is im2col without the im2col matrix: A is read from the staged input window, B is
 * built from the channel's own taps, so no other channel's (zero) weights are loaded or
 * multiplied. Work per output: K multiply-adds (32 for width <= 17).
 *
 * Block: 4 waves, a tile of tile_c channels (32, or 16 / 8 where wide kernels need the
 * shared memory) x 256 times of one batch row.
 *   1. window[c][u] = x[b, c0+c, t0-H+u], u < 256+H, and the zero-padded taps, in shared
 *      memory. Channel-first, aligned: 16-byte cp.async along t (NVIDIA sm_80+; staged
 *      through registers elsewhere). Channel-last, aligned: 16-byte loads along c,
 *      transposed into the window through registers. Otherwise element loads.
 *   2. Each wave takes channels wave, wave+4, ...; one 16x16 accumulator per channel.
 *   3. Bias + SiLU on the accumulators; results (rounded to T) go to an output tile that
 *      reuses the window's memory ([c][t] or [t][c], as y is laid out), then the block
 *      writes y along its contiguous axis (16-byte stores where aligned).
 *
 * Launch: kFusedThreads threads, dynamic shared memory FusedGeometry::bytes; 1-D
 * grid-stride loop over batch * ceil(dim/tile_c) * ceil(seqlen/256) tiles.
 */
#include "block_copy.h"
#include "compat.h"
#include "element.h"
#include "hipconv.h"
#include "launch.h"
#include "mma_gather.h"

namespace hipconv {

constexpr int kFusedTileT = 256;  // outputs per channel per tile: 16 rows x 16
constexpr int kFusedWaves = 4;
constexpr int kFusedThreads = kFusedWaves * HIPCONV_WAVE_SIZE;
constexpr int kFusedMaxTileC = 32;
constexpr int kFusedMinTileC = 8;
constexpr int kFusedChannelsPerWave = kFusedMaxTileC / kFusedWaves;  // accumulators per wave
constexpr int kFusedTapPad = 32;              // zeros before tap 0 (B reads down to tap -30)
constexpr int kFusedSharedLimit = 48 * 1024;  // dynamic shared memory without opt-in

// Sizes of one launch's tiles, from width, layout and element size (host side).
struct FusedGeometry {
    int history;       // H
    int slices;        // K / 16
    int tile_c;        // channels per tile
    int window_ld;     // elements per window row (one channel)
    int out_ld;        // elements per output-tile row
    int taps_ld;       // elements per padded tap row
    int region;        // elements of the window / output-tile region
    int bytes;         // dynamic shared memory
    int vector_store;  // y takes 16-byte stores along its contiguous axis

    static FusedGeometry make(int width, bool channel_last, int elem_bytes, int tile_c) {
        FusedGeometry g{};
        g.history = 16 * (int)ceil_div(width - 1, 16);
        g.slices = 1 + g.history / 16;
        g.tile_c = tile_c;
        // Channel-first rows are cp.async targets (16-byte aligned); channel-last rows are
        // written transposed, +2 spreads those stores over banks.
        g.window_ld = kFusedTileT + g.history + (channel_last ? 2 : 8);
        g.out_ld = channel_last ? tile_c + 2 : kFusedTileT + 8;
        const int window = tile_c * g.window_ld;
        const int out = channel_last ? kFusedTileT * g.out_ld : tile_c * g.out_ld;
        g.region = (int)ceil_div(window > out ? window : out, 8) * 8;
        g.taps_ld = width + kFusedTapPad + 16;
        g.bytes = (g.region + tile_c * g.taps_ld) * elem_bytes;
        return g;
    }
};

template <typename T> struct FusedVec {
    static constexpr int kCount = 16 / sizeof(T);
};

template <typename T> __device__ inline T zero_of() { return from_float<T>(0.f); }

// Taps of channels c0..c0+tile_c-1, zero-padded: taps[c * taps_ld + kFusedTapPad + k] = w[c, k].
template <typename T>
__device__ inline void load_taps(T *taps, const hipconv_conv1d_params &p, const FusedGeometry &g, int c0) {
    const T *w = static_cast<const T *>(p.w);
    for (int i = threadIdx.x; i < g.tile_c * g.taps_ld; i += blockDim.x) {
        const int c = c0 + i / g.taps_ld;
        const int k = i % g.taps_ld - kFusedTapPad;
        taps[i] = c < p.dim && k >= 0 && k < p.width ? w[(int64_t)c * p.width + k] : zero_of<T>();
    }
}

// window[c * window_ld + u] = x[b, c0 + c, t0 - H + u] (0 outside the sequence and past dim).
template <typename T, bool kChannelLast, bool kVectorLoad>
__device__ inline void load_window(T *window, const hipconv_conv1d_params &p, const FusedGeometry &g, const T *xb,
                                   int c0, int64_t tau0) {
    constexpr int kVec = FusedVec<T>::kCount;
    const int rows = kFusedTileT + g.history;  // window length in time
    if constexpr (kVectorLoad && !kChannelLast) {
        // Rows are contiguous in x: 16-byte chunks straight into the window.
        const int chunks = rows / kVec;
        copy16(
            g.tile_c * chunks, xb,
            [&](int i) -> const void * {
                const int c = c0 + i / chunks;
                const int64_t tau = tau0 + (i % chunks) * kVec;
                return c < p.dim && tau >= 0 && tau < p.seqlen ? xb + c * p.x_dim_stride + tau : nullptr;
            },
            [&](int i) { return (void *)(window + (i / chunks) * g.window_ld + (i % chunks) * kVec); });
    } else if constexpr (kVectorLoad) {
        // 16 bytes = kVec channels of one time, scattered into kVec window rows.
        const int vecs = g.tile_c / kVec;
        staged<uint4>(
            rows * vecs,
            [&](int i) {
                const int c = c0 + (i % vecs) * kVec;
                const int64_t tau = tau0 + i / vecs;
                return c < p.dim && tau >= 0 && tau < p.seqlen
                           ? *reinterpret_cast<const uint4 *>(xb + tau * p.x_seq_stride + c)
                           : make_uint4(0, 0, 0, 0);
            },
            [&](int i, const uint4 &v) {
                T *dst = window + (i % vecs) * kVec * g.window_ld + i / vecs;
                const T *e = reinterpret_cast<const T *>(&v);
#pragma unroll
                for (int k = 0; k < kVec; ++k) dst[k * g.window_ld] = e[k];
            });
    } else {
        // Any strides: one element per load, consecutive threads along the contiguous axis.
        staged<T>(
            rows * g.tile_c,
            [&](int i) {
                const int cl = kChannelLast ? i % g.tile_c : i / rows;
                const int u = kChannelLast ? i / g.tile_c : i % rows;
                const int c = c0 + cl;
                const int64_t tau = tau0 + u;
                return c < p.dim && tau >= 0 && tau < p.seqlen ? xb[c * p.x_dim_stride + tau * p.x_seq_stride]
                                                               : zero_of<T>();
            },
            [&](int i, const T &v) {
                const int cl = kChannelLast ? i % g.tile_c : i / rows;
                const int u = kChannelLast ? i / g.tile_c : i % rows;
                window[cl * g.window_ld + u] = v;
            });
    }
}

// The output tile (rounded results) to y[b, c0.., t0..], along y's contiguous axis.
template <typename T, bool kChannelLast>
__device__ inline void store_tile(T *yb, const T *out, const hipconv_conv1d_params &p, const FusedGeometry &g, int c0,
                                  int t0) {
    constexpr int kVec = FusedVec<T>::kCount;
    const int runs = kChannelLast ? g.tile_c / kVec : kFusedTileT / kVec;  // vectors per tile row
    const int rows = kChannelLast ? kFusedTileT : g.tile_c;
    for (int i = threadIdx.x; i < rows * runs; i += blockDim.x) {
        const int row = i / runs, first = (i % runs) * kVec;
        const int c = c0 + (kChannelLast ? first : row);
        const int64_t t = (int64_t)t0 + (kChannelLast ? row : first);
        if (c >= p.dim || t >= p.seqlen) continue;
        T *dst = yb + c * p.y_dim_stride + t * p.y_seq_stride;
        const T *src = out + row * g.out_ld + first;
        const int64_t step = kChannelLast ? p.y_dim_stride : p.y_seq_stride;
        const int count = kChannelLast ? min(kVec, p.dim - c) : (int)min((int64_t)kVec, p.seqlen - t);
        if (g.vector_store && count == kVec) {
            alignas(16) T packed[kVec];
#pragma unroll
            for (int k = 0; k < kVec; ++k) packed[k] = src[k];
            *reinterpret_cast<uint4 *>(dst) = *reinterpret_cast<const uint4 *>(packed);
        } else {
            for (int k = 0; k < count; ++k) dst[k * step] = src[k];
        }
    }
}

template <typename T, bool kChannelLast, bool kVectorLoad>
__global__ void __launch_bounds__(kFusedThreads) conv1d_fused_gemm_kernel(hipconv_conv1d_params p, FusedGeometry g) {
    extern __shared__ uint4 fused_shared[];  // uint4: 16-byte aligned
    T *window = reinterpret_cast<T *>(fused_shared);  // then the output tile
    T *taps = window + g.region;

    const T *x = static_cast<const T *>(p.x);
    const T *bias = static_cast<const T *>(p.bias);
    T *y = static_cast<T *>(p.y);
    const int wave = threadIdx.x / HIPCONV_WAVE_SIZE;

    const int64_t t_tiles = ceil_div(p.seqlen, kFusedTileT);
    const int64_t c_tiles = ceil_div(p.dim, g.tile_c);
    const int64_t tiles = t_tiles * c_tiles * p.batch;
    for (int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const int64_t b = tile / (t_tiles * c_tiles);
        const int c0 = (int)((tile / t_tiles) % c_tiles) * g.tile_c;
        const int t0 = (int)(tile % t_tiles) * kFusedTileT;

        // 1. Stage the window and the taps.
        load_window<T, kChannelLast, kVectorLoad>(window, p, g, x + b * p.x_batch_stride, c0,
                                                  (int64_t)t0 - g.history);
        load_taps(taps, p, g, c0);
        copy_wait();
        __syncthreads();

        // 2. Y = A * B per channel of this wave.
        gather::Acc acc[kFusedChannelsPerWave];
#pragma unroll
        for (int j = 0; j < kFusedChannelsPerWave; ++j) {
            gather::zero(acc[j]);
            const int cl = wave + j * kFusedWaves;
            if (cl >= g.tile_c) continue;
            const T *row = window + cl * g.window_ld;
            const T *tap = taps + cl * g.taps_ld + kFusedTapPad;
            for (int s = 0; s < g.slices; ++s) {
                const T *a = row + 16 * s;                        // A(i, 16s + k) = a[16i + k]
                const T *band = tap + 16 * s - g.history + p.width - 1;  // B(16s + k, j) = band[k - j]
                gather::mma<T>(
                    acc[j], [a](int i, int k) { return a[16 * i + k]; }, [band](int k, int n) { return band[k - n]; });
            }
        }
        __syncthreads();  // the window is read; its memory becomes the output tile

        // 3. Epilogue into the output tile, then y.
        T *out = window;
#pragma unroll
        for (int j = 0; j < kFusedChannelsPerWave; ++j) {
            const int cl = wave + j * kFusedWaves;
            if (cl >= g.tile_c) continue;
            const int c = c0 + cl;
            const float b_c = bias != nullptr && c < p.dim ? to_float(bias[c]) : 0.f;
            gather::for_each(acc[j], [&](int i, int n, float v) {
                v += b_c;
                if (p.silu) v = v / (1.f + expf(-v));
                const int t = 16 * i + n;
                out[kChannelLast ? t * g.out_ld + cl : cl * g.out_ld + t] = from_float<T>(v);
            });
        }
        __syncthreads();
        store_tile<T, kChannelLast>(y + b * p.y_batch_stride, out, p, g, c0, t0);
        __syncthreads();  // before the next tile's window overwrites the output tile
    }
}

template <typename T, bool kChannelLast> bool fused_vector_loads(const hipconv_conv1d_params &p) {
    constexpr int kVec = FusedVec<T>::kCount;
    const bool aligned = (reinterpret_cast<uintptr_t>(p.x) & 15) == 0 && p.x_batch_stride % kVec == 0;
    if (kChannelLast) return aligned && p.x_dim_stride == 1 && p.dim % kVec == 0 && p.x_seq_stride % kVec == 0;
    return aligned && p.x_seq_stride == 1 && p.seqlen % kVec == 0 && p.x_dim_stride % kVec == 0;
}

template <typename T, bool kChannelLast> bool fused_vector_stores(const hipconv_conv1d_params &p) {
    constexpr int kVec = FusedVec<T>::kCount;
    const bool aligned = (reinterpret_cast<uintptr_t>(p.y) & 15) == 0 && p.y_batch_stride % kVec == 0;
    if (kChannelLast) return aligned && p.y_dim_stride == 1 && p.dim % kVec == 0 && p.y_seq_stride % kVec == 0;
    return aligned && p.y_seq_stride == 1 && p.seqlen % kVec == 0 && p.y_dim_stride % kVec == 0;
}

template <typename T, bool kChannelLast>
hipconv_status_t launch_fused_layout(const hipconv_conv1d_params &p, hipStream_t stream) {
    // The widest channel tile whose window and taps fit; wide kernels get narrower tiles.
    FusedGeometry g = FusedGeometry::make(p.width, kChannelLast, sizeof(T), kFusedMaxTileC);
    while (g.bytes > kFusedSharedLimit && g.tile_c > kFusedMinTileC)
        g = FusedGeometry::make(p.width, kChannelLast, sizeof(T), g.tile_c / 2);
    if (g.bytes > kFusedSharedLimit) return (hipconv_status_t)hipErrorInvalidValue;
    g.vector_store = fused_vector_stores<T, kChannelLast>(p) ? 1 : 0;

    const int64_t tiles = ceil_div(p.seqlen, kFusedTileT) * ceil_div(p.dim, g.tile_c) * p.batch;
    const dim3 grid(grid_blocks(tiles)), block(kFusedThreads);
    if (fused_vector_loads<T, kChannelLast>(p))
        hipLaunchKernelGGL((conv1d_fused_gemm_kernel<T, kChannelLast, true>), grid, block, g.bytes, stream, p, g);
    else
        hipLaunchKernelGGL((conv1d_fused_gemm_kernel<T, kChannelLast, false>), grid, block, g.bytes, stream, p, g);
    return last_launch_status();
}

template <typename T>
hipconv_status_t launch_conv1d_fused_gemm(const hipconv_conv1d_params &p, hipStream_t stream) {
    if (p.x == nullptr || p.w == nullptr || p.y == nullptr || p.batch < 1 || p.dim < 1 || p.seqlen < 1 ||
        p.width < 1 || p.width > HIPCONV_FUSED_GEMM_MAX_WIDTH)
        return (hipconv_status_t)hipErrorInvalidValue;
    return p.x_dim_stride < p.x_seq_stride ? launch_fused_layout<T, true>(p, stream)
                                           : launch_fused_layout<T, false>(p, stream);
}

}  // namespace hipconv

HIPCONV_EXPORT_LAUNCHER(conv1d_fused_gemm, f16, __half)
HIPCONV_EXPORT_LAUNCHER(conv1d_fused_gemm, bf16, hipconv_bf16)
HIPCONV_EXPORT_LAUNCHER(conv1d_fused_gemm, f32, float)
