/*
 * The conv1d backward's entry points (hipconv/conv1d.h, "backward"): the plan of one call
 * (its path and workspace), and the two passes every path shares.
 *
 *   workspace  [partials: tiles·dim·(width+1) fp32, padded to 256 bytes][dz: generic only]
 *
 * conv1d_backward_reduce: dweight[c, k] = sum over tiles of partials[tile, c, k];
 *   dbias[c] the same at k = width. fp32, or rounded once to T. Not run where the path
 *   has no partials (0 tiles: it wrote the gradients itself). The order is fixed by the
 *   shape alone (deterministic): slice s sums tiles s, s+kSlices, ... in turn, then the
 *   kSlices sums are added in slice order.
 *
 *     block: kColumns entries (c, k) of a tile across × kSlices slices of the tiles down;
 *            sums meet in shared memory. 32 × 8 (one contiguous 128-byte read a tile), or
 *            16 × 32 where few columns meet many tiles (ReduceShape)
 *
 *   Launch: kColumns·kSlices threads, grid-stride over column blocks of dim·(width+1);
 *   a dependent follower of the path's kernel (launch_dependent, dependent_launch.h): on
 *   sm_90 its blocks are placed while that kernel's last blocks run (the fused kernels
 *   call allow_dependent_launch at their start) and wait for its end before reading the
 *   partials (1.0-1.3 us a call on an H200).
 *   (One thread a column walking every tile in turn took 6.3 us at 56 tiles of 20480
 *   entries, H100: 80 blocks, each thread 56 loads deep; this reads the same 4.6 MB with
 *   8 times the threads, each 7 loads deep.)
 *
 * conv1d_backward_states: dinitial_states[seq, c, j] for j < width-1 (time
 *   tau = j-(width-1) < 0 of the sequence) = sum_k w[c,k]·dz(j-k) over 0 <= j-k < length,
 *   with dz(t) recomputed for those first times, plus dfinal_states[seq, c, j-length]
 *   where j >= length. With cu_seqlens it also checks and reports the offsets (every
 *   packed call runs it). Launch: 256 threads, grid-stride over sequences·dim·(width-1).
 */
#include "backward.h"

namespace hipconv {

namespace {

constexpr int kThreads = 256;

enum class Path { kChannelFirst, kChannelLastTiled, kChannelLast, kGeneric };

struct Plan {
    Path path;
    int64_t tiles;
    int64_t partial_floats;  // padded to a multiple of 64 (256 bytes): dz stays aligned
    int64_t dz_floats;
    int64_t bytes() const { return 4 * (partial_floats + dz_floats); }
};

bool valid_sizes(const hipconv_conv1d_backward_params &p) {
    const hipconv_conv1d_params &c = p.conv;
    if (c.batch < 1 || c.dim < 1 || c.seqlen < 1 || c.width < 1 || c.final_states != nullptr) return false;
    return p.cu_seqlens == nullptr || (c.batch == 1 && p.n_seqs >= 1);
}

template <typename T> Plan plan(const hipconv_conv1d_backward_params &p) {
    Plan r{Path::kGeneric, 0, 0, 0};
    if (backward_channel_first_fits<T>(p)) {
        r.path = Path::kChannelFirst;
        r.tiles = backward_channel_first_tiles<T>(p);
    } else if (backward_channel_last_tiled_fits<T>(p)) {
        r.path = Path::kChannelLastTiled;
        r.tiles = backward_channel_last_tiled_tiles<T>(p);
    } else if (backward_channel_last_fits<T>(p)) {
        r.path = Path::kChannelLast;
        r.tiles = backward_channel_last_tiles<T>(p);
    } else {
        r.tiles = backward_generic_tiles(p);
        r.dz_floats = backward_generic_dz_floats(p);
    }
    r.partial_floats = ceil_div(r.tiles * p.conv.dim * (p.conv.width + 1), 64) * 64;
    return r;
}

// A reduction block: kColumns entries (c, k) of a tile across, kSlices slices of the tiles
// down. Most shapes take 32 x 8 (a 128-byte read a tile). Where the entries fill few blocks
// and the tiles are many (a short dim over a long seqlen: (1,256,8192,4) takes 40 blocks of
// 32 columns over 128 tiles), each thread's chain of loads would be long and the blocks few:
// 16 x 32 (kFewColumnBlocks, kManyTiles) makes twice the blocks, each thread a quarter of
// the loads.
template <int kColumns, int kSlices> struct ReduceShape {
    static constexpr int kCols = kColumns;
    static constexpr int kSlicesDown = kSlices;
    static constexpr int kThreadsPerBlock = kColumns * kSlices;
};
using WideReduce = ReduceShape<32, 8>;
using DeepReduce = ReduceShape<16, 32>;
constexpr int64_t kFewColumnBlocks = 64;  // blocks of 32 columns
constexpr int64_t kManyTiles = 64;

template <typename T, typename Shape>
__global__ void __launch_bounds__(Shape::kThreadsPerBlock) conv1d_backward_reduce_kernel(
    hipconv_conv1d_backward_params p, const float *partials, int64_t tiles) {
    constexpr int kColumns = Shape::kCols;
    constexpr int kSlices = Shape::kSlicesDown;
    wait_for_primary();  // the partials are written (a follower launched early: launch_dependent)
    __shared__ float slice_sums[kSlices][kColumns];
    const int width = p.conv.width;
    const int64_t per_tile = (int64_t)p.conv.dim * (width + 1);
    const int column = threadIdx.x % kColumns;
    const int slice = threadIdx.x / kColumns;
    for (int64_t first = blockIdx.x * (int64_t)kColumns; first < per_tile; first += (int64_t)gridDim.x * kColumns) {
        const int64_t i = first + column;
        float sum = 0.f;
        if (i < per_tile) {
#pragma unroll 4
            for (int64_t tile = slice; tile < tiles; tile += kSlices) sum += partials[tile * per_tile + i];
        }
        slice_sums[slice][column] = sum;
        __syncthreads();
        if (slice == 0 && i < per_tile) {
            float total = slice_sums[0][column];
#pragma unroll
            for (int s = 1; s < kSlices; ++s) total += slice_sums[s][column];
            store_parameter_gradient<T>(p, i / (width + 1), (int)(i % (width + 1)), total);
        }
        __syncthreads();  // the sums read before the next column block's are written
    }
}

// The reduction of `tiles` partials, a dependent follower of the path's kernel; its shape
// (ReduceShape) depends on the problem's sizes alone, so its order of sums is fixed.
template <typename T>
hipconv_status_t launch_reduce(const hipconv_conv1d_backward_params &p, const float *partials, int64_t tiles,
                               hipStream_t stream) {
    const int64_t per_tile = (int64_t)p.conv.dim * (p.conv.width + 1);
    auto launch = [&](auto shape) {
        using Shape = decltype(shape);
        return (hipconv_status_t)launch_dependent(conv1d_backward_reduce_kernel<T, Shape>,
                                                  dim3(grid_blocks(ceil_div(per_tile, (int64_t)Shape::kCols))),
                                                  dim3(Shape::kThreadsPerBlock), stream, p, partials, tiles);
    };
    if (ceil_div(per_tile, (int64_t)WideReduce::kCols) < kFewColumnBlocks && tiles >= kManyTiles)
        return launch(DeepReduce{});
    return launch(WideReduce{});
}

template <typename T>
__global__ void __launch_bounds__(kThreads) conv1d_backward_states_kernel(hipconv_conv1d_backward_params p) {
    const hipconv_conv1d_sequences_params q = backward_sequences(p);
    const hipconv_conv1d_params &cp = p.conv;
    const T *x = static_cast<const T *>(cp.x);
    const T *w = static_cast<const T *>(cp.w);
    const T *bias = static_cast<const T *>(cp.bias);
    const T *dy = static_cast<const T *>(p.dy);
    const T *initial = static_cast<const T *>(cp.initial_states);
    const T *dfinal = static_cast<const T *>(p.dfinal_states);
    T *dinitial = static_cast<T *>(p.dinitial_states);
    const int history = cp.width - 1;
    const int slots = history > 0 ? history : 1;  // width 1: one thread per row, to check offsets
    const int64_t total = sequence_count(q) * cp.dim * slots;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < total; i += (int64_t)gridDim.x * blockDim.x) {
        const int64_t row = i / slots;  // seq * dim + c
        const int j = (int)(i % slots);
        const int64_t seq = row / cp.dim;
        const int64_t c = row % cp.dim;
        const Sequence s = sequence(q, seq, c == 0 && j == 0);
        if (!s.ok || dinitial == nullptr || j >= history) continue;
        const T *x_c = x + s.x_start + c * cp.x_dim_stride;
        const T *dy_c = dy + s.x_start + c * cp.x_dim_stride;
        auto x_at = [&](int64_t tau) {
            if (tau >= 0) return to_float(x_c[tau * cp.x_seq_stride]);
            return initial != nullptr ? to_float(initial[row * history + history + tau]) : 0.f;
        };
        float acc = 0.f;
        for (int k = 0; k <= j; ++k) {
            const int64_t t = j - k;
            if (t >= s.length) continue;
            float z = bias != nullptr ? to_float(bias[c]) : 0.f;
            for (int m = 0; m < cp.width; ++m) z += to_float(w[c * cp.width + m]) * x_at(t + m - history);
            const float dz = to_float(dy_c[t * cp.x_seq_stride]) * activation_derivative(z, cp.silu != 0);
            acc += to_float(w[c * cp.width + k]) * dz;
        }
        if (dfinal != nullptr && j >= s.length) acc += to_float(dfinal[row * history + j - s.length]);
        dinitial[row * history + j] = from_float<T>(acc);
    }
}

template <typename T> hipconv_status_t launch_conv1d_backward(const hipconv_conv1d_backward_params &p, hipStream_t stream) {
    const hipconv_conv1d_params &c = p.conv;
    if (!valid_sizes(p) || c.x == nullptr || c.w == nullptr || p.dy == nullptr || p.dx == nullptr ||
        p.dweight == nullptr || (p.cu_seqlens != nullptr && p.status == nullptr))
        return (hipconv_status_t)hipErrorInvalidValue;
    const Plan r = plan<T>(p);
    if (r.bytes() > p.workspace_bytes || (r.bytes() > 0 && p.workspace == nullptr))
        return (hipconv_status_t)hipErrorInvalidValue;
    float *partials = static_cast<float *>(p.workspace);
    switch (r.path) {
    case Path::kChannelFirst: HIPCONV_RETURN_IF_ERROR((hipError_t)launch_backward_channel_first<T>(p, partials, stream)); break;
    case Path::kChannelLastTiled:
        HIPCONV_RETURN_IF_ERROR((hipError_t)launch_backward_channel_last_tiled<T>(p, partials, stream));
        break;
    case Path::kChannelLast: HIPCONV_RETURN_IF_ERROR((hipError_t)launch_backward_channel_last<T>(p, partials, stream)); break;
    case Path::kGeneric:
        HIPCONV_RETURN_IF_ERROR((hipError_t)launch_backward_generic<T>(p, partials, partials + r.partial_floats, stream));
        break;
    }
    if (r.tiles > 0) {  // else the path wrote dweight and dbias itself
        HIPCONV_RETURN_IF_ERROR((hipError_t)launch_reduce<T>(p, partials, r.tiles, stream));
    }
    if ((p.dinitial_states != nullptr && c.width > 1) || p.cu_seqlens != nullptr) {
        const int64_t rows = (p.cu_seqlens != nullptr ? p.n_seqs : c.batch) * (int64_t)c.dim;
        const int64_t total = rows * (c.width > 1 ? c.width - 1 : 1);
        hipLaunchKernelGGL(conv1d_backward_states_kernel<T>, dim3(grid_blocks(ceil_div(total, kThreads))),
                           dim3(kThreads), 0, stream, p);
    }
    return last_launch_status();
}

template <typename T> hipconv_status_t backward_workspace(const hipconv_conv1d_backward_params *p, int64_t *bytes) {
    if (p == nullptr || bytes == nullptr || !valid_sizes(*p)) return (hipconv_status_t)hipErrorInvalidValue;
    *bytes = plan<T>(*p).bytes();
    return (hipconv_status_t)hipSuccess;
}

}  // namespace

}  // namespace hipconv

HIPCONV_EXPORT_PER_DTYPE(conv1d_backward, hipconv_conv1d_backward_params)

#define HIPCONV_EXPORT_BACKWARD_WORKSPACE_(dtype, unused)                                                   \
    extern "C" hipconv_status_t hipconv_conv1d_backward_workspace_##dtype(                                  \
        const hipconv_conv1d_backward_params *params, int64_t *bytes) {                                     \
        return hipconv::backward_workspace<HIPCONV_ELEMENT_##dtype>(params, bytes);                         \
    }
HIPCONV_FOR_EACH_DTYPE(HIPCONV_EXPORT_BACKWARD_WORKSPACE_, unused)
