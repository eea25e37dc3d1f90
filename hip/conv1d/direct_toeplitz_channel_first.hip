/*
 * Direct, channel-first, contiguous f16/bf16 tensors, wide filters, on the matrix cores:
 * the streaming causal conv1d over the flat [batch·dim·seqlen] array for widths
 * kNarrowMaxWidth+1 .. kMaxStreamWidth (compiled as W = 8, 16, 32, 64), each tile of
 * outputs computed as the Toeplitz product of toeplitz.h instead of W FMAs per output.
 *
 *   in   x [batch, dim, seqlen] contiguous (seqlen fastest), 16-byte aligned, seqlen >= kTile,
 *        fewer than 2^32 - S elements (larger tensors run direct_wide_channel_first.hip)
 *        w [dim, width], bias [dim] or NULL
 *   out  y [batch, dim, seqlen] contiguous, 16-byte aligned
 *        y[b,c,t] = act(bias[c] + sum_tap w[c,tap] * x[b,c,t+tap-(width-1)]),  x[..,<0] = 0
 *
 * Each block walks segments of S = 256 threads × 4 vectors × 8 elements of the flat array
 * (a grid-stride loop over one resident wave of blocks). A segment and the kReach elements
 * before it are staged in shared memory (flat_vectors.h FlatSegment); while the block
 * computes it, the loads of its next segment are in flight into registers.
 *
 *   stage:  | kReach before the segment | segment: 8 waves x 8 tiles of kTile (NVIDIA) |
 *   wave w computes tiles 8w .. 8w+7: tile i's window starts kReach before its outputs
 *
 * Per tile (flat f0 .. f0 + kTile, f0 a multiple of kTile), one product when its window
 * lies inside one row (time >= kReach at f0, and the row goes on past f0 + kTile); else
 * (a row's first tile, a tile across a row end, the tensor's last tile) one product per
 * row it meets, with the window elements outside that row zeroed and only that row's
 * outputs stored. Stores: NVIDIA two 4-byte words per lane (128 contiguous bytes per warp
 * store), AMD one 8-byte word (512 per wave store).
 *
 * Launch: kThreads threads, min(segments, resident blocks) blocks. f32 runs
 * direct_wide_channel_first.hip (TF32 would not keep fp32 accuracy, and its FMAs keep up
 * to width 32).
 */
#include <atomic>

#include "activation.h"
#include "compat.h"
#include "direct_paths.h"
#include "element.h"
#include "flat_vectors.h"
#include "hipconv/conv1d.h"
#include "launch.h"
#include "toeplitz.h"
#include "vector_rows.h"

namespace hipconv {

namespace {

using namespace toeplitz;

constexpr int kVectorsPerThread = 4;

// A tile that is not inside one row: one product per row it meets, each over that row's
// window elements only, storing that row's outputs. Offsets are from the tile's first
// output (y_tile = y + f0): its row starts at -t, and `remaining` (<= kTile) outputs are
// left in the tensor.
template <typename T, int kWidth, bool kSilu>
__device__ __forceinline__ void tile_by_rows(const hipconv_conv1d_params &p, WaveTaps<T, kWidth> &taps,
                                             const T *window, T *y_tile, int t, int c, int remaining) {
    constexpr int kReach = Toeplitz<kWidth>::kReach;
    for (int row_start = -t; row_start < remaining; row_start += p.seqlen) {
        const int row_end = row_start < remaining - p.seqlen ? row_start + p.seqlen : remaining;
        taps.use(p, c);
        TileAcc acc;
        zero(acc);
        // The row's window elements: offsets [lo, hi) of the window (window[kReach] = y_tile's x).
        accumulate<T, Toeplitz<kWidth>::kSteps, true>(acc, window, taps, max(row_start + kReach, 0),
                                                      row_end + kReach);
        const float bias = taps.bias;
        for_each_output(acc, [&](int o, float v) {
            if (o >= row_start && o < row_end) y_tile[o] = from_float<T>(activate<kSilu>(v + bias));
        });
        c = c + 1 == p.dim ? 0 : c + 1;
    }
}

// The kTilesPerWave tiles of this wave in a staged segment starting at flat `first`, in
// 32-bit arithmetic (total < 2^32, checked at launch; a 64-bit division is a call whose
// live registers nvcc spills).
template <typename T, int kWidth, bool kSilu, int kTilesPerWave>
__device__ inline void compute_segment(const hipconv_conv1d_params &p, WaveTaps<T, kWidth> &taps, const T *staged,
                                       uint32_t first, uint32_t total) {
    constexpr int kReach = Toeplitz<kWidth>::kReach;
    // Row time and channel of the wave's first tile; each next tile is kTile <= seqlen
    // later, so at most one row on.
    const uint32_t seqlen = (uint32_t)p.seqlen, dim = (uint32_t)p.dim;
    const int s_first = (int)threadIdx.x / HIPCONV_WAVE_SIZE * kTilesPerWave * kTile;
    const uint32_t row = (first + (uint32_t)s_first) / seqlen;
    uint32_t t = first + (uint32_t)s_first - row * seqlen;
    uint32_t c = row % dim;
    T *y = static_cast<T *>(p.y);
#pragma unroll 1
    for (int i = 0; i < kTilesPerWave; ++i) {
        const int s0 = s_first + i * kTile;
        const uint32_t f0 = first + (uint32_t)s0;
        if (f0 >= total) break;
        const T *window = staged + s0;  // x[f0 - kReach]
        if (t >= (uint32_t)kReach && t + kTile <= seqlen) {
            taps.use(p, (int)c);
            TileAcc acc;
            zero(acc);
            accumulate<T, Toeplitz<kWidth>::kSteps, false>(acc, window, taps, 0, 0);
            store_tile<T, kSilu>(y + f0, acc, taps.bias);
        } else {
            const int remaining = total - f0 < (uint32_t)kTile ? (int)(total - f0) : kTile;
            tile_by_rows<T, kWidth, kSilu>(p, taps, window, y + f0, (int)t, (int)c, remaining);
        }
        t += kTile;
        if (t >= seqlen) {
            t -= seqlen;
            c = c + 1 == dim ? 0 : c + 1;
        }
    }
}

// A grid-stride loop over segments: while a block computes one staged segment, the loads
// of its next one are in flight into registers. (Measured on an H100 against two stages
// filled by cp.async, which hold no registers: 82.3 against 77.4% of copy at width 16,
// 78.1 against 74.4% at 32, 81.6 against 84.0% at 8; docs/PERFORMANCE.md.)
// On NVIDIA at most 85 registers (3 blocks per SM): left to itself, ptxas chose 64 at
// width 16 and spilled; at 70-78 every width measured as fast or faster (docs/PERFORMANCE.md).
template <typename T, int kWidth, bool kSilu>
__global__ void HIPCONV_BOUNDS_NVIDIA(kThreads, 3) conv1d_direct_toeplitz_channel_first_kernel(hipconv_conv1d_params p,
                                                                                        int64_t total,
                                                                                        int64_t segments) {
    constexpr int E = Vec16<T>::kCount;
    constexpr int V = kVectorsPerThread;
    constexpr int kReach = Toeplitz<kWidth>::kReach;
    constexpr int H = kReach / E;  // vectors staged before the segment
    constexpr int kSegment = kThreads * V * E;
    constexpr int kTilesPerWave = kSegment / kTile / kWaves;
    static_assert(kReach % E == 0 && kSegment % (kTile * kWaves) == 0, "tiles must divide the segment");
    __shared__ uint4 stage[H + kThreads * V];
    __shared__ StepTaps<T> tap_slots[kWaves][Toeplitz<kWidth>::kSteps * HIPCONV_WAVE_SIZE];
    const T *staged = reinterpret_cast<const T *>(stage);  // staged[kReach + s] = x[first + s]

    const T *x = static_cast<const T *>(p.x);
    WaveTaps<T, kWidth> taps(tap_slots[threadIdx.x / HIPCONV_WAVE_SIZE]);
    FlatSegment<T, kThreads, V, H> next;
    int64_t segment = blockIdx.x;
    next.load(x, segment * kSegment, total);
    for (;;) {
        next.stage(stage);
        __syncthreads();
        const int64_t following = segment + gridDim.x;
        if (following < segments) next.load(x, following * kSegment, total);
        compute_segment<T, kWidth, kSilu, kTilesPerWave>(p, taps, staged, (uint32_t)(segment * kSegment),
                                                         (uint32_t)total);
        if (following >= segments) break;
        __syncthreads();  // the stage is refilled
        segment = following;
    }
}

template <typename T, int kWidth, bool kSilu>
hipconv_status_t launch_kernel(const hipconv_conv1d_params &p, hipStream_t stream) {
    auto kernel = conv1d_direct_toeplitz_channel_first_kernel<T, kWidth, kSilu>;
    const int64_t total = (int64_t)p.batch * p.dim * p.seqlen;
    const int64_t segments = ceil_div(total, (int64_t)kThreads * kVectorsPerThread * Vec16<T>::kCount);
    static std::atomic<int64_t> resident_cache[kMaxCachedDevices];
    int64_t resident = 0;
    HIPCONV_RETURN_IF_ERROR(resident_blocks(kernel, kThreads, resident_cache, &resident));
    const int64_t blocks = segments < resident ? segments : resident;
    hipLaunchKernelGGL(kernel, dim3((unsigned)blocks), dim3(kThreads), 0, stream, p, total, segments);
    return last_launch_status();
}

template <typename T, int kWidth> hipconv_status_t launch_width(const hipconv_conv1d_params &p, hipStream_t stream) {
    return with_silu(p.silu != 0, [&](auto silu) { return launch_kernel<T, kWidth, decltype(silu)::value>(p, stream); });
}

}  // namespace

template <typename T> bool direct_toeplitz_channel_first_fits(const hipconv_conv1d_params &p) {
    const int64_t total = (int64_t)p.batch * p.dim * p.seqlen;
    return sizeof(T) == 2 && p.width > kNarrowMaxWidth && p.width <= kMaxStreamWidth && p.seqlen >= kTile &&
           total <= (int64_t)UINT32_MAX - kThreads * kVectorsPerThread * 8 &&
           contiguous_channel_first(p.x, p.x_batch_stride, p.x_dim_stride, p.x_seq_stride, p) &&
           contiguous_channel_first(p.y, p.y_batch_stride, p.y_dim_stride, p.y_seq_stride, p);
}

template <typename T>
hipconv_status_t launch_direct_toeplitz_channel_first(const hipconv_conv1d_params &p, hipStream_t stream) {
    if constexpr (sizeof(T) == 2) {
        if (p.width <= 8) return launch_width<T, 8>(p, stream);
        if (p.width <= 16) return launch_width<T, 16>(p, stream);
        if (p.width <= 32) return launch_width<T, 32>(p, stream);
        if (p.width <= 64) return launch_width<T, 64>(p, stream);
    }
    return (hipconv_status_t)hipErrorInvalidValue;
}

#define HIPCONV_INSTANTIATE(T)                                                            \
    template bool direct_toeplitz_channel_first_fits<T>(const hipconv_conv1d_params &);   \
    template hipconv_status_t launch_direct_toeplitz_channel_first<T>(const hipconv_conv1d_params &, hipStream_t);
HIPCONV_INSTANTIATE(__half)
HIPCONV_INSTANTIATE(hipconv_bf16)
HIPCONV_INSTANTIATE(float)
#undef HIPCONV_INSTANTIATE

}  // namespace hipconv
