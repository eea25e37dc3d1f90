/*
 * Direct, channel-last, widths kNarrowMaxWidth+1 .. kWindowMaxWidth: the streaming causal
 * conv1d with each thread sliding a window of W inputs along time in registers. Compiled
 * as W = 8 and 16 taps (zero taps in front for narrower filters).
 *
 *   in   x [batch, seqlen, dim] by strides (x_dim_stride < x_seq_stride)
 *        w [dim, width], bias [dim] or NULL
 *   out  y [batch, seqlen, dim] by strides
 *        y[b,c,t] = act(bias[c] + sum_tap w[c,tap] * x[b,c,t+tap-(width-1)]),  x[..,<0] = 0
 *
 * A thread owns kVec neighbouring channels of one batch row and a chunk of G·S consecutive
 * times (G groups of S = 16 rows, a multiple of W). A warp's 32 lanes take neighbouring
 * channels, so every row access of a warp is one contiguous span (128 bytes for 16-bit
 * pairs, 256 for fp32 pairs); the blocks of one row range are adjacent in the grid (span
 * fastest), so the blocks running together read whole rows (DRAM pages, not 128-byte
 * columns). A block's 4 warps take consecutive chunks of the same channels: a chunk's W-1
 * history rows are the previous warp's last rows (L1/L2 hits).
 *
 *   time ->      t0-W+1 .. t0-1 | t0 .. t0+S-1 | t0+S .. t0+2S-1 | ...     (one lane)
 *                history (once)   group 0        group 1 (loaded while group 0 computes)
 *   registers    taps[kVec][W] (fp32); ring[kVec][W]: the input of time t in slot t mod W
 *                (t0 is a multiple of W, so every slot index is a compile-time constant in
 *                the unrolled group); two buffers of S rows as loaded, swapping roles
 *                every group (the loop body is two groups)
 *
 * Per row: one load (issued a group earlier), kVec·W fp32 multiply-adds from registers,
 * one store. Bytes in flight come from the S loads each thread issues at the start of a
 * group for the next one; no shared memory, no barrier. Groups wholly inside the sequence
 * run without predicates.
 *
 * kVec = 2 (4-byte accesses for 16-bit types, 8-byte for fp32) where channels are
 * contiguous, dim is even and rows are aligned to a pair; else kVec = 1 (one element per
 * access, any strides). Measured on an H100 at (4,2048,4096,W) (docs/PERFORMANCE.md, "Wide
 * kernels"): 8-byte accesses for 16-bit types (kVec = 4) held ~200 registers at W = 16 and
 * ran slower; W = 32 ran slower here than in the shared-memory kernel
 * (direct_wide_channel_last.hip), which keeps the widths past 16.
 *
 * Launch: kThreads threads; blocks (channel span, chunk block, batch), span fastest. G is
 * chosen on the host: the most (up to kMaxChunk / S) that still leave kSpreadWarps warps.
 */
#include "activation.h"
#include "compat.h"
#include "direct_paths.h"
#include "element.h"
#include "hipconv/conv1d.h"
#include "launch.h"
#include "packed.h"

namespace hipconv {

namespace {

constexpr int kThreads = 128;
constexpr int kLanes = 32;                    // channel groups of a span
constexpr int kWarps = kThreads / kLanes;     // chunks per block
constexpr int kMaxChunk = 128;                // rows per thread, at most
constexpr int64_t kSpreadWarps = 2048;        // fewer groups per chunk until this many warps

template <int kWidth> struct WindowShape {
    static constexpr int S = 16;  // rows per group, a multiple of kWidth
    static constexpr int kMaxGroups = kMaxChunk / S;
    static_assert(S % kWidth == 0 && kMaxChunk % S == 0, "groups tile the ring and the chunk");
};

// Blocks per SM that nvcc must fit (it caps the registers at 65536 / (blocks · kThreads)):
// 4 (128 registers), 3 (170) for the 2 × fp32 W = 16 kernel, whose taps, ring and two row
// buffers hold ~150 (at 4 blocks it spilled and ran 9% slower on an H100). The bf16 pair
// kernels spill 4-36 bytes at 128; their spill-free form ran slower (check-machine-code.sh
// lists them as a measured exception).
template <typename T, int kWidth, int kVec> constexpr int window_min_blocks() {
    return sizeof(T) == 4 && kVec == 2 && kWidth == 16 ? 3 : 4;
}

// Two neighbouring channels of one row in their storage type: one 4-byte (16-bit T) or
// 8-byte (fp32) access ...
template <typename T, int kVec> struct Lanes {
    static_assert(kVec == 2, "two channels or one");
    using Word = typename std::conditional<sizeof(T) == 2, uint32_t, uint2>::type;
    Word raw;
    __device__ void load(const T *at, bool inside) { raw = inside ? *reinterpret_cast<const Word *>(at) : Word{}; }
    __device__ float get(int e) const {
        if constexpr (sizeof(T) == 2) {
            return bits_to_float(T(), raw, e);
        } else {
            return __uint_as_float(e == 0 ? raw.x : raw.y);
        }
    }
    __device__ static void store(T *at, const float (&v)[2]) {
        if constexpr (sizeof(T) == 2) {
            *reinterpret_cast<uint32_t *>(at) = float_to_bits(T(), v[0]) | float_to_bits(T(), v[1]) << 16;
        } else {
            *reinterpret_cast<float2 *>(at) = make_float2(v[0], v[1]);
        }
    }
};

// ... or one element.
template <typename T> struct Lanes<T, 1> {
    T value;
    __device__ void load(const T *at, bool inside) { value = inside ? *at : from_float<T>(0.f); }
    __device__ float get(int) const { return to_float(value); }
    __device__ static void store(T *at, const float (&v)[1]) { *at = from_float<T>(v[0]); }
};

// One group of S rows from cur[]: first the loads of the next group's rows into next[]
// (they fly while this group computes), then each row moves into the ring and its output
// is computed and stored. kChecked: rows past the sequence (inside, next_inside < S) are
// neither loaded nor stored; else every row is inside and kLoadNext says whether a next
// group follows. The common case runs without predicates (checked rows compile to a branch
// around each load and store).
template <typename T, int kWidth, int kVec, bool kSilu, bool kChecked, bool kLoadNext>
__device__ __forceinline__ void run_group(const Lanes<T, kVec> (&cur)[WindowShape<kWidth>::S],
                                          Lanes<T, kVec> (&next)[WindowShape<kWidth>::S], float (&ring)[kVec][kWidth],
                                          const float (&taps)[kVec][kWidth], const float (&bias_e)[kVec],
                                          const T *x_next, T *y_row, int64_t x_stride, int64_t y_stride, int inside,
                                          int next_inside) {
    constexpr int S = WindowShape<kWidth>::S;
    // Independent multiply-add chains per row: one per channel for pairs, two for one
    // channel (a single chain per row left the FMA pipe idle at low occupancy).
    constexpr int kChains = kVec == 1 ? 2 : 1;
    if (kChecked || kLoadNext) {
#pragma unroll
        for (int s = 0; s < S; ++s) next[s].load(x_next + s * x_stride, !kChecked || s < next_inside);
    }
#pragma unroll
    for (int s = 0; s < S; ++s) {
        // The group starts at a multiple of kWidth: its row s sits in slot s % kWidth, and
        // that row's window (kWidth rows up to it) in slots (s + 1 + k) % kWidth.
#pragma unroll
        for (int e = 0; e < kVec; ++e) ring[e][s % kWidth] = cur[s].get(e);
        float out[kVec];
#pragma unroll
        for (int e = 0; e < kVec; ++e) {
            float acc[kChains];
#pragma unroll
            for (int q = 0; q < kChains; ++q) acc[q] = q == 0 ? bias_e[e] : 0.f;
#pragma unroll
            for (int k = 0; k < kWidth; ++k)
                acc[k % kChains] = fmaf(taps[e][k], ring[e][(s + 1 + k) % kWidth], acc[k % kChains]);
#pragma unroll
            for (int q = 1; q < kChains; ++q) acc[0] += acc[q];
            out[e] = activate<kSilu>(acc[0]);
        }
        if (!kChecked || s < inside) Lanes<T, kVec>::store(y_row + s * y_stride, out);
    }
}

// Groups g of the chunk from cur[] (the next one loaded into next[]): false past the end.
template <typename T, int kWidth, int kVec, bool kSilu>
__device__ __forceinline__ bool group_at(int g, int groups, int64_t t0, const hipconv_conv1d_params &p, const T *x,
                                         T *y, const Lanes<T, kVec> (&cur)[WindowShape<kWidth>::S],
                                         Lanes<T, kVec> (&next)[WindowShape<kWidth>::S], float (&ring)[kVec][kWidth],
                                         const float (&taps)[kVec][kWidth], const float (&bias_e)[kVec]) {
    constexpr int S = WindowShape<kWidth>::S;
    const int64_t tg = t0 + (int64_t)g * S;
    if (g >= groups || tg >= p.seqlen) return false;  // the same for the whole warp
    const T *x_next = x + (tg + S) * p.x_seq_stride;
    T *y_row = y + tg * p.y_seq_stride;
    const bool load_next = g + 1 < groups;
    // Rows of this group and of the next one inside the sequence (0 .. S each).
    const int64_t inside = min(p.seqlen - tg, (int64_t)S);
    const int64_t next_inside = load_next ? max(min(p.seqlen - tg - S, (int64_t)S), (int64_t)0) : 0;
    if (inside == S && next_inside == S) {
        run_group<T, kWidth, kVec, kSilu, false, true>(cur, next, ring, taps, bias_e, x_next, y_row, p.x_seq_stride,
                                                      p.y_seq_stride, S, S);
    } else if (inside == S && !load_next) {
        run_group<T, kWidth, kVec, kSilu, false, false>(cur, next, ring, taps, bias_e, x_next, y_row, p.x_seq_stride,
                                                       p.y_seq_stride, S, 0);
    } else {
        run_group<T, kWidth, kVec, kSilu, true, false>(cur, next, ring, taps, bias_e, x_next, y_row, p.x_seq_stride,
                                                      p.y_seq_stride, (int)inside, (int)next_inside);
    }
    return true;
}

template <typename T, int kWidth, int kVec, bool kSilu>
__global__ void HIPCONV_BOUNDS_NVIDIA(kThreads, (window_min_blocks<T, kWidth, kVec>()))
    conv1d_direct_window_channel_last_kernel(hipconv_conv1d_params p, int groups, int channel_spans, int chunk_blocks) {
    constexpr int S = WindowShape<kWidth>::S;
    using Row = Lanes<T, kVec>;
    const int lane = (int)threadIdx.x % kLanes;
    const int warp = (int)threadIdx.x / kLanes;
    int64_t block = blockIdx.x;
    const int span = (int)(block % channel_spans);
    block /= channel_spans;
    const int chunk_block = (int)(block % chunk_blocks);
    const int64_t b = block / chunk_blocks;
    const int c = (span * kLanes + lane) * kVec;
    const int64_t chunk_rows = (int64_t)groups * S;
    const int64_t t0 = ((int64_t)chunk_block * kWarps + warp) * chunk_rows;
    if (c >= p.dim || t0 >= p.seqlen) return;  // no barrier follows

    const T *x = static_cast<const T *>(p.x) + b * p.x_batch_stride + (int64_t)c * p.x_dim_stride;
    T *y = static_cast<T *>(p.y) + b * p.y_batch_stride + (int64_t)c * p.y_dim_stride;
    const T *w = static_cast<const T *>(p.w);
    const T *bias = static_cast<const T *>(p.bias);

    // Group 0's rows first: they are in flight while the taps and history arrive.
    Row rows[S];  // the rows of group 0 (then of every even group; the odd ones in other[])
    const int64_t first_inside = p.seqlen - t0;
#pragma unroll
    for (int s = 0; s < S; ++s) rows[s].load(x + (t0 + s) * p.x_seq_stride, s < first_inside);
    Row history[kWidth - 1];
#pragma unroll
    for (int i = 0; i < kWidth - 1; ++i) {
        const int64_t t = t0 - (kWidth - 1) + i;
        history[i].load(x + t * p.x_seq_stride, t >= 0);  // and t < t0 < seqlen
    }

    const int pad = kWidth - p.width;  // zero taps in front
    float taps[kVec][kWidth];
    float bias_e[kVec];
#pragma unroll
    for (int e = 0; e < kVec; ++e) {
        // kVec = 2 only where dim is even, so both channels of a pair are inside.
        const T *w_c = w + (int64_t)(c + e) * p.width;
#pragma unroll
        for (int k = 0; k < kWidth; ++k) taps[e][k] = k >= pad ? to_float(w_c[k - pad]) : 0.f;
        bias_e[e] = bias != nullptr ? to_float(bias[c + e]) : 0.f;
    }
    float ring[kVec][kWidth];  // the input of time t in slot t % kWidth
#pragma unroll
    for (int i = 0; i < kWidth - 1; ++i) {
#pragma unroll
        for (int e = 0; e < kVec; ++e) ring[e][(i + 1) % kWidth] = history[i].get(e);
    }

    Row other[S];
    // Two groups per trip, so that the two row buffers swap roles without copies.
    for (int g = 0; g < groups; g += 2) {
        if (!group_at<T, kWidth, kVec, kSilu>(g, groups, t0, p, x, y, rows, other, ring, taps, bias_e)) break;
        if (!group_at<T, kWidth, kVec, kSilu>(g + 1, groups, t0, p, x, y, other, rows, ring, taps, bias_e)) break;
    }
}

// Channel pairs: contiguous channels, an even dim, and every row start aligned to a pair.
template <typename T>
bool pairs_fit(const void *base, int64_t batch_stride, int64_t dim_stride, int64_t seq_stride, int dim) {
    return (reinterpret_cast<uintptr_t>(base) % (2 * sizeof(T))) == 0 && dim_stride == 1 && dim % 2 == 0 &&
           batch_stride % 2 == 0 && seq_stride % 2 == 0;
}

template <typename T, int kWidth, int kVec, bool kSilu>
hipconv_status_t launch_kernel(const hipconv_conv1d_params &p, hipStream_t stream) {
    using Shape = WindowShape<kWidth>;
    const int64_t channel_spans = ceil_div(p.dim, (int64_t)kLanes * kVec);
    // The most rows per thread that still leave kSpreadWarps warps (or one group each).
    int groups = Shape::kMaxGroups;
    while (groups > 1 && p.batch * channel_spans * ceil_div(p.seqlen, (int64_t)groups * Shape::S) < kSpreadWarps)
        groups /= 2;
    const int64_t chunks = ceil_div(p.seqlen, (int64_t)groups * Shape::S);
    const int64_t chunk_blocks = ceil_div(chunks, (int64_t)kWarps);
    const int64_t blocks = chunk_blocks * channel_spans * p.batch;
    hipLaunchKernelGGL((conv1d_direct_window_channel_last_kernel<T, kWidth, kVec, kSilu>), dim3((unsigned)blocks),
                       dim3(kThreads), 0, stream, p, groups, (int)channel_spans, (int)chunk_blocks);
    return last_launch_status();
}

template <typename T, int kWidth> hipconv_status_t launch_width(const hipconv_conv1d_params &p, hipStream_t stream) {
    const bool pairs = pairs_fit<T>(p.x, p.x_batch_stride, p.x_dim_stride, p.x_seq_stride, p.dim) &&
                       pairs_fit<T>(p.y, p.y_batch_stride, p.y_dim_stride, p.y_seq_stride, p.dim);
    return with_silu(p.silu != 0, [&](auto silu) {
        constexpr bool kSilu = decltype(silu)::value;
        return pairs ? launch_kernel<T, kWidth, 2, kSilu>(p, stream) : launch_kernel<T, kWidth, 1, kSilu>(p, stream);
    });
}

}  // namespace

template <typename T> bool direct_window_channel_last_fits(const hipconv_conv1d_params &p) {
    if (p.width <= kNarrowMaxWidth || p.width > kWindowMaxWidth || p.x_dim_stride >= p.x_seq_stride) return false;
    // The grid (one block per 4 chunks of a span of 32 channels, at one group per chunk)
    // must fit a 32-bit block index.
    const int64_t blocks = ceil_div(ceil_div(p.seqlen, (int64_t)WindowShape<kWindowMaxWidth>::S), (int64_t)kWarps) *
                           ceil_div(p.dim, (int64_t)kLanes) * p.batch;
    return blocks <= INT32_MAX;
}

template <typename T>
hipconv_status_t launch_direct_window_channel_last(const hipconv_conv1d_params &p, hipStream_t stream) {
    if (p.width <= 8) return launch_width<T, 8>(p, stream);
    if (p.width <= 16) return launch_width<T, 16>(p, stream);
    return (hipconv_status_t)hipErrorInvalidValue;
}

#define HIPCONV_INSTANTIATE(T)                                                           \
    template bool direct_window_channel_last_fits<T>(const hipconv_conv1d_params &);     \
    template hipconv_status_t launch_direct_window_channel_last<T>(const hipconv_conv1d_params &, hipStream_t);
HIPCONV_INSTANTIATE(__half)
HIPCONV_INSTANTIATE(hipconv_bf16)
HIPCONV_INSTANTIATE(float)
#undef HIPCONV_INSTANTIATE

}  // namespace hipconv
