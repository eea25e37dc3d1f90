/*
 * Direct, channel-first, contiguous tensors: the streaming causal conv1d over the flat
 * [batch·dim·seqlen] array, for compiled widths 1 .. kNarrowMaxWidth.
 *
 *   in   x [batch, dim, seqlen] contiguous (seqlen fastest), 16-byte aligned
 *        w [dim, width], bias [dim] or NULL
 *   out  y [batch, dim, seqlen] contiguous, 16-byte aligned
 *        y[b,c,t] = act(bias[c] + sum_tap w[c,tap] * x[b,c,t+tap-(width-1)]),  x[..,<0] = 0
 *
 * A contiguous channel-first tensor is one flat array in which every row (b, c) follows
 * the previous one, so the history of flat element f is the width-1 flat elements before
 * it, except where they belong to the previous row (t < width-1): those taps are skipped.
 * Working on the flat array makes every seqlen vectorizable: a row that is not a multiple
 * of 16 bytes just puts a row boundary inside some vectors, and those few vectors take the
 * per-element path. There is no shared memory and no barrier.
 *
 * Work split (E = 16 / sizeof(T) elements per 16-byte vector, W = wave size):
 *
 *   wave w owns flat elements [w·V·W·E, (w+1)·V·W·E); load v of lane l is the vector
 *
 *        flat  |  v=0: lane 0 | lane 1 | ... | lane W-1 |  v=1: lane 0 | ... |  v=V-1 ...
 *
 *   so each load instruction of the wave reads W·16 contiguous bytes, and all V loads of
 *   a lane are in flight before the first is used. The width-1 elements before a vector
 *   are the tail of the previous lane's vector (one register exchange per 32-bit word);
 *   lane 0 takes the last lane's previous vector, and for v = 0 loads it from memory.
 *
 * In large problems (V > 1) each lane loads the taps and bias of the row its first vector
 * lies in before its x (LaneRow, kept as raw bits so that nothing waits on them until the
 * products): loaded at their first use instead, after x had arrived, they added a round
 * trip of their own to every wave (ncu, H200: 17% of the f32 kernel's stall samples; 10%
 * of its time with SiLU). Small problems (V = 1) issue x first and load each vector's taps
 * at their use (kLaneRowFirst).
 *
 * Per vector: if it lies inside one row (t + E <= seqlen), E outputs come from E + width - 1
 * inputs and the row's taps, with the history zeroed where it precedes the row's start
 * (so rows that are a whole number of vectors never leave this path); a vector with a row
 * boundary inside takes a per-element path in which each element finds its own row and
 * time and skips taps before its row's start. A wave whose segment lies wholly inside the
 * tensor, in rows that are a whole number of vectors (every wave but the last where
 * seqlen % E == 0), runs a copy of this code compiled without the bound tests, the
 * per-vector choice between the two paths and the element path (kBulk): the 16-bit SiLU
 * kernels, which issued in 62% of the cycles with them, ran 4-5% faster at the model shapes
 * without them (H200).
 *
 * SiLU rounds to 16 bits through activate_to (activation.h: the one-MUFU tanh form there,
 * fewer issue slots where 16-bit outputs leave the kernel issue-bound), with the form's 1/2
 * folded into the taps and bias (kActivationInputScale: the same bits, one multiply fewer
 * an output; bf16 (8,4096,2048,4) 70.5-70.8 -> 70.25-70.3 us on an H200).
 *
 * Launch: kThreads threads, one thread per V vectors (V = 1 for small problems, so that
 * more waves share one round of loads), grid = ceil(total / (kThreads·V·E)).
 * Launches are chained (dependent_launch.h): every block first waits for the kernels
 * before it in the stream, then lets the next launch, so back-to-back launches overlap
 * their starts and the boundary pass that follows a forward with states or a packed batch
 * starts during the last blocks.
 */
#include "activation.h"
#include "compat.h"
#include "dependent_launch.h"
#include "direct_paths.h"
#include "element.h"
#include "flat_vectors.h"
#include "hipconv/conv1d.h"
#include "launch.h"
#include "packed.h"
#include "vector_rows.h"
#include "wave.h"

namespace hipconv {

namespace {

constexpr int kThreads = 256;
constexpr int kVectorsPerThread = 4;         // vectors per lane and segment (large problems)
constexpr int64_t kSmallVectors = 1 << 19;  // below this many vectors: one per lane

// The loads of one wave's segment (flat elements first .. first + V·W·E - 1): this lane's
// V vectors, and for lane 0 the vector before the segment (its history; zero at the start).
template <typename T, int kWidth, int V> struct SegmentLoads {
    uint4 raw[V];
    uint4 before;

    __device__ void issue(const T *x, int64_t first, int64_t total, int lane) {
        constexpr int E = Vec16<T>::kCount;
        constexpr int W = HIPCONV_WAVE_SIZE;
        if (first + (int64_t)V * W * E <= total) {  // every segment but the last
#pragma unroll
            for (int v = 0; v < V; ++v)
                raw[v] = *reinterpret_cast<const uint4 *>(x + first + (int64_t)(v * W + lane) * E);
        } else {
#pragma unroll
            for (int v = 0; v < V; ++v) raw[v] = load_flat_vector<T>(x, first + (int64_t)(v * W + lane) * E, total);
        }
        before = make_uint4(0, 0, 0, 0);
        if (kWidth > 1 && lane == 0 && first > 0) before = *reinterpret_cast<const uint4 *>(x + first - E);
    }
};

// Large problems (V > 1 vectors a lane) load the lane's row first. Small ones (V = 1: one
// round of loads, where the time is the latency from the launch to the first load) issue
// x first and load each vector's taps at their use: with the row first, the seed shape
// (1,64,2048,4) went 1.49 -> 1.74 us f16 and 1.59 -> 1.87 us f32 (H200, the kit's bench).
template <int V> constexpr bool kLaneRowFirst = V > 1;

// The row (b·dim + c) and time of this lane's first vector, and that row's taps and bias,
// loaded before the segment's x (the vectors of a lane mostly share its first vector's row).
template <typename T, int kWidth> struct LaneRow {
    int time;
    int channel;
    // Raw bits, one element a 32-bit register: merging a 16-bit element into a shared
    // register (or selecting a zero bias) would wait for the load before x is issued.
    uint32_t taps[kWidth];
    uint32_t bias;

    __device__ void issue(const hipconv_conv1d_params &p, int64_t f) {
        using Bits = element_bits_t<T>;
        const QuotientRemainder by_row = divide(f, p.seqlen);
        time = (int)by_row.remainder;
        channel = (int)divide(by_row.quotient, p.dim).remainder;
        const Bits *w = static_cast<const Bits *>(p.w) + (int64_t)channel * kWidth;
#pragma unroll
        for (int k = 0; k < kWidth; ++k) taps[k] = w[k];
        bias = 0;  // +0 in every dtype
        if (p.bias != nullptr) bias = static_cast<const Bits *>(p.bias)[channel];
    }
    __device__ float tap(int k) const { return bits_to_float(T(), taps[k], 0); }
    __device__ float bias_value() const { return bits_to_float(T(), bias, 0); }
};

// y for one wave's segment from its loads. Every lane of the wave calls it (exchanges).
// kBulk: the segment lies inside the tensor and seqlen is a multiple of E, so that every
// vector is whole and inside one row.
template <typename T, int kWidth, int V, bool kSilu, bool kBulk>
__device__ inline void convolve_segment(const hipconv_conv1d_params &p, int64_t total, int64_t first,
                                        const SegmentLoads<T, kWidth, V> &in, const LaneRow<T, kWidth> &row,
                                        int lane) {
    constexpr int E = Vec16<T>::kCount;
    constexpr int W = HIPCONV_WAVE_SIZE;
    constexpr int kHistory = kWidth - 1;
    static_assert(kHistory <= E, "the history of a vector must fit in the previous vector");
    // 32-bit words of a vector that hold its last kHistory elements.
    constexpr int kHistoryWords = (kHistory * (int)sizeof(T) + 3) / 4;
    // The activation's input scale, folded into the taps and bias (activation.h).
    constexpr float kScale = kActivationInputScale<kSilu, T>;

    const T *w = static_cast<const T *>(p.w);
    const T *bias = static_cast<const T *>(p.bias);
    T *y = static_cast<T *>(p.y);

    // Where this lane's first vector lies: its row's (V > 1), or from the segment's start.
    int64_t time_of_lane;
    int channel_of_lane;
    if constexpr (kLaneRowFirst<V>) {
        time_of_lane = row.time;
        channel_of_lane = row.channel;
    } else {
        const QuotientRemainder by_row = divide(first, p.seqlen);
        time_of_lane = by_row.remainder + (int64_t)lane * E;
        channel_of_lane = (int)divide(by_row.quotient, p.dim).remainder;
    }

    uint32_t from_left[V][4];  // word q of the previous lane's vector v (lane 0: the last lane's)
#pragma unroll
    for (int v = 0; v < V; ++v) {
#pragma unroll
        for (int q = 4 - kHistoryWords; q < 4; ++q)
            from_left[v][q] = wave_read_lane(word_of(in.raw[v], q), (lane + W - 1) % W);
    }

#pragma unroll
    for (int v = 0; v < V; ++v) {
        const int64_t offset = (int64_t)(v * W + lane) * E;
        const int64_t f = first + offset;
        if (!kBulk && f >= total) break;

        // The previous vector's words (lane 0: the last lane's vector v-1, or `before`).
        uint4 previous = in.before;
#pragma unroll
        for (int q = 4 - kHistoryWords; q < 4; ++q) {
            if (lane != 0) (&previous.x)[q] = from_left[v][q];
            else if (v > 0) (&previous.x)[q] = from_left[v > 0 ? v - 1 : 0][q];
        }
        float window[kHistory + E];
#pragma unroll
        for (int k = 0; k < kHistory; ++k) window[k] = unpack<T>(previous, E - kHistory + k);
#pragma unroll
        for (int j = 0; j < E; ++j) window[kHistory + j] = unpack<T>(in.raw[v], j);

        // This vector's first element: row advance and time t.
        int64_t t_wide = time_of_lane + (int64_t)v * W * E;
        int c = channel_of_lane;
        if (t_wide >= p.seqlen) {
            const QuotientRemainder rows_on = divide(t_wide, p.seqlen);
            t_wide = rows_on.remainder;
            c = (int)divide(c + rows_on.quotient, p.dim).remainder;
        }
        const int t = (int)t_wide;

        float out[E];
        if (kBulk || t + E <= p.seqlen) {
            // Inside one row. A row that starts within the history (t < width-1) sees
            // zeros there instead of the previous row's tail.
            if (t < kHistory) {
#pragma unroll
                for (int k = 0; k < kHistory; ++k)
                    if (k < kHistory - t) window[k] = 0.f;
            }
            // The row's taps: the lane's, loaded before x, unless this vector starts a later
            // row (rows shorter than a segment), whose taps are loaded here.
            float taps[kWidth];
            float bias_c;
            if (kLaneRowFirst<V> && c == row.channel) {
#pragma unroll
                for (int k = 0; k < kWidth; ++k) taps[k] = row.tap(k) * kScale;
                bias_c = row.bias_value() * kScale;
            } else {
#pragma unroll
                for (int k = 0; k < kWidth; ++k) taps[k] = to_float(w[(int64_t)c * kWidth + k]) * kScale;
                bias_c = bias != nullptr ? to_float(bias[c]) * kScale : 0.f;
            }
#pragma unroll
            for (int j = 0; j < E; ++j) {
                float acc = bias_c;
#pragma unroll
                for (int k = 0; k < kWidth; ++k) acc += taps[k] * window[j + k];
                out[j] = activate_scaled_to<kSilu, T>(acc);
            }
        } else {
            // A row boundary in or just before the vector: element by element.
            int tj = t;
            int cj = c;
#pragma unroll
            for (int j = 0; j < E; ++j) {
                float acc = bias != nullptr ? to_float(bias[cj]) * kScale : 0.f;
#pragma unroll
                for (int k = 0; k < kWidth; ++k)
                    if (tj >= kHistory - k) acc += to_float(w[(int64_t)cj * kWidth + k]) * kScale * window[j + k];
                out[j] = activate_scaled_to<kSilu, T>(acc);
                if (++tj == p.seqlen) {
                    tj = 0;
                    cj = cj + 1 == p.dim ? 0 : cj + 1;
                }
            }
        }
        if constexpr (kBulk) *reinterpret_cast<uint4 *>(y + f) = pack<T>(out);
        else store_flat_vector<T>(y, f, total, out);
    }
}

// One wave per segment of V·W·E flat elements: all of a lane's loads are issued before
// any is used. (Measured on an H200: a persistent grid whose waves prefetch their next
// segment was no faster at (4,5120,4096,4) f16 and 3-7% slower at (8,4096,2048,4) f32 and
// with SiLU; docs/PERFORMANCE.md.) At most 64 registers (4 blocks an SM on NVIDIA): the
// lane's row took the widths' no-SiLU forms to 67-70, 3 blocks, 2-4% slower (H200).
template <typename T, int kWidth, int V, bool kSilu>
__global__ void HIPCONV_BOUNDS_NVIDIA(kThreads, 4) conv1d_direct_channel_first_kernel(hipconv_conv1d_params p,
                                                                                  int64_t total) {
    begin_chained_kernel();  // after the kernels before it; the next (the boundary pass) may start
    constexpr int64_t kSegment = (int64_t)V * HIPCONV_WAVE_SIZE * Vec16<T>::kCount;
    const int lane = wave_lane();
    const int64_t segment = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) / HIPCONV_WAVE_SIZE;
    if (segment * kSegment >= total) return;  // whole waves only: the exchanges need every lane
    LaneRow<T, kWidth> row;
    if constexpr (kLaneRowFirst<V>) row.issue(p, segment * kSegment + (int64_t)lane * Vec16<T>::kCount);
    SegmentLoads<T, kWidth, V> loads;
    loads.issue(static_cast<const T *>(p.x), segment * kSegment, total, lane);
    // A whole segment of rows that are whole vectors: no bound tests, no element path (the
    // condition is the same for every lane of the wave).
    if (segment * kSegment + kSegment <= total && p.seqlen % Vec16<T>::kCount == 0)
        convolve_segment<T, kWidth, V, kSilu, true>(p, total, segment * kSegment, loads, row, lane);
    else
        convolve_segment<T, kWidth, V, kSilu, false>(p, total, segment * kSegment, loads, row, lane);
}

template <typename T, int kWidth, int V> hipconv_status_t launch_v(const hipconv_conv1d_params &p, hipStream_t stream) {
    const int64_t total = (int64_t)p.batch * p.dim * p.seqlen;
    const int64_t blocks = ceil_div(total, (int64_t)kThreads * V * Vec16<T>::kCount);
    if (blocks > INT32_MAX) return (hipconv_status_t)hipErrorInvalidValue;
    return with_silu(p.silu != 0, [&](auto silu) {
        return launch_chained(conv1d_direct_channel_first_kernel<T, kWidth, V, decltype(silu)::value>,
                           dim3((unsigned)blocks), dim3(kThreads), 0, stream, p, total);
    });
}

template <typename T, int kWidth> hipconv_status_t launch_width(const hipconv_conv1d_params &p, hipStream_t stream) {
    // Small problems: one vector per lane, the most waves for one round of loads.
    const int64_t vectors = (int64_t)p.batch * p.dim * p.seqlen / Vec16<T>::kCount;
    return vectors < kSmallVectors ? launch_v<T, kWidth, 1>(p, stream)
                                   : launch_v<T, kWidth, kVectorsPerThread>(p, stream);
}

}  // namespace

template <typename T> bool direct_channel_first_fits(const hipconv_conv1d_params &p) {
    return p.width >= 1 && p.width <= kNarrowMaxWidth && p.width - 1 <= Vec16<T>::kCount &&
           contiguous_channel_first(p.x, p.x_batch_stride, p.x_dim_stride, p.x_seq_stride, p) &&
           contiguous_channel_first(p.y, p.y_batch_stride, p.y_dim_stride, p.y_seq_stride, p);
}

template <typename T> hipconv_status_t launch_direct_channel_first(const hipconv_conv1d_params &p, hipStream_t stream) {
    switch (p.width) {
    case 1: return launch_width<T, 1>(p, stream);
    case 2: return launch_width<T, 2>(p, stream);
    case 3: return launch_width<T, 3>(p, stream);
    case 4: return launch_width<T, 4>(p, stream);
    default: return (hipconv_status_t)hipErrorInvalidValue;
    }
}

#define HIPCONV_INSTANTIATE(T)                                                        \
    template bool direct_channel_first_fits<T>(const hipconv_conv1d_params &);        \
    template hipconv_status_t launch_direct_channel_first<T>(const hipconv_conv1d_params &, hipStream_t);
HIPCONV_INSTANTIATE(__half)
HIPCONV_INSTANTIATE(hipconv_bf16)
HIPCONV_INSTANTIATE(float)
#undef HIPCONV_INSTANTIATE

}  // namespace hipconv
