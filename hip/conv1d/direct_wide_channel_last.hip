/*
 * Direct, channel-last, wide filters: the streaming causal conv1d with channels along the
 * lanes for widths kWindowMaxWidth+1 .. kMaxStreamWidth, compiled as W = 32 and 64 taps
 * (zero taps in front, as in direct_wide_channel_first.hip). Widths up to kWindowMaxWidth
 * run direct_window_channel_last.hip (faster there: docs/PERFORMANCE.md, "Wide kernels").
 * f16/bf16 from width kToeplitzChannelLastFromWidth on run direct_toeplitz_channel_last.hip
 * where it fits.
 *
 *   in   x [batch, seqlen, dim] by strides (x_dim_stride < x_seq_stride)
 *        w [dim, width], bias [dim] or NULL
 *   out  y [batch, seqlen, dim] by strides
 *        y[b,c,t] = act(bias[c] + sum_tap w[c,tap] * x[b,c,t+tap-(width-1)]),  x[..,<0] = 0
 *
 * A tile is C = 32 channels × T = 8·R times of one batch row. Its input rows, times
 * t0-(W-1) .. t0+T-1, are staged in shared memory as they lie in memory (zero outside the
 * sequence and past dim): 16-byte copies where rows are vectorizable (cp.async on NVIDIA,
 * no registers held; block_copy.h), else one element per access. Then thread (r, g) =
 * (tid / 32, tid % 32) computes times t0 + r·R .. +R of channel c0 + g:
 *
 *   stage row   channels ->   g = 0 | g = 1 | ... | g = 31     (one channel each)
 *   0 .. W-2                  history of the tile (times t0-W+1 .. t0-1)
 *   W-1 .. W-2+T              the tile's times
 *   threads r read rows r·R .. r·R + R + W - 2: 32 neighbouring elements of one row at a
 *   time (no bank conflicts)
 *
 * Each thread keeps its W taps and R sums in registers (fp32) and reads each of its R + W - 1
 * rows once: row i adds tap i - j to output j (an outer product). R is the most (up to 32
 * sums, R·W <= 512) for which two stages and the taps fit in kSharedBudget.
 *
 * The grid is one resident wave (occupancy API); block k walks tiles [k·n/G, (k+1)·n/G),
 * time fastest, copying the next tile into the other stage while it computes the current
 * one. The taps of the channel tile are read once into shared memory (w's contiguous span,
 * coalesced; transposed, so that each thread reads its own with no bank conflicts) and
 * stay in registers until the channel tile changes. (Measured on an H100: loaded per
 * thread from w, 32 lanes with 32 channels' rows made every tap load touch 16-32 cache
 * lines, and the kernel ran at 40% of copy at width 16 instead of 74%; one tile per block,
 * without the copy of the next in flight, 44%.)
 *
 * Launch: kThreads = 256 threads, min(tiles, resident blocks) blocks.
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
#include "vector_rows.h"

namespace hipconv {

namespace {

constexpr int kThreads = 256;
constexpr int kGroups = 32;                  // channel groups (threads) along a row
constexpr int kRuns = kThreads / kGroups;    // runs of R times

constexpr int kSharedBudget = 46 * 1024;      // bytes of shared memory per block, at most

template <typename T, int kWidth> struct WideTile {
    static constexpr int C = kGroups;  // channels per tile, one per thread
    static constexpr int E = Vec16<T>::kCount;
    static constexpr int kRowVectors = C / E;  // 16-byte vectors per staged row
    static_assert(C % E == 0, "a staged row is a whole number of 16-byte vectors");
    // Shared memory with R times per thread: two stages and the taps.
    static constexpr int shared_bytes(int r) {
        return 2 * (kRuns * r + kWidth - 1) * C * (int)sizeof(T) + kWidth * (C + 1) * 4;
    }
    // Times per thread: the most of 32, 16, 8 that fit the budget with at most 512
    // taps·times (R·W), the unrolled loop that hipcc still keeps in registers (past it
    // gfx90a put the taps in scratch at R = 32, W = 32).
    static constexpr bool fits(int r) { return r * kWidth <= 512 && shared_bytes(r) <= kSharedBudget; }
    static constexpr int R = fits(32) ? 32 : fits(16) ? 16 : 8;
    static_assert(shared_bytes(R) <= kSharedBudget, "the stages fit in shared memory");
    static constexpr int T_ = kRuns * R;          // times per tile
    static constexpr int kRows = T_ + kWidth - 1;  // staged rows
};

// Stage the rows of the tile at (x_b, t0, c0): 16-byte copies without registers where the
// hardware can (rows vectorizable, so a vector lies wholly before or past dim), or one
// element per thread and access in batches of loads.
template <typename T, int kWidth, bool kVectors>
__device__ inline void issue_tile(T *stage, const T *x_b, const hipconv_conv1d_params &p, int64_t t0, int c0) {
    using Tile = WideTile<T, kWidth>;
    const int64_t t_first = t0 - (kWidth - 1);
    if constexpr (kVectors) {
        copy16(
            Tile::kRows * Tile::kRowVectors, x_b,
            [&](int i) -> const void * {
                const int64_t tau = t_first + i / Tile::kRowVectors;
                const int c = c0 + (i % Tile::kRowVectors) * Tile::E;
                return tau >= 0 && tau < p.seqlen && c < p.dim ? x_b + tau * p.x_seq_stride + c : nullptr;
            },
            [&](int i) { return stage + i * Tile::E; });
        copy_commit();
    } else {
        staged<T>(
            Tile::kRows * Tile::C,
            [&](int i) {
                const int64_t tau = t_first + i / Tile::C;
                const int c = c0 + i % Tile::C;
                return tau >= 0 && tau < p.seqlen && c < p.dim ? x_b[tau * p.x_seq_stride + (int64_t)c * p.x_dim_stride]
                                                               : from_float<T>(0.f);
            },
            [&](int i, const T &v) { stage[i] = v; });
    }
}

// The taps of the tile's C channels into shared memory, fp32, transposed ([tap][channel],
// rows padded by one word against bank conflicts) with kWidth - width zero taps in front:
// the block reads w's contiguous span for the channels, one element per thread.
template <typename T, int kWidth>
__device__ inline void load_tile_taps(float *taps, const T *w, const hipconv_conv1d_params &p, int c0) {
    constexpr int C = WideTile<T, kWidth>::C;
    constexpr int kPitch = C + 1;
    const int pad = kWidth - p.width;
    const int channels = min(C, p.dim - c0);
    for (int i = threadIdx.x; i < pad * C; i += kThreads) taps[i / C * kPitch + i % C] = 0.f;
    staged<float>(
        C * p.width, [&](int i) { return i < channels * p.width ? to_float(w[(int64_t)c0 * p.width + i]) : 0.f; },
        [&](int i, float v) { taps[(pad + i % p.width) * kPitch + i / p.width] = v; });
}

// The tiles [begin, end) of this block, time fastest, in order: the next tile's copies are
// in flight while the current one is computed (two stages in shared memory); the taps stay
// in registers while the channel tile does.
template <typename T, int kWidth, bool kVectors, bool kSilu>
__global__ void __launch_bounds__(kThreads) conv1d_direct_wide_channel_last_kernel(hipconv_conv1d_params p,
                                                                                   int64_t channel_tiles,
                                                                                   int64_t time_tiles) {
    using Tile = WideTile<T, kWidth>;
    constexpr int R = Tile::R;
    __shared__ __align__(16) T stages[2][Tile::kRows * Tile::C];
    __shared__ float tile_taps[kWidth][Tile::C + 1];

    const T *x = static_cast<const T *>(p.x);
    const T *w = static_cast<const T *>(p.w);
    const T *bias = static_cast<const T *>(p.bias);
    const int64_t tiles = channel_tiles * time_tiles * p.batch;
    const int64_t begin = blockIdx.x * tiles / gridDim.x;
    const int64_t end = (blockIdx.x + 1) * tiles / gridDim.x;
    // Tile u: time tile u % time_tiles, channel tile (u / time_tiles) % channel_tiles, batch
    // u / (time_tiles·channel_tiles); divided once, then advanced (no division in the loop).
    struct Where {
        int64_t b, time_tile, channel_tile;
        __device__ Where next(int64_t time_tiles, int64_t channel_tiles) const {
            if (time_tile + 1 < time_tiles) return {b, time_tile + 1, channel_tile};
            if (channel_tile + 1 < channel_tiles) return {b, 0, channel_tile + 1};
            return {b + 1, 0, 0};
        }
    };
    const QuotientRemainder by_time = divide(begin, time_tiles);
    const QuotientRemainder by_channel = divide(by_time.quotient, channel_tiles);
    Where at{by_channel.quotient, by_time.remainder, by_channel.remainder};

    const int run = (int)threadIdx.x / kGroups;
    const int lane_channel = (int)threadIdx.x % kGroups;  // within the tile
    float taps[kWidth];
    float bias_c = 0.f;
    int taps_c0 = -1;

    if (begin < end)
        issue_tile<T, kWidth, kVectors>(stages[0], x + at.b * p.x_batch_stride, p, at.time_tile * Tile::T_,
                                        (int)at.channel_tile * Tile::C);
    for (int64_t u = begin; u < end; ++u, at = at.next(time_tiles, channel_tiles)) {
        if (u + 1 < end) {
            const Where next = at.next(time_tiles, channel_tiles);
            issue_tile<T, kWidth, kVectors>(stages[(u + 1 - begin) & 1], x + next.b * p.x_batch_stride, p,
                                            next.time_tile * Tile::T_, (int)next.channel_tile * Tile::C);
            copy_wait<1>();
        } else {
            copy_wait<0>();
        }
        const int c0 = (int)at.channel_tile * Tile::C;
        const int64_t t0 = at.time_tile * Tile::T_;
        const bool new_taps = c0 != taps_c0;  // the same for the whole block
        if (new_taps) load_tile_taps<T, kWidth>(&tile_taps[0][0], w, p, c0);
        __syncthreads();

        const int c = c0 + lane_channel;
        if (new_taps) {
#pragma unroll
            for (int k = 0; k < kWidth; ++k) taps[k] = tile_taps[k][lane_channel];
            bias_c = bias != nullptr && c < p.dim ? to_float(bias[c]) : 0.f;
            taps_c0 = c0;
        }
        float acc[R];
#pragma unroll
        for (int j = 0; j < R; ++j) acc[j] = bias_c;

        const T *column = stages[(u - begin) & 1] + run * R * Tile::C + lane_channel;
#pragma unroll
        for (int i = 0; i < R + kWidth - 1; ++i) {
            const float v = to_float(column[i * Tile::C]);
#pragma unroll
            for (int j = 0; j < R; ++j) {
                const int k = i - j;
                if (k >= 0 && k < kWidth) acc[j] += taps[k] * v;
            }
        }

        if (c < p.dim) {
            T *y = static_cast<T *>(p.y) + at.b * p.y_batch_stride + (int64_t)c * p.y_dim_stride;
            const int64_t t_run = t0 + run * R;
#pragma unroll
            for (int j = 0; j < R; ++j) {
                const int64_t t = t_run + j;
                if (t >= p.seqlen) break;
                y[t * p.y_seq_stride] = from_float<T>(activate<kSilu>(acc[j]));
            }
        }
        __syncthreads();  // this stage is refilled two tiles on, and the taps may be
    }
}

template <typename T, int kWidth, bool kVectors, bool kSilu>
hipconv_status_t launch_kernel(const hipconv_conv1d_params &p, hipStream_t stream) {
    using Tile = WideTile<T, kWidth>;
    auto kernel = conv1d_direct_wide_channel_last_kernel<T, kWidth, kVectors, kSilu>;
    const int64_t channel_tiles = ceil_div((int64_t)p.dim, (int64_t)Tile::C);
    const int64_t time_tiles = ceil_div((int64_t)p.seqlen, (int64_t)Tile::T_);
    const int64_t tiles = channel_tiles * time_tiles * p.batch;
    static std::atomic<int64_t> resident_cache[kMaxCachedDevices];
    int64_t resident = 0;
    HIPCONV_RETURN_IF_ERROR(resident_blocks(kernel, kThreads, resident_cache, &resident));
    const int64_t blocks = tiles < resident ? tiles : resident;
    hipLaunchKernelGGL(kernel, dim3((unsigned)blocks), dim3(kThreads), 0, stream, p, channel_tiles, time_tiles);
    return last_launch_status();
}

template <typename T, int kWidth> hipconv_status_t launch_width(const hipconv_conv1d_params &p, hipStream_t stream) {
    const bool vectors = rows_vectorizable<T, true>(p.x, p.x_batch_stride, p.x_dim_stride, p.x_seq_stride, p.dim,
                                                    p.seqlen) &&
                         rows_vectorizable<T, true>(p.y, p.y_batch_stride, p.y_dim_stride, p.y_seq_stride, p.dim,
                                                    p.seqlen);
    return with_silu(p.silu != 0, [&](auto silu) {
        constexpr bool kSilu = decltype(silu)::value;
        return vectors ? launch_kernel<T, kWidth, true, kSilu>(p, stream)
                       : launch_kernel<T, kWidth, false, kSilu>(p, stream);
    });
}

}  // namespace

template <typename T> bool direct_wide_channel_last_fits(const hipconv_conv1d_params &p) {
    return p.width > kWindowMaxWidth && p.width <= kMaxStreamWidth && p.x_dim_stride < p.x_seq_stride;
}

template <typename T>
hipconv_status_t launch_direct_wide_channel_last(const hipconv_conv1d_params &p, hipStream_t stream) {
    if (p.width <= 32) return launch_width<T, 32>(p, stream);
    if (p.width <= 64) return launch_width<T, 64>(p, stream);
    return (hipconv_status_t)hipErrorInvalidValue;
}

#define HIPCONV_INSTANTIATE(T)                                                           \
    template bool direct_wide_channel_last_fits<T>(const hipconv_conv1d_params &);       \
    template hipconv_status_t launch_direct_wide_channel_last<T>(const hipconv_conv1d_params &, hipStream_t);
HIPCONV_INSTANTIATE(__half)
HIPCONV_INSTANTIATE(hipconv_bf16)
HIPCONV_INSTANTIATE(float)
#undef HIPCONV_INSTANTIATE

}  // namespace hipconv
