/*
 * conv1d_fused_gemm: the causal depthwise conv1d as an implicit GEMM on matrix cores,
 * with bias and SiLU fused. Same contract as conv1d_direct (hipconv/conv1d.h): x, y by strides
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
 *     Y = A * B,  K/16 instructions of 16x16x16 (matrix_core.h)
 *
 * This is im2col without the im2col matrix: A is read from the staged input window, B is
 * built from the channel's own taps, so no other channel's (zero) weights are loaded or
 * multiplied. Work per output: K multiply-adds (32 for width <= 17).
 *
 * Block: 4 waves and a strip of up to kFusedStrip tiles: tile_c channels (32; 16 / 8 / 4
 * where the kernel is wide or fp32) x 256 times each, consecutive in time, of one batch row.
 *   - The channels' taps, zero-padded, are staged once per strip.
 *   - The input windows go through two shared-memory buffers: while tile k is computed,
 *     tile k+1's window is in flight. window = x[b, c0.., t0-H .. t0+256) stored as x is
 *     laid out ([c][t] channel-first, [t][c] channel-last), so every 16-byte chunk is a
 *     straight copy: cp.async on NVIDIA sm_80+ (no registers held), staged through
 *     registers elsewhere; element loads where x is not 16-byte aligned.
 *   - Each wave takes channels wave, wave+4, ...: K/16 instructions into one 16x16
 *     accumulator, then bias + SiLU, rounded into the output tile ([c][t] or [t][c]).
 *   - The block writes the output tile along y's contiguous axis (16-byte stores where
 *     aligned).
 *
 * Launch: kFusedThreads threads, dynamic shared memory FusedGeometry::bytes (on NVIDIA opted
 * in past 48 KB, once per kernel and device); 1-D grid-stride loop over batch * ceil(dim/tile_c) * ceil(ceil(seqlen/256)/strip)
 * strips.
 */
#include <algorithm>

#include "block_copy.h"
#include "compat.h"
#include "element.h"
#include "hipconv/conv1d.h"
#include "launch.h"
#include "matrix_core.h"
#include "vector_rows.h"

namespace hipconv {

constexpr int kFusedTileT = 256;  // outputs per channel per tile: 16 rows x 16
constexpr int kFusedWaves = 4;
constexpr int kFusedThreads = kFusedWaves * HIPCONV_WAVE_SIZE;
constexpr int kFusedMaxTileC = 32;
constexpr int kFusedMinTileC = 4;
constexpr int kFusedMaxStrip = 8;   // tiles per block
constexpr int kFusedTapPad = 32;    // zeros before tap 0 (B reads down to tap -30)
// Dynamic shared memory per block: past 48 KB needs an opt-in on NVIDIA (launch.h); AMD LDS
// is 64 KB.
#if defined(HIPCONV_PLATFORM_AMD)
constexpr int kFusedSharedLimit = 64 * 1024;
#else
constexpr int kFusedSharedLimit = 72 * 1024;
#endif

// Sizes of one launch's tiles and where its shared-memory regions start (host side).
struct FusedGeometry {
    int history;        // H
    int slices;         // K / 16
    int tile_c;         // channels per tile
    int rows;           // window length in time: 256 + H
    int window_ld;      // elements per window row (a channel; windows are [c][t])
    int window_elems;   // elements per window
    int landing_ld;     // channel-last: elements per landing row (a time; [t][c])
    int out_ld;         // elements per output-tile row
    int taps_ld;        // elements per padded tap row
    int second_offset;  // the second window (channel-first) or the landing buffer (channel-last)
    int out_offset;     // the output tile
    int taps_offset;    // the taps
    int strip;          // tiles per block
    int bytes;          // dynamic shared memory
    int vector_store;   // y takes 16-byte stores along its contiguous axis

    static FusedGeometry make(int width, bool channel_last, int elem_bytes, int tile_c) {
        FusedGeometry g{};
        const int vec = 16 / elem_bytes;  // rows padded by one 16-byte chunk
        auto chunks = [vec](int elems) { return (int)ceil_div(elems, vec) * vec; };
        g.history = 16 * (int)ceil_div(width - 1, 16);
        g.slices = 1 + g.history / 16;
        g.tile_c = tile_c;
        g.rows = kFusedTileT + g.history;
        g.window_ld = g.rows + vec;
        g.window_elems = chunks(tile_c * g.window_ld);
        g.landing_ld = tile_c + vec;
        g.out_ld = channel_last ? tile_c + 2 : kFusedTileT + vec;
        g.taps_ld = width + kFusedTapPad + 16;
        g.second_offset = g.window_elems;
        g.out_offset = g.second_offset + (channel_last ? chunks(g.rows * g.landing_ld) : g.window_elems);
        g.taps_offset = g.out_offset + chunks((channel_last ? kFusedTileT : tile_c) * g.out_ld);
        g.bytes = (g.taps_offset + tile_c * g.taps_ld) * elem_bytes;
        return g;
    }
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

// Issues the loads of x[b, c0 .., tau0 .. tau0 + rows) (0 outside the sequence and past dim)
// into `dst`: with kVectorLoad as x is laid out ([c][t] window or [t][c] landing buffer), and
// possibly still in flight on return (copy_commit / copy_wait); otherwise as a [c][t] window.
template <typename T, bool kChannelLast, bool kVectorLoad>
__device__ inline void load_window(T *dst, const hipconv_conv1d_params &p, const FusedGeometry &g, const T *xb,
                                   int c0, int64_t tau0) {
    constexpr int kVec = Vec16<T>::kCount;
    if constexpr (kVectorLoad) {
        // 16-byte chunks along the contiguous axis: time (channel-first) or channels.
        const int chunks = (kChannelLast ? g.tile_c : g.rows) / kVec;  // per window row
        copy16(
            (kChannelLast ? g.rows : g.tile_c) * chunks, xb,
            [&](int i) -> const void * {
                const int row = i / chunks, first = (i % chunks) * kVec;
                const int c = c0 + (kChannelLast ? first : row);
                const int64_t tau = tau0 + (kChannelLast ? row : first);
                return c < p.dim && tau >= 0 && tau < p.seqlen ? xb + c * p.x_dim_stride + tau * p.x_seq_stride
                                                               : nullptr;
            },
            [&](int i) {
                const int ld = kChannelLast ? g.landing_ld : g.window_ld;
                return (void *)(dst + (i / chunks) * ld + (i % chunks) * kVec);
            });
    } else {
        // Any strides: one element per load, consecutive threads along the contiguous axis.
        staged<T>(
            g.rows * g.tile_c,
            [&](int i) {
                const int cl = kChannelLast ? i % g.tile_c : i / g.rows;
                const int u = kChannelLast ? i / g.tile_c : i % g.rows;
                const int c = c0 + cl;
                const int64_t tau = tau0 + u;
                return c < p.dim && tau >= 0 && tau < p.seqlen ? xb[c * p.x_dim_stride + tau * p.x_seq_stride]
                                                               : zero_of<T>();
            },
            [&](int i, const T &v) {
                const int cl = kChannelLast ? i % g.tile_c : i / g.rows;
                const int u = kChannelLast ? i / g.tile_c : i % g.rows;
                dst[cl * g.window_ld + u] = v;
            });
    }
}

// window[c][t] = landing[t][c]: 16-byte reads along c, lanes along t (no bank conflicts).
template <typename T> __device__ inline void transpose_landing(T *window, const T *landing, const FusedGeometry &g) {
    constexpr int kVec = Vec16<T>::kCount;
    for (int i = threadIdx.x; i < g.rows * (g.tile_c / kVec); i += blockDim.x) {
        const int u = i % g.rows, c = (i / g.rows) * kVec;
        const uint4 v = *reinterpret_cast<const uint4 *>(landing + u * g.landing_ld + c);
        const T *e = reinterpret_cast<const T *>(&v);
#pragma unroll
        for (int k = 0; k < kVec; ++k) window[(c + k) * g.window_ld + u] = e[k];
    }
}

// Y = A * B for each channel of this wave, with bias and SiLU, rounded into the output tile.
template <typename T, bool kChannelLast>
__device__ inline void compute_tile(T *out, const T *window, const T *taps, const hipconv_conv1d_params &p,
                                    const FusedGeometry &g, int c0) {
    const T *bias = static_cast<const T *>(p.bias);
    for (int cl = threadIdx.x / HIPCONV_WAVE_SIZE; cl < g.tile_c; cl += kFusedWaves) {
        mc::Acc acc;
        mc::zero(acc);
        const T *tap = taps + cl * g.taps_ld + kFusedTapPad;
        for (int s = 0; s < g.slices; ++s) {
            const T *a = window + cl * g.window_ld + 16 * s;         // A(i, 16s + k) = a[16i + k]
            const T *band = tap + 16 * s - g.history + p.width - 1;  // B(16s + k, j) = band[k - j]
            mc::mma_rows<T>(acc, a, 16, [band](int k, int n) { return band[k - n]; });
        }
        const int c = c0 + cl;
        const float b_c = bias != nullptr && c < p.dim ? to_float(bias[c]) : 0.f;
        mc::for_each(acc, [&](int i, int n, float v) {
            v += b_c;
            if (p.silu) v = v / (1.f + expf(-v));
            const int t = 16 * i + n;
            out[kChannelLast ? t * g.out_ld + cl : cl * g.out_ld + t] = from_float<T>(v);
        });
    }
}

// The output tile to y[b, c0.., t0..], along y's contiguous axis.
template <typename T, bool kChannelLast>
__device__ inline void store_tile(T *yb, const T *out, const hipconv_conv1d_params &p, const FusedGeometry &g, int c0,
                                  int64_t t0) {
    constexpr int kVec = Vec16<T>::kCount;
    const int runs = (kChannelLast ? g.tile_c : kFusedTileT) / kVec;  // vectors per tile row
    const int rows = kChannelLast ? kFusedTileT : g.tile_c;
    for (int i = threadIdx.x; i < rows * runs; i += blockDim.x) {
        const int row = i / runs, first = (i % runs) * kVec;
        const int c = c0 + (kChannelLast ? first : row);
        const int64_t t = t0 + (kChannelLast ? row : first);
        if (c >= p.dim || t >= p.seqlen) continue;
        T *dst = yb + c * p.y_dim_stride + t * p.y_seq_stride;
        const T *src = out + row * g.out_ld + first;
        const int64_t step = kChannelLast ? p.y_dim_stride : p.y_seq_stride;
        const int count = kChannelLast ? min(kVec, p.dim - c) : (int)min((int64_t)kVec, p.seqlen - t);
        if (!kChannelLast && g.vector_store && count == kVec) {
            // Output-tile rows are 16-byte aligned along t: one load, one store.
            *reinterpret_cast<uint4 *>(dst) = *reinterpret_cast<const uint4 *>(src);
        } else if (g.vector_store && count == kVec) {
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
    T *const window = reinterpret_cast<T *>(fused_shared);
    T *const second = window + g.second_offset;  // channel-first: window 2; channel-last: landing
    T *const out = window + g.out_offset;
    T *const taps = window + g.taps_offset;

    const T *x = static_cast<const T *>(p.x);
    T *y = static_cast<T *>(p.y);
    const int64_t t_tiles = ceil_div(p.seqlen, kFusedTileT);
    const int64_t strips_per_row = ceil_div(t_tiles, g.strip);
    const int64_t c_tiles = ceil_div(p.dim, g.tile_c);
    const int64_t strips = strips_per_row * c_tiles * p.batch;
    for (int64_t strip = blockIdx.x; strip < strips; strip += gridDim.x) {
        const int64_t b = strip / (strips_per_row * c_tiles);
        const int c0 = (int)((strip / strips_per_row) % c_tiles) * g.tile_c;
        const int64_t first = (strip % strips_per_row) * g.strip;  // first tile (in time)
        const int tiles = (int)min((int64_t)g.strip, t_tiles - first);
        const T *xb = x + b * p.x_batch_stride;
        T *yb = y + b * p.y_batch_stride;
        auto tau0_of = [&](int k) { return (first + k) * kFusedTileT - g.history; };

        __syncthreads();  // the previous strip is done with every buffer
        load_taps(taps, p, g, c0);
        if constexpr (!kVectorLoad) {
            // Element loads: no pipeline, one window per tile.
            for (int k = 0; k < tiles; ++k) {
                load_window<T, kChannelLast, false>(window, p, g, xb, c0, tau0_of(k));
                __syncthreads();
                compute_tile<T, kChannelLast>(out, window, taps, p, g, c0);
                __syncthreads();
                store_tile<T, kChannelLast>(yb, out, p, g, c0, tau0_of(k) + g.history);
            }
        } else if constexpr (!kChannelLast) {
            // Two windows: tile k+1's chunks fly while tile k is computed and stored.
            load_window<T, false, true>(window, p, g, xb, c0, tau0_of(0));
            copy_commit();
            for (int k = 0; k < tiles; ++k) {
                T *current = k % 2 == 0 ? window : second;
                T *next = k % 2 == 0 ? second : window;
                if (k + 1 < tiles) load_window<T, false, true>(next, p, g, xb, c0, tau0_of(k + 1));
                copy_commit();
                copy_wait<1>();
                __syncthreads();
                compute_tile<T, false>(out, current, taps, p, g, c0);
                __syncthreads();  // the output tile is complete; this window may be refilled
                store_tile<T, false>(yb, out, p, g, c0, tau0_of(k) + g.history);
            }
        } else {
            // Chunks land as [t][c], are transposed into the [c][t] window, and tile k+1's
            // chunks fly while tile k is computed and stored.
            load_window<T, true, true>(second, p, g, xb, c0, tau0_of(0));
            copy_commit();
            for (int k = 0; k < tiles; ++k) {
                copy_wait<0>();
                __syncthreads();  // landed; tile k-1 is computed and stored
                transpose_landing(window, second, g);
                __syncthreads();
                if (k + 1 < tiles) load_window<T, true, true>(second, p, g, xb, c0, tau0_of(k + 1));
                copy_commit();
                compute_tile<T, true>(out, window, taps, p, g, c0);
                __syncthreads();
                store_tile<T, true>(yb, out, p, g, c0, tau0_of(k) + g.history);
            }
        }
    }
}

// x (loads) or y (stores) in 16-byte vectors; channel-last vectors also must not cross the
// channel tile.
template <typename T, bool kChannelLast>
bool fused_vectorizable(const void *base, int64_t batch_stride, int64_t dim_stride, int64_t seq_stride,
                        const hipconv_conv1d_params &p, int tile_c) {
    return rows_vectorizable<T, kChannelLast>(base, batch_stride, dim_stride, seq_stride, p.dim, p.seqlen) &&
           (!kChannelLast || tile_c % Vec16<T>::kCount == 0);
}

// One kernel's launch; it asks for its shared memory once per device (launch.h).
template <typename T, bool kChannelLast, bool kVectorLoad>
hipconv_status_t launch_fused(const FusedGeometry &g, int64_t blocks, hipStream_t stream,
                              const hipconv_conv1d_params &p) {
    auto kernel = conv1d_fused_gemm_kernel<T, kChannelLast, kVectorLoad>;
    static std::atomic<int64_t> shared_cache[kMaxCachedDevices];  // one per kernel
    HIPCONV_RETURN_IF_ERROR(allow_dynamic_shared(kernel, g.bytes, shared_cache));
    hipLaunchKernelGGL(kernel, dim3(grid_blocks(blocks)), dim3(kFusedThreads), g.bytes, stream, p, g);
    return last_launch_status();
}

template <typename T, bool kChannelLast>
hipconv_status_t launch_fused_layout(const hipconv_conv1d_params &p, hipStream_t stream) {
    // The widest channel tile whose buffers fit; wide kernels and fp32 get narrower tiles.
    FusedGeometry g = FusedGeometry::make(p.width, kChannelLast, sizeof(T), kFusedMaxTileC);
    while (g.bytes > kFusedSharedLimit && g.tile_c > kFusedMinTileC)
        g = FusedGeometry::make(p.width, kChannelLast, sizeof(T), g.tile_c / 2);
    if (g.bytes > kFusedSharedLimit) return (hipconv_status_t)hipErrorInvalidValue;
    g.vector_store =
        fused_vectorizable<T, kChannelLast>(p.y, p.y_batch_stride, p.y_dim_stride, p.y_seq_stride, p, g.tile_c);

    // Strips long enough to keep the pipeline busy, short enough to leave ~1000 blocks.
    const int64_t t_tiles = ceil_div(p.seqlen, kFusedTileT);
    const int64_t tiles = t_tiles * ceil_div(p.dim, g.tile_c) * p.batch;
    g.strip = (int)std::min<int64_t>(std::max<int64_t>(tiles / 1024, 1), kFusedMaxStrip);
    const int64_t blocks = ceil_div(t_tiles, g.strip) * ceil_div(p.dim, g.tile_c) * p.batch;
    if (fused_vectorizable<T, kChannelLast>(p.x, p.x_batch_stride, p.x_dim_stride, p.x_seq_stride, p, g.tile_c))
        return launch_fused<T, kChannelLast, true>(g, blocks, stream, p);
    return launch_fused<T, kChannelLast, false>(g, blocks, stream, p);
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

HIPCONV_EXPORT_PER_DTYPE(conv1d_fused_gemm, hipconv_conv1d_params)
