/*
 * conv1d_direct: the streaming causal depthwise conv1d, with bias and SiLU fused.
 *
 *   in   x   [batch, dim, seqlen] or [batch, seqlen, dim]   given by strides (elements)
 *        w   [dim, width]
 *        bias[dim] (nullable)
 *   out  y   same layout rule as x (its own strides)
 *        y[b,c,t] = act(bias[c] + sum_tap w[c,tap] * x[b,c,t+tap-(width-1)]),  x[..,<0] = 0
 *   fp32 accumulation for every dtype; the result is rounded once.
 *
 * Work unit: a tile of 64 channels x 64 times of one batch row. The block stages the
 * inputs the tile needs, x[b, c0:+64, t0-(width-1) : t0+64], in shared memory (as fp32,
 * rows = time, padded to 65 columns), loading along whichever axis is contiguous in
 * memory (t for channel-first, c for channel-last) so that reads are coalesced: 16-byte
 * vectors where rows are aligned, else single elements; either way all of a thread's
 * loads are issued before any is stored. Each thread then computes 16 consecutive
 * outputs of one channel:
 *
 *     channel-last:  lanes along channels (tid % 64), 4 runs of 16 t   -> writes along c
 *     channel-first: lanes along t-runs   (tid % 4),  64 channels      -> writes along t
 *                    (16-byte vector stores when the rows are aligned)
 *
 * Widths 2, 3, 4 are compiled with the taps in registers and a sliding input window
 * (16 + width - 1 shared-memory reads per 16 outputs). Any other width runs the generic
 * loop, which takes the taps in chunks of 32 so shared memory stays bounded.
 *
 * With vector loads the grid is one resident wave (occupancy API) and each block walks
 * several tiles; with compiled widths it issues the next tile's loads right after the
 * current tile's window is in shared memory, so loads stay in flight during compute and
 * stores.
 *
 * Launch: 256 threads; 1-D grid-stride loop over batch * ceil(dim/64) * ceil(seqlen/64) tiles.
 */
#include <type_traits>

#include "compat.h"
#include "direct_paths.h"
#include "element.h"
#include "hipconv/conv1d.h"
#include "launch.h"
#include "vector_rows.h"

namespace hipconv {

constexpr int kDirectTileT = 64;
constexpr int kDirectTileC = 64;
constexpr int kDirectRun = 16;  // consecutive outputs per thread
constexpr int kDirectRuns = kDirectTileT / kDirectRun;
constexpr int kDirectThreads = kDirectTileC * kDirectRuns;  // 256
constexpr int kDirectGenericTaps = 32;                       // taps per pass, generic width
constexpr int kDirectStride = kDirectTileC + 1;              // fp32 words per window row

template <int kWidth>
struct DirectTraits {
    static constexpr int kTaps = kWidth > 0 ? kWidth : kDirectGenericTaps;  // taps per pass
    static constexpr int kRows = kDirectTileT + kTaps - 1;                  // window rows
    static constexpr int kWeightStride = kTaps + 1;
};

template <typename T>
__device__ inline void store_run(T *dst, int64_t stride, const float *v, int count, bool vector_ok) {
    if (vector_ok && count == kDirectRun) {
        // 16 consecutive elements = sizeof(T) 16-byte stores.
        alignas(16) T packed[kDirectRun];
#pragma unroll
        for (int j = 0; j < kDirectRun; ++j) packed[j] = from_float<T>(v[j]);
#pragma unroll
        for (int q = 0; q < (int)sizeof(T); ++q)
            reinterpret_cast<uint4 *>(dst)[q] = reinterpret_cast<const uint4 *>(packed)[q];
        return;
    }
    for (int j = 0; j < count; ++j) dst[j * stride] = from_float<T>(v[j]);
}

// Window rows r = 0..rows-1 hold x at times tau0 + r for channels c0..c0+63 (fp32, 0 outside
// the sequence). All loads of a thread are issued into registers before any shared-memory
// store, so that they are in flight together (a load-store loop waits out each latency).

// Any strides: one element per load, lanes along the contiguous axis; all of a thread's loads
// are in flight before the first store.
template <typename T, bool kChannelLast, int kRows>
__device__ inline void load_window_scalar(float *window, const hipconv_conv1d_params &p, const T *xb, int c0,
                                          int64_t tau0, int rows) {
    constexpr int kIters = (kRows * kDirectTileC + kDirectThreads - 1) / kDirectThreads;
    float v[kIters];
#pragma unroll
    for (int k = 0; k < kIters; ++k) {
        const int i = threadIdx.x + k * kDirectThreads;
        const int r = kChannelLast ? i / kDirectTileC : i % rows;
        const int c = c0 + (kChannelLast ? i % kDirectTileC : i / rows);
        const int64_t tau = tau0 + r;
        const bool inside = i < rows * kDirectTileC && c < p.dim && tau >= 0 && tau < p.seqlen;
        v[k] = inside ? to_float(xb[c * p.x_dim_stride + tau * p.x_seq_stride]) : 0.f;
    }
#pragma unroll
    for (int k = 0; k < kIters; ++k) {
        const int i = threadIdx.x + k * kDirectThreads;
        if (i < rows * kDirectTileC) {
            const int r = kChannelLast ? i / kDirectTileC : i % rows;
            const int cl = kChannelLast ? i % kDirectTileC : i / rows;
            window[r * kDirectStride + cl] = v[k];
        }
    }
}

// Channel-last, channels contiguous and dim a multiple of the vector: 16-byte loads along c.
// issue() puts the loads in flight into registers; commit() writes them to the window.
template <typename T, typename Traits>
struct ChannelLastLoad {
    static constexpr int kPerRow = kDirectTileC / Vec16<T>::kCount;
    static constexpr int kIters = (Traits::kRows * kPerRow + kDirectThreads - 1) / kDirectThreads;
    Vec16<T> v[kIters];
    int rows;

    __device__ void issue(const hipconv_conv1d_params &p, const T *xb, int c0, int64_t tau0, int rows_) {
        rows = rows_;
#pragma unroll
        for (int k = 0; k < kIters; ++k) {
            const int i = threadIdx.x + k * kDirectThreads;
            const int c = c0 + (i % kPerRow) * Vec16<T>::kCount;
            const int64_t tau = tau0 + i / kPerRow;
            const bool inside = i < rows * kPerRow && c < p.dim && tau >= 0 && tau < p.seqlen;
            v[k].raw = inside ? *reinterpret_cast<const uint4 *>(xb + tau * p.x_seq_stride + c) : make_uint4(0, 0, 0, 0);
        }
    }
    __device__ void commit(float *window) const {
#pragma unroll
        for (int k = 0; k < kIters; ++k) {
            const int i = threadIdx.x + k * kDirectThreads;
            if (i < rows * kPerRow) {
                float *dst = window + (i / kPerRow) * kDirectStride + (i % kPerRow) * Vec16<T>::kCount;
#pragma unroll
                for (int e = 0; e < Vec16<T>::kCount; ++e) dst[e] = v[k].get(e);
            }
        }
    }
};

// Channel-first, time contiguous and seqlen a multiple of the vector, one tap pass: the 64
// times of the tile in 16-byte loads along t, the (width-1)-long history before them singly.
template <typename T, typename Traits>
struct ChannelFirstLoad {
    static constexpr int kPerRow = kDirectTileT / Vec16<T>::kCount;
    static constexpr int kIters = (kDirectTileC * kPerRow + kDirectThreads - 1) / kDirectThreads;
    static constexpr int kHaloIters = ((Traits::kTaps - 1) * kDirectTileC + kDirectThreads - 1) / kDirectThreads;
    Vec16<T> v[kIters];
    float h[kHaloIters > 0 ? kHaloIters : 1];
    int halo;

    __device__ void issue(const hipconv_conv1d_params &p, const T *xb, int c0, int t0) {
        halo = p.width - 1;
#pragma unroll
        for (int k = 0; k < kIters; ++k) {
            const int i = threadIdx.x + k * kDirectThreads;
            const int c = c0 + i / kPerRow;
            const int t = t0 + (i % kPerRow) * Vec16<T>::kCount;
            const bool inside = i < kDirectTileC * kPerRow && c < p.dim && t < p.seqlen;
            v[k].raw = inside ? *reinterpret_cast<const uint4 *>(xb + c * p.x_dim_stride + t) : make_uint4(0, 0, 0, 0);
        }
#pragma unroll
        for (int k = 0; k < kHaloIters; ++k) {
            const int i = threadIdx.x + k * kDirectThreads;
            const int c = c0 + (halo > 0 ? i / halo : 0);
            const int64_t tau = (int64_t)t0 - halo + (halo > 0 ? i % halo : 0);
            const bool inside = i < halo * kDirectTileC && c < p.dim && tau >= 0;
            h[k] = inside ? to_float(xb[c * p.x_dim_stride + tau]) : 0.f;
        }
    }
    __device__ void commit(float *window) const {
#pragma unroll
        for (int k = 0; k < kIters; ++k) {
            const int i = threadIdx.x + k * kDirectThreads;
            if (i < kDirectTileC * kPerRow) {
                float *dst = window + (halo + (i % kPerRow) * Vec16<T>::kCount) * kDirectStride + i / kPerRow;
#pragma unroll
                for (int e = 0; e < Vec16<T>::kCount; ++e) dst[e * kDirectStride] = v[k].get(e);
            }
        }
#pragma unroll
        for (int k = 0; k < kHaloIters; ++k) {
            const int i = threadIdx.x + k * kDirectThreads;
            if (i < halo * kDirectTileC) window[(i % halo) * kDirectStride + i / halo] = h[k];
        }
    }
};

// The vector load of one layout, and whether a kernel prefetches: with compiled widths
// (one tap pass) the next tile's loads are issued before the current tile is computed.
template <typename T, bool kChannelLast, typename Traits>
using VectorLoad = typename std::conditional<kChannelLast, ChannelLastLoad<T, Traits>, ChannelFirstLoad<T, Traits>>::type;

template <bool kVectorLoad, int kWidth>
struct DirectPrefetch {
    static constexpr bool value = kVectorLoad && kWidth > 0;
};

// Tile index -> (batch, first channel, first time).
struct DirectTileCoords {
    int64_t b;
    int c0;
    int t0;
    __device__ DirectTileCoords(int64_t tile, int64_t t_tiles, int64_t c_tiles)
        : b(tile / (t_tiles * c_tiles)),
          c0((int)((tile / t_tiles) % c_tiles) * kDirectTileC),
          t0((int)(tile % t_tiles) * kDirectTileT) {}
};

template <typename T, bool kChannelLast, typename Traits>
__device__ inline void issue_vector_load(VectorLoad<T, kChannelLast, Traits> &stage,
                                         const hipconv_conv1d_params &p, const T *x,
                                         const DirectTileCoords &at) {
    const T *xb = x + at.b * p.x_batch_stride;
    if constexpr (kChannelLast)
        // The first tap pass: taps 0 .. min(width, pass) - 1.
        stage.issue(p, xb, at.c0, (int64_t)at.t0 - (p.width - 1), kDirectTileT + min(Traits::kTaps, p.width) - 1);
    else
        stage.issue(p, xb, at.c0, at.t0);
}

template <typename T, bool kChannelLast, int kWidth, bool kVectorLoad>
__global__ void __launch_bounds__(kDirectThreads) conv1d_direct_kernel(hipconv_conv1d_params p) {
    using Traits = DirectTraits<kWidth>;
    __shared__ float window[Traits::kRows * kDirectStride];
    __shared__ float weights[kDirectTileC * Traits::kWeightStride];

    const T *x = static_cast<const T *>(p.x);
    const T *w = static_cast<const T *>(p.w);
    const T *bias = static_cast<const T *>(p.bias);
    T *y = static_cast<T *>(p.y);

    // This thread's channel (within the tile) and run of 16 times.
    const int cl = kChannelLast ? threadIdx.x % kDirectTileC : threadIdx.x / kDirectRuns;
    const int run = kChannelLast ? threadIdx.x / kDirectTileC : threadIdx.x % kDirectRuns;
    const bool vector_store = !kChannelLast && p.y_seq_stride == 1 && p.y_dim_stride % 8 == 0 &&
                              p.y_batch_stride % 8 == 0 && (reinterpret_cast<uintptr_t>(y) & 15) == 0;

    const int64_t t_tiles = ceil_div(p.seqlen, kDirectTileT);
    const int64_t c_tiles = ceil_div(p.dim, kDirectTileC);
    const int64_t tiles = t_tiles * c_tiles * p.batch;
    constexpr bool kPrefetch = DirectPrefetch<kVectorLoad, kWidth>::value;

    VectorLoad<T, kChannelLast, Traits> stage;
    if (kVectorLoad && blockIdx.x < tiles)
        issue_vector_load<T, kChannelLast, Traits>(stage, p, x, DirectTileCoords(blockIdx.x, t_tiles, c_tiles));

    for (int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const DirectTileCoords at(tile, t_tiles, c_tiles);
        const int t0 = at.t0, c0 = at.c0;
        const int64_t b = at.b;
        const T *xb = x + b * p.x_batch_stride;

        float acc[kDirectRun];
#pragma unroll
        for (int j = 0; j < kDirectRun; ++j) acc[j] = 0.f;

        for (int tap0 = 0; tap0 < p.width; tap0 += Traits::kTaps) {
            const int taps = min(Traits::kTaps, p.width - tap0);
            const int rows = kDirectTileT + taps - 1;
            const int64_t tau0 = (int64_t)t0 + tap0 - (p.width - 1);  // time of window row 0

            if constexpr (!kVectorLoad) {
                load_window_scalar<T, kChannelLast, Traits::kRows>(window, p, xb, c0, tau0, rows);
            } else {
                // Generic widths may take several passes: reload for each (no prefetch).
                if (!kPrefetch && tap0 > 0) {
                    if constexpr (kChannelLast) stage.issue(p, xb, c0, tau0, rows);
                }
                stage.commit(window);
            }
            for (int i = threadIdx.x; i < kDirectTileC * taps; i += kDirectThreads) {
                const int c = c0 + i / taps;
                const int tap = i % taps;
                weights[(i / taps) * Traits::kWeightStride + tap] =
                    c < p.dim ? to_float(w[(int64_t)c * p.width + tap0 + tap]) : 0.f;
            }
            __syncthreads();
            if constexpr (kPrefetch) {
                // The next tile's loads fly while this one is computed and stored.
                if (tile + gridDim.x < tiles)
                    issue_vector_load<T, kChannelLast, Traits>(stage, p, x,
                                                               DirectTileCoords(tile + gridDim.x, t_tiles, c_tiles));
            }

            const float *column = window + run * kDirectRun * kDirectStride + cl;
            const float *taps_of_c = weights + cl * Traits::kWeightStride;
            if constexpr (kWidth > 0) {
                // Sliding window: input k feeds output j through tap k - j.
                float wt[kWidth];
#pragma unroll
                for (int tap = 0; tap < kWidth; ++tap) wt[tap] = taps_of_c[tap];
#pragma unroll
                for (int k = 0; k < kDirectRun + kWidth - 1; ++k) {
                    const float v = column[k * kDirectStride];
#pragma unroll
                    for (int j = 0; j < kDirectRun; ++j) {
                        const int tap = k - j;
                        if (tap >= 0 && tap < kWidth) acc[j] += wt[tap] * v;
                    }
                }
            } else {
                for (int tap = 0; tap < taps; ++tap) {
                    const float wt = taps_of_c[tap];
#pragma unroll
                    for (int j = 0; j < kDirectRun; ++j) acc[j] += wt * column[(j + tap) * kDirectStride];
                }
            }
            __syncthreads();
        }
        if constexpr (kVectorLoad && !kPrefetch) {
            // Without prefetch, the next tile's loads are issued here (nothing to overlap).
            if (tile + gridDim.x < tiles)
                issue_vector_load<T, kChannelLast, Traits>(stage, p, x,
                                                           DirectTileCoords(tile + gridDim.x, t_tiles, c_tiles));
        }

        const int c = c0 + cl;
        const int t = t0 + run * kDirectRun;
        if (c < p.dim && t < p.seqlen) {
            const float b_c = bias != nullptr ? to_float(bias[c]) : 0.f;
#pragma unroll
            for (int j = 0; j < kDirectRun; ++j) {
                const float v = acc[j] + b_c;
                acc[j] = p.silu ? v / (1.f + expf(-v)) : v;
            }
            const int count = min(kDirectRun, p.seqlen - t);
            store_run(y + b * p.y_batch_stride + c * p.y_dim_stride + t * p.y_seq_stride, p.y_seq_stride, acc,
                      count, vector_store);
        }
    }
}

// 16-byte loads along the contiguous axis need every row start 16-byte aligned (and, for
// channel-first, the taps in one pass). Separate kernels, so the vector kernels do not
// carry the scalar path's registers.
template <typename T, bool kChannelLast>
bool vector_loads_fit(const hipconv_conv1d_params &p, int taps_per_pass) {
    return rows_vectorizable<T, kChannelLast>(p.x, p.x_batch_stride, p.x_dim_stride, p.x_seq_stride, p.dim,
                                              p.seqlen) &&
           (kChannelLast || p.width <= taps_per_pass);
}

template <typename T, bool kChannelLast, int kWidth>
hipconv_status_t launch_direct_width(const hipconv_conv1d_params &p, hipStream_t stream) {
    const int64_t tiles = ceil_div(p.seqlen, kDirectTileT) * ceil_div(p.dim, kDirectTileC) * p.batch;
    const dim3 block(kDirectThreads);
    if (vector_loads_fit<T, kChannelLast>(p, DirectTraits<kWidth>::kTaps)) {
        // One resident wave: each block walks several tiles, loading the next while
        // computing the current.
        auto kernel = conv1d_direct_kernel<T, kChannelLast, kWidth, true>;
        static std::atomic<int64_t> resident_cache[kMaxCachedDevices];  // one per kernel
        int64_t resident = 0;
        HIPCONV_RETURN_IF_ERROR(resident_blocks(kernel, kDirectThreads, resident_cache, &resident));
        hipLaunchKernelGGL(kernel, dim3(grid_blocks(tiles < resident ? tiles : resident)), block, 0, stream, p);
    } else {
        hipLaunchKernelGGL((conv1d_direct_kernel<T, kChannelLast, kWidth, false>), dim3(grid_blocks(tiles)), block, 0,
                           stream, p);
    }
    return last_launch_status();
}

template <typename T, bool kChannelLast>
hipconv_status_t launch_direct_layout(const hipconv_conv1d_params &p, hipStream_t stream) {
    switch (p.width) {
    case 2: return launch_direct_width<T, kChannelLast, 2>(p, stream);
    case 3: return launch_direct_width<T, kChannelLast, 3>(p, stream);
    case 4: return launch_direct_width<T, kChannelLast, 4>(p, stream);
    default: return launch_direct_width<T, kChannelLast, 0>(p, stream);
    }
}

template <typename T>
hipconv_status_t launch_conv1d_direct(const hipconv_conv1d_params &p, hipStream_t stream) {
    if (p.x == nullptr || p.w == nullptr || p.y == nullptr || p.batch < 1 || p.dim < 1 || p.seqlen < 1 ||
        p.width < 1)
        return (hipconv_status_t)hipErrorInvalidValue;
    // The streaming kernels where they fit (widths up to kMaxStreamWidth; flat
    // channel-first tensors), else the tiled kernel. Channel-last when channels are the
    // faster-moving axis of x.
    if (direct_channel_first_fits<T>(p)) return launch_direct_channel_first<T>(p, stream);
    if (direct_channel_last_fits<T>(p)) return launch_direct_channel_last<T>(p, stream);
    if (direct_toeplitz_channel_first_fits<T>(p)) return launch_direct_toeplitz_channel_first<T>(p, stream);
    if (direct_wide_channel_first_fits<T>(p)) return launch_direct_wide_channel_first<T>(p, stream);
    if (direct_toeplitz_rows_channel_last_fits<T>(p)) return launch_direct_toeplitz_rows_channel_last<T>(p, stream);
    if (direct_toeplitz_channel_last_fits<T>(p)) return launch_direct_toeplitz_channel_last<T>(p, stream);
    if (direct_window_channel_last_fits<T>(p)) return launch_direct_window_channel_last<T>(p, stream);
    if (direct_wide_channel_last_fits<T>(p)) return launch_direct_wide_channel_last<T>(p, stream);
    return p.x_dim_stride < p.x_seq_stride ? launch_direct_layout<T, true>(p, stream)
                                           : launch_direct_layout<T, false>(p, stream);
}

}  // namespace hipconv

HIPCONV_EXPORT_PER_DTYPE(conv1d_direct, hipconv_conv1d_params)
