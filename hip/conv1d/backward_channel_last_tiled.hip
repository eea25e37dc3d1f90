/*
 * The backward's tiled channel-last path (hipconv/conv1d.h, "backward"), widths 1..4:
 * x, dy, dx [batch, seqlen, dim] by strides with channels contiguous in 16-byte vectors
 * (dim, the strides and the pointers a whole number of them), no packed batch.
 *
 * f16 only: bf16 and f32 run faster on backward_channel_last.hip (docs/PERFORMANCE.md,
 * "Backward"), so their kernels are not compiled.
 *
 * A tile is kTimes rows of kThreads channels of one batch row, staged in shared memory
 * with 16-byte copies (cp.async on sm_80+) into one of two buffers, so the next tile's
 * copies are in flight while this one is walked; thread i walks channel c0 + i down the
 * tile's times in registers and writes dx back into the dy rows it has consumed, and the
 * block stores them with 16-byte stores:
 *
 *   x rows   t0-H .. t0+kTimes-1   (+ H more after, for a recomputed head)
 *   dy rows  t0 .. t0+kTimes-1     (+ H more after)       then dx in place of dy
 *                 channel c0 .. c0+kThreads-1 across, 16-byte vectors
 *
 *   per thread, t = t0 .. t0+kTimes-1:  dz(t) = dy(t)·act'(z(t)),  z from x(t-H .. t)
 *                                       dx(t-H) = sum_k w[k]·dz(t-k)
 *                                       dweight, dbias sums += dz(t)·x(t-H+k), dz(t)
 *
 * A block owns a run of tiles of one (batch row, channel group) and walks it from the
 * latest: the head dz(t0+kTimes .. +H-1) of a tile is the first H dz of the tile after it
 * (kept in registers), zero past the row's end, or recomputed from the extra rows where a
 * run starts inside a row. Taps, bias and the sums stay in registers over the run; each
 * thread writes its channel's sums once, to partials[b·runs + run, c]. The runs per row
 * are chosen from the resident blocks so that the last round of blocks is nearly full.
 * Launch: kThreads threads, grid-stride over runs·batch·channel groups (groups fastest).
 */
#include "backward.h"
#include "block_copy.h"
#include "packed.h"
#include "vector_rows.h"

namespace hipconv {

namespace {

constexpr int kThreads = 128;  // channels per tile, one per thread

template <typename T> constexpr bool kTiledDtype = std::is_same<T, __half>::value;  // the dtypes compiled

template <typename T> struct TileShape {
    static constexpr int kE = Vec16<T>::kCount;  // channels per 16-byte vector
    // Two buffers of rows: the next tile's copies in flight while this one is walked.
    static constexpr int kBuffers = 2;
#if defined(HIPCONV_PLATFORM_AMD)
    static constexpr int kTimes = 16;  // about 20 KB of rows: 3 blocks in 64 KB of LDS
#else
    static constexpr int kTimes = 32;  // about 37 KB of rows: 6 blocks per SM
#endif
    static constexpr int kVectorsPerRow = kThreads / kE;
};

// Resident blocks assumed where the runtime cannot say (an H100 at six per SM).
constexpr int64_t kFallbackResident = 132 * 6;

template <typename T, int kWidth, bool kSilu>
__global__ void HIPCONV_BOUNDS_NVIDIA(kThreads, 6)
    conv1d_backward_channel_last_tiled_kernel(hipconv_conv1d_backward_params p, int64_t runs, int64_t run_tiles,
                                              float *partials) {
    using Shape = TileShape<T>;
    constexpr int E = Shape::kE;
    constexpr int kTimes = Shape::kTimes;
    constexpr int kVPR = Shape::kVectorsPerRow;
    constexpr int H = kWidth - 1;
    constexpr int kHeads = H > 0 ? H : 1;
    constexpr int kBuffers = Shape::kBuffers;
    __shared__ __align__(16) T x_stage[kBuffers][kTimes + 2 * H][kThreads];  // x(t0 - H + r)
    __shared__ __align__(16) T g_stage[kBuffers][kTimes + H][kThreads];      // dy(t0 + r), then dx(t0 + r)

    const hipconv_conv1d_params &cp = p.conv;
    const int64_t seqlen = cp.seqlen;
    const int64_t dim = cp.dim;
    const int64_t groups = ceil_div(dim, kThreads);
    const int64_t row_tiles = ceil_div(seqlen, kTimes);
    const T *x_base = static_cast<const T *>(cp.x);
    const T *dy_base = static_cast<const T *>(p.dy);
    T *dx_base = static_cast<T *>(p.dx);
    const int tid = threadIdx.x;

    for (int64_t block = blockIdx.x; block < runs * cp.batch * groups; block += gridDim.x) {
        const QuotientRemainder by_group = divide(block, groups);
        const int64_t c0 = by_group.remainder * kThreads;
        const QuotientRemainder by_row = divide(by_group.quotient, cp.batch);
        const int64_t b = by_row.remainder;
        const int64_t run = by_row.quotient;
        const int64_t first_tile = run * run_tiles;
        const int64_t end_tile = first_tile + run_tiles < row_tiles ? first_tile + run_tiles : row_tiles;
        const int64_t c = c0 + tid;
        const bool active = c < dim;
        const int64_t row_offset = b * cp.x_batch_stride;

        float taps[kWidth];
        float bias = 0.f;
#pragma unroll
        for (int k = 0; k < kWidth; ++k) taps[k] = active ? to_float(static_cast<const T *>(cp.w)[c * kWidth + k]) : 0.f;
        if (active && cp.bias != nullptr) bias = to_float(static_cast<const T *>(cp.bias)[c]);
        float sums[kWidth + 1];
#pragma unroll
        for (int k = 0; k <= kWidth; ++k) sums[k] = 0.f;
        float heads[kHeads];  // dz(t0 + kTimes + m) of the tile being walked
#pragma unroll
        for (int m = 0; m < kHeads; ++m) heads[m] = 0.f;

        // Rows outside [0, seqlen) and vectors past dim are zero-filled.
        auto source = [&](const T *base, int64_t t, int v) -> const void * {
            const int64_t ch = c0 + (int64_t)v * E;
            if (t < 0 || t >= seqlen || ch >= dim) return nullptr;
            return base + row_offset + t * cp.x_seq_stride + ch;
        };
        auto recomputes = [&](int64_t tile) { return tile == end_tile - 1 && tile != row_tiles - 1; };
        auto stage = [&](int64_t tile, int buf) {
            const int64_t t0 = tile * kTimes;
            const int extra = recomputes(tile) ? H : 0;  // a run that starts inside a row
            copy16(
                (kTimes + H + extra) * kVPR, x_base,
                [&](int i) { return source(x_base, t0 - H + i / kVPR, i % kVPR); },
                [&](int i) { return &x_stage[buf][i / kVPR][(i % kVPR) * E]; });
            copy16(
                (kTimes + extra) * kVPR, dy_base, [&](int i) { return source(dy_base, t0 + i / kVPR, i % kVPR); },
                [&](int i) { return &g_stage[buf][i / kVPR][(i % kVPR) * E]; });
            copy_commit();
        };
        int buf = 0;
        stage(end_tile - 1, 0);
        for (int64_t tile = end_tile - 1; tile >= first_tile; --tile) {
            const int64_t t0 = tile * kTimes;
            const bool row_end = tile == row_tiles - 1;
            const bool recompute = recomputes(tile);
            if (tile > first_tile) {  // the next tile's rows in flight while this one is walked
                stage(tile - 1, buf ^ 1);
                copy_wait<1>();
            } else {
                copy_wait<0>();
            }
            __syncthreads();
            T(&x_rows)[kTimes + 2 * H][kThreads] = x_stage[buf];
            T(&g_rows)[kTimes + H][kThreads] = g_stage[buf];

            float xh[kHeads];  // x(t - H .. t - 1)
#pragma unroll
            for (int m = 0; m < H; ++m) xh[m] = to_float(x_rows[m][tid]);
            if (t0 == 0 && cp.initial_states != nullptr && active) {
                const T *initial = static_cast<const T *>(cp.initial_states) + (b * dim + c) * H;
#pragma unroll
                for (int m = 0; m < H; ++m) xh[m] = to_float(initial[m]);
            }
            if (recompute) {  // dz(t0 + kTimes + m) from the extra rows
#pragma unroll
                for (int m = 0; m < H; ++m) {
                    float z = bias;
#pragma unroll
                    for (int k = 0; k < kWidth; ++k) z += taps[k] * to_float(x_rows[kTimes + m + k][tid]);
                    heads[m] = to_float(g_rows[kTimes + m][tid]) * activation_derivative<kSilu>(z);
                }
            } else if (row_end) {
#pragma unroll
                for (int m = 0; m < H; ++m) heads[m] = 0.f;
            }
            // dx(t) for the last H times of the row takes dfinal_states too.
            const T *dfinal = p.dfinal_states != nullptr && H > 0 && active && t0 + kTimes > seqlen - H
                                  ? static_cast<const T *>(p.dfinal_states) + (b * dim + c) * H
                                  : nullptr;
            auto finish_dx = [&](int r, float acc) {
                const int64_t k = t0 + r - (seqlen - H);
                if (dfinal != nullptr && k >= 0 && t0 + r < seqlen) acc += to_float(dfinal[k]);
                g_rows[r][tid] = from_float<T>(acc);
            };

            float dzh[kWidth];  // dz(t - H .. t)
            float first[kHeads];
#pragma unroll
            for (int r = 0; r < kTimes; ++r) {
                const float xt = to_float(x_rows[H + r][tid]);
                float z = bias + taps[H] * xt;
#pragma unroll
                for (int k = 0; k < H; ++k) z += taps[k] * xh[k];
                const float dz = to_float(g_rows[r][tid]) * activation_derivative<kSilu>(z);
#pragma unroll
                for (int k = 0; k < H; ++k) sums[k] += dz * xh[k];
                sums[H] += dz * xt;
                sums[kWidth] += dz;
#pragma unroll
                for (int k = 0; k + 1 < H; ++k) xh[k] = xh[k + 1];
                if constexpr (H > 0) xh[H - 1] = xt;
#pragma unroll
                for (int k = 0; k < H; ++k) dzh[k] = dzh[k + 1];
                dzh[H] = dz;
                if (r < H) first[r] = dz;
                if (r >= H) {  // dx(t - H) = sum_k w[k]·dz(t - k)
                    float acc = 0.f;
#pragma unroll
                    for (int k = 0; k < kWidth; ++k) acc += taps[k] * dzh[H - k];
                    finish_dx(r - H, acc);
                }
            }
            // The last H times: their sums reach into the head.
#pragma unroll
            for (int s = kTimes - H; s < kTimes; ++s) {
                float acc = 0.f;
#pragma unroll
                for (int k = 0; k < kWidth; ++k) {
                    const int u = s + H - k;  // dz(t0 + u)
                    acc += taps[k] * (u < kTimes ? dzh[H - (kTimes - 1 - u)] : heads[u - kTimes]);
                }
                finish_dx(s, acc);
            }
#pragma unroll
            for (int m = 0; m < H; ++m) heads[m] = first[m];  // the head of the tile before
            __syncthreads();

            for (int i = tid; i < kTimes * kVPR; i += kThreads) {
                const int r = i / kVPR, v = i % kVPR;
                const int64_t t = t0 + r, ch = c0 + (int64_t)v * E;
                if (t < seqlen && ch < dim)
                    *reinterpret_cast<uint4 *>(dx_base + row_offset + t * cp.x_seq_stride + ch) =
                        *reinterpret_cast<const uint4 *>(&g_rows[r][v * E]);
            }
            __syncthreads();
            buf ^= 1;
        }
        if (active) {
#pragma unroll
            for (int k = 0; k <= kWidth; ++k) partials[partial_index(b * runs + run, dim, c, kWidth, k)] = sums[k];
        }
    }
}

// Runs per row: the fewest that keep the rounds of blocks full, i.e. minimise
// ceil(blocks / resident) · tiles per run (the busiest slot's tiles), over up to about
// eight rounds of blocks.
int64_t runs_per_row(int64_t streams, int64_t row_tiles, int64_t resident) {
    const int64_t most = ceil_div(8 * resident, streams) < row_tiles ? ceil_div(8 * resident, streams) : row_tiles;
    int64_t best = 1, best_cost = INT64_MAX;
    for (int64_t runs = 1; runs <= most; ++runs) {
        const int64_t run_tiles = ceil_div(row_tiles, runs);
        if (runs > 1 && ceil_div(row_tiles, run_tiles) < runs) continue;  // the same runs as fewer
        const int64_t cost = ceil_div(streams * runs, resident) * run_tiles;
        if (cost < best_cost) best = runs, best_cost = cost;
    }
    return best;
}

std::atomic<int64_t> resident_cache[kMaxCachedDevices];  // f16's, the one dtype compiled

template <typename T> int64_t resident(std::atomic<int64_t> (&cache)[kMaxCachedDevices]) {
    int64_t blocks = 0;
    if (resident_blocks(conv1d_backward_channel_last_tiled_kernel<T, 4, true>, kThreads, cache, &blocks) != hipSuccess ||
        blocks < 1)
        return kFallbackResident;
    return blocks;
}

struct Runs {
    int64_t runs;
    int64_t run_tiles;
};

template <typename T> Runs plan_runs(const hipconv_conv1d_backward_params &p) {
    const int64_t row_tiles = ceil_div(p.conv.seqlen, TileShape<T>::kTimes);
    const int64_t streams = p.conv.batch * ceil_div(p.conv.dim, kThreads);
    const int64_t runs = runs_per_row(streams, row_tiles, resident<T>(resident_cache));
    const int64_t run_tiles = ceil_div(row_tiles, runs);
    return {ceil_div(row_tiles, run_tiles), run_tiles};
}

template <typename T, int kWidth>
hipconv_status_t launch_width(const hipconv_conv1d_backward_params &p, float *partials, hipStream_t stream) {
    const Runs r = plan_runs<T>(p);
    const int64_t blocks = r.runs * p.conv.batch * ceil_div(p.conv.dim, kThreads);
    return with_silu(p.conv.silu != 0, [&](auto silu) {
        hipLaunchKernelGGL((conv1d_backward_channel_last_tiled_kernel<T, kWidth, decltype(silu)::value>),
                           dim3(grid_blocks(blocks)), dim3(kThreads), 0, stream, p, r.runs, r.run_tiles, partials);
        return last_launch_status();
    });
}

}  // namespace

template <typename T> bool backward_channel_last_tiled_fits(const hipconv_conv1d_backward_params &p) {
    constexpr int E = Vec16<T>::kCount;
    const hipconv_conv1d_params &c = p.conv;
    return kTiledDtype<T> && c.width <= kBackwardMaxFusedWidth && p.cu_seqlens == nullptr && c.x_dim_stride == 1 &&
           c.x_seq_stride >= c.dim && c.dim % E == 0 && c.x_seq_stride % E == 0 && c.x_batch_stride % E == 0 &&
           aligned16(c.x) && aligned16(p.dy) && aligned16(p.dx);
}

template <typename T> int64_t backward_channel_last_tiled_tiles(const hipconv_conv1d_backward_params &p) {
    if constexpr (kTiledDtype<T>) return p.conv.batch * plan_runs<T>(p).runs;
    return 0;
}

template <typename T>
hipconv_status_t launch_backward_channel_last_tiled(const hipconv_conv1d_backward_params &p, float *partials,
                                                    hipStream_t stream) {
    if constexpr (kTiledDtype<T>) {
        switch (p.conv.width) {
        case 1: return launch_width<T, 1>(p, partials, stream);
        case 2: return launch_width<T, 2>(p, partials, stream);
        case 3: return launch_width<T, 3>(p, partials, stream);
        case 4: return launch_width<T, 4>(p, partials, stream);
        }
    }
    return (hipconv_status_t)hipErrorInvalidValue;
}

#define HIPCONV_INSTANTIATE(T)                                                                        \
    template bool backward_channel_last_tiled_fits<T>(const hipconv_conv1d_backward_params &);        \
    template int64_t backward_channel_last_tiled_tiles<T>(const hipconv_conv1d_backward_params &);    \
    template hipconv_status_t launch_backward_channel_last_tiled<T>(const hipconv_conv1d_backward_params &, \
                                                                    float *, hipStream_t);
HIPCONV_INSTANTIATE(__half)
HIPCONV_INSTANTIATE(hipconv_bf16)
HIPCONV_INSTANTIATE(float)
#undef HIPCONV_INSTANTIATE

}  // namespace hipconv
