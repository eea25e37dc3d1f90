/*
 * The backward's tiled channel-last path (hipconv/conv1d.h, "backward"), widths 1..4:
 * x, dy, dx [batch, seqlen, dim] by strides with channels contiguous in 16-byte vectors
 * (dim, the strides and the pointers a whole number of them), no packed batch.
 *
 * f16 and bf16 only: f32 runs faster on backward_channel_last.hip (docs/PERFORMANCE.md,
 * "Backward"), so its kernels are not compiled.
 *
 * A tile is kTimes rows of kThreads channels of one batch row, staged in shared memory
 * with 16-byte copies (cp.async on sm_80+) into one of kBuffers buffers, so the copies of
 * the kBuffers-1 tiles after the one being walked are in flight (one barrier a tile); thread
 * i walks channel c0 + i down the tile's times in registers and stores its dx straight to
 * global memory (a wave's 32 channels: 64 contiguous bytes a row in 16-bit):
 *
 *   x rows   t0-H .. t0+kTimes-1   (+ H more after, for a recomputed head)
 *   dy rows  t0 .. t0+kTimes-1     (+ H more after)
 *                 channel c0 .. c0+kThreads-1 across, 16-byte vectors; thread i copies
 *                 vector i % (kThreads/E) of rows i / (kThreads/E), + E, ...
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
 *
 * Measured on an H100 (docs/PERFORMANCE.md, thirtieth session), (8,4096,2048,4) f16 with
 * bias + SiLU: 16 times × 3 buffers at 7 blocks an SM 166 us; 32 × 2 at 6 (the earlier
 * shape) 178; 16 × 2 at 8: 176; 24 × 2 at 7: 172; 32 × 3 at 4: 173; 16 × 4 at 5: 165
 * (but 204 against 197 at (4,5120,4096,4)); 12 × 3 at 8: 169; 8 × 4 at 8: 182 (dx then
 * went back through the dy rows and out in 16-byte stores, three barriers a tile). dx
 * stored straight from the walk, one barrier a tile: 160 against 162-166 us, (4,5120,4096,4)
 * 194 against 197; one barrier fewer with dx still staged: level.
 */
#include "backward.h"
#include "block_copy.h"
#include "packed.h"
#include "vector_rows.h"

namespace hipconv {

namespace {

constexpr int kThreads = 128;  // channels per tile, one per thread

template <typename T> constexpr bool kTiledDtype = sizeof(T) == 2;  // the dtypes compiled: f16 and bf16

template <typename T> struct TileShape {
    static constexpr int kE = Vec16<T>::kCount;  // channels per 16-byte vector
#if defined(HIPCONV_PLATFORM_AMD)
    // No asynchronous copies: the next tile's copies end before the walk, so more buffers
    // would not put more bytes in flight.
    static constexpr int kBuffers = 2;
    static constexpr int kTimes = 16;  // about 21 KB of rows: 3 blocks in 64 KB of LDS
#else
    static constexpr int kBuffers = 3;
    static constexpr int kTimes = 16;  // about 32 KB of rows: 7 blocks per SM
#endif
    static constexpr int kVectorsPerRow = kThreads / kE;
};

// Blocks per SM the NVIDIA build is compiled for (at most 72 registers), and the resident
// blocks assumed where the runtime cannot say (an H100 at that many per SM).
constexpr int kBlocksPerSm = 7;
constexpr int64_t kFallbackResident = 132 * kBlocksPerSm;

template <typename T, int kWidth, bool kSilu>
__global__ void HIPCONV_BOUNDS_NVIDIA(kThreads, kBlocksPerSm)
    conv1d_backward_channel_last_tiled_kernel(hipconv_conv1d_backward_params p, int64_t runs, int64_t run_tiles,
                                              float *partials) {
    using Shape = TileShape<T>;
    constexpr int E = Shape::kE;
    constexpr int kTimes = Shape::kTimes;
    constexpr int kVPR = Shape::kVectorsPerRow;
    constexpr int H = kWidth - 1;
    constexpr int kHeads = H > 0 ? H : 1;
    constexpr int kBuffers = Shape::kBuffers;
    constexpr int kRowsPerPass = kThreads / kVPR;  // rows one pass of the block's copies covers
    __shared__ __align__(16) T x_stage[kBuffers][kTimes + 2 * H][kThreads];  // x(t0 - H + r)
    __shared__ __align__(16) T g_stage[kBuffers][kTimes + H][kThreads];      // dy(t0 + r)

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

        // Thread tid copies vector `lane_vector` of rows tid / kVPR, + kRowsPerPass, ...: its
        // channels and its rows' steps are fixed, so a copy is a few instructions (the
        // general copy16, a division and its bounds per 16 bytes, took ~50 a copy: about as
        // many issue slots as the walk itself). Rows outside [0, seqlen) and vectors past dim
        // are zero-filled.
        const int lane_vector = tid % kVPR;
        const int first_row = tid / kVPR;
        const int64_t lane_channel = c0 + (int64_t)lane_vector * E;
        const bool lane_inside = lane_channel < dim;
        const int64_t lane_offset = row_offset + lane_channel;
        auto stage_rows = [&](const T *base, int64_t t_first, int rows, T (*dst)[kThreads], auto max_rows) {
            constexpr int kPasses = (decltype(max_rows)::value + kRowsPerPass - 1) / kRowsPerPass;
            int t = (int)t_first + first_row;  // t_first >= -H and < seqlen: an int
            int64_t at = lane_offset + (int64_t)t * cp.x_seq_stride;
            const int64_t pass_stride = kRowsPerPass * cp.x_seq_stride;
#pragma unroll
            for (int pass = 0; pass < kPasses; ++pass) {
                const int r = first_row + pass * kRowsPerPass;
                if (r < rows) {
                    const bool inside = lane_inside && (unsigned)t < (unsigned)seqlen;
                    copy16_if(inside, inside ? base + at : base, &dst[r][lane_vector * E]);
                }
                t += kRowsPerPass;
                at += pass_stride;
            }
        };
        auto recomputes = [&](int64_t tile) { return tile == end_tile - 1 && tile != row_tiles - 1; };
        auto stage = [&](int64_t tile, int buf) {
            const int64_t t0 = tile * kTimes;
            const int extra = recomputes(tile) ? H : 0;  // a run that starts inside a row
            stage_rows(x_base, t0 - H, kTimes + H + extra, x_stage[buf], std::integral_constant<int, kTimes + 2 * H>{});
            stage_rows(dy_base, t0, kTimes + extra, g_stage[buf], std::integral_constant<int, kTimes + H>{});
            copy_commit();
        };
        // The copies of the kBuffers-1 tiles after the one being walked are in flight: one
        // group of copies is committed per tile (empty past the run's first tile).
#pragma unroll
        for (int j = 0; j + 1 < kBuffers; ++j) {
            if (end_tile - 1 - j >= first_tile)
                stage(end_tile - 1 - j, j);
            else
                copy_commit();
        }
        int buf = 0;
        for (int64_t tile = end_tile - 1; tile >= first_tile; --tile) {
            const int64_t t0 = tile * kTimes;
            const bool row_end = tile == row_tiles - 1;
            const bool recompute = recomputes(tile);
            // This tile's copies have landed (the next kBuffers-2 tiles' may still be in flight)
            // and every thread is done with the tile before, whose buffer then takes the copies
            // of the tile kBuffers-1 ahead.
            copy_wait<kBuffers - 2>();
            __syncthreads();
            if (tile - (kBuffers - 1) >= first_tile)
                stage(tile - (kBuffers - 1), (buf + kBuffers - 1) % kBuffers);
            else
                copy_commit();
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
            // A row's last tiles (holding its last H times, whose dx takes dfinal_states too, or
            // running past seqlen) take the walk that tests each time; the others store every
            // dx untested (the tests and the load cost ~10 instructions a time).
            T *dx_thread = dx_base + row_offset + t0 * cp.x_seq_stride + c;  // dx(t0), this channel
            const T *dfinal = p.dfinal_states != nullptr && H > 0 && active && t0 + kTimes > seqlen - H
                                  ? static_cast<const T *>(p.dfinal_states) + (b * dim + c) * H
                                  : nullptr;
            auto walk = [&](auto with_final) {
                auto finish_dx = [&](int r, float acc) {
                    if constexpr (decltype(with_final)::value) {
                        const int64_t k = t0 + r - (seqlen - H);
                        if (dfinal != nullptr && k >= 0 && t0 + r < seqlen) acc += to_float(dfinal[k]);
                        if (active && t0 + r < seqlen) dx_thread[r * cp.x_seq_stride] = from_float<T>(acc);
                    } else {
                        if (active) dx_thread[r * cp.x_seq_stride] = from_float<T>(acc);
                    }
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
            };
            if (dfinal != nullptr || t0 + kTimes > seqlen)
                walk(std::true_type{});
            else
                walk(std::false_type{});
            buf = (buf + 1) % kBuffers;
        }
        // Every thread done with the run's last tile before the next run's copies reuse its
        // buffers (a grid capped at kMaxGridBlocks walks several runs a block).
        __syncthreads();
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

// Resident blocks of T's width-4 SiLU kernel on the current device (cached per dtype).
template <typename T> int64_t resident() {
    static std::atomic<int64_t> cache[kMaxCachedDevices];
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
    const int64_t runs = runs_per_row(streams, row_tiles, resident<T>());
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
