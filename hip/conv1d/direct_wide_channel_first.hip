/*
 * Direct, channel-first, contiguous tensors, wide filters: the streaming causal conv1d over
 * the flat [batch·dim·seqlen] array for widths kNarrowMaxWidth+1 .. kMaxStreamWidth.
 *
 *   in   x [batch, dim, seqlen] contiguous (seqlen fastest), 16-byte aligned
 *        w [dim, width], bias [dim] or NULL
 *   out  y [batch, dim, seqlen] contiguous, 16-byte aligned
 *        y[b,c,t] = act(bias[c] + sum_tap w[c,tap] * x[b,c,t+tap-(width-1)]),  x[..,<0] = 0
 *
 * Widths are compiled as W = 8, 16, 32 and 64 taps. A narrower filter runs with W - width
 * zero taps in front (w'[k] = 0 for k < W - width, w'[k] = w[k - (W - width)] after): the
 * same sum, except that an inf or NaN in x reaches W - width more outputs through 0·x.
 *
 * As in direct_channel_first.hip the tensor is one flat array and each 16-byte vector of E
 * elements is the unit of E outputs. A vector's history is now up to 63 elements, H =
 * ceil((W-1)/E) vectors: more than the next lane holds, so the block stages its segment in
 * shared memory as loaded (every load in flight before the first store), and each thread
 * reads its vector and the H vectors before it from there:
 *
 *   stage: | H vectors before the segment | v=0: thread 0 | 1 | ... | 255 | v=1: thread 0 | ...
 *   thread i, vector v: stage[v·256 + i .. v·256 + i + H]   (neighbouring threads read
 *   neighbouring 16-byte words: no bank conflicts)
 *
 * Per vector, at row time t:
 *   - t + E <= seqlen (inside one row): E outputs from the E + W - 1 window elements with
 *     the taps in registers (an outer product: window element i adds tap i - j to output
 *     j); where t < W - 1 (a row's first vectors) the elements before the row are zeroed;
 *   - otherwise (a row boundary inside the vector, or the partial last vector): element by
 *     element, each with its own row's taps, skipping those before its row's start.
 * A thread keeps the fp32 taps of the channel it last used and reloads them when a vector's
 * channel differs (a row holds seqlen / E vectors, so reloads are rare at model sizes).
 *
 * Launch: kThreads threads, kVectorsPerThread vectors each; grid = ceil(total / (kThreads·V·E)).
 */
#include "activation.h"
#include "compat.h"
#include "direct_paths.h"
#include "element.h"
#include "flat_vectors.h"
#include "hipconv/conv1d.h"
#include "launch.h"
#include "packed.h"
#include "vector_rows.h"

namespace hipconv {

namespace {

constexpr int kThreads = 256;
constexpr int kVectorsPerThread = 4;

template <typename T, int kWidth> struct WideWindow {
    static constexpr int E = Vec16<T>::kCount;
    static constexpr int kHistory = kWidth - 1;
    static constexpr int kHistoryVectors = (kHistory + E - 1) / E;  // H
    static constexpr int kElements = kHistory + E;                   // window of one vector
    // Window element 0 within the H + 1 vectors stage[s .. s + H].
    static constexpr int kStart = kHistoryVectors * E - kHistory;
};

// The taps of channel c, fp32, with kWidth - width zeros in front.
template <typename T, int kWidth>
__device__ inline void load_padded_taps(float (&taps)[kWidth], const T *w, int width, int c) {
    const int pad = kWidth - width;
    const int64_t row = (int64_t)c * width - pad;
#pragma unroll
    for (int k = 0; k < kWidth; ++k) taps[k] = k >= pad ? to_float(w[row + k]) : 0.f;
}

// E outputs of a vector inside one row, from its H + 1 staged vectors. kHead: the row
// starts within the window (t < W - 1), so the elements before it are zero.
template <typename T, int kWidth, bool kHead, bool kSilu>
__device__ inline void convolve_inside_row(const uint4 *vectors, const float (&taps)[kWidth], float bias_c, int t,
                                           float (&out)[Vec16<T>::kCount]) {
    using Window = WideWindow<T, kWidth>;
    constexpr int E = Window::E;
    float acc[E];
#pragma unroll
    for (int j = 0; j < E; ++j) acc[j] = bias_c;
#pragma unroll
    for (int i = 0; i < Window::kElements; ++i) {
        const int e = Window::kStart + i;
        float xi = unpack<T>(vectors[e / E], e % E);
        if (kHead && i < Window::kHistory - t) xi = 0.f;
#pragma unroll
        for (int j = 0; j < E; ++j) {
            const int k = i - j;
            if (k >= 0 && k < kWidth) acc[j] += taps[k] * xi;
        }
    }
#pragma unroll
    for (int j = 0; j < E; ++j) out[j] = activate<kSilu>(acc[j]);
}

// E outputs of a vector with a row boundary inside, element by element from the staged
// window (`window` points at window element 0), each with its own row's taps.
template <typename T, int kWidth, bool kSilu>
__device__ inline void convolve_across_rows(const hipconv_conv1d_params &p, const T *window, int t, int c,
                                            float (&out)[Vec16<T>::kCount]) {
    constexpr int kHistory = kWidth - 1;
    const T *w = static_cast<const T *>(p.w);
    const T *bias = static_cast<const T *>(p.bias);
    const int pad = kWidth - p.width;
#pragma unroll
    for (int j = 0; j < Vec16<T>::kCount; ++j) {
        float acc = bias != nullptr ? to_float(bias[c]) : 0.f;
        const int64_t row = (int64_t)c * p.width - pad;
        for (int k = max(pad, kHistory - t); k < kWidth; ++k) acc += to_float(w[row + k]) * to_float(window[j + k]);
        out[j] = activate<kSilu>(acc);
        if (++t == p.seqlen) {
            t = 0;
            c = c + 1 == p.dim ? 0 : c + 1;
        }
    }
}

// One segment of S = kThreads·V·E flat elements per block. The block stages them and the H
// vectors before them (zero outside the tensor) in shared memory, every load in flight
// before the first store, then computes them. (Measured on an H100: a persistent grid
// whose blocks copy the next segment with cp.async while computing the current one was
// 11-24% slower, docs/PERFORMANCE.md "Wide kernels".)
template <typename T, int kWidth, int V, bool kSilu>
__global__ void __launch_bounds__(kThreads) conv1d_direct_wide_channel_first_kernel(hipconv_conv1d_params p,
                                                                                    int64_t total) {
    using Window = WideWindow<T, kWidth>;
    constexpr int E = Window::E;
    constexpr int H = Window::kHistoryVectors;
    __shared__ uint4 stage[H + kThreads * V];

    const int tid = (int)threadIdx.x;
    const int64_t first = (int64_t)blockIdx.x * kThreads * V * E;
    stage_flat_segment<T, kThreads, V, H>(stage, static_cast<const T *>(p.x), first, total);

    // Where the segment starts: row (b·dim + c) and time; its vectors advance from there in
    // 32-bit arithmetic (time < seqlen + S < 2^32).
    const QuotientRemainder by_row = divide(first, p.seqlen);
    const uint32_t time_of_first = (uint32_t)by_row.remainder;
    const uint32_t channel_of_first = (uint32_t)divide(by_row.quotient, p.dim).remainder;
    const uint32_t seqlen = (uint32_t)p.seqlen, dim = (uint32_t)p.dim;

    const T *w = static_cast<const T *>(p.w);
    const T *bias = static_cast<const T *>(p.bias);
    T *y = static_cast<T *>(p.y);
    float taps[kWidth];
    float bias_c = 0.f;
    int taps_channel = -1;

    for (int v = 0; v < V; ++v) {
        const int s = v * kThreads + tid;  // this vector's window: stage[s .. s + H]
        const int64_t f = first + (int64_t)s * E;
        if (f >= total) break;

        uint32_t t_on = time_of_first + (uint32_t)(s * E);
        uint32_t c_on = channel_of_first;
        if (t_on >= seqlen) {
            const uint32_t rows_on = t_on / seqlen;
            t_on -= rows_on * seqlen;
            c_on = (c_on + rows_on) % dim;
        }
        const int t = (int)t_on;
        const int c = (int)c_on;

        float out[E];
        if (t + E <= p.seqlen) {
            if (c != taps_channel) {
                load_padded_taps<T, kWidth>(taps, w, p.width, c);
                bias_c = bias != nullptr ? to_float(bias[c]) : 0.f;
                taps_channel = c;
            }
            uint4 vectors[H + 1];
#pragma unroll
            for (int m = 0; m <= H; ++m) vectors[m] = stage[s + m];
            if (t >= Window::kHistory) convolve_inside_row<T, kWidth, false, kSilu>(vectors, taps, bias_c, t, out);
            else convolve_inside_row<T, kWidth, true, kSilu>(vectors, taps, bias_c, t, out);
        } else {
            const T *window = reinterpret_cast<const T *>(&stage[s]) + Window::kStart;
            convolve_across_rows<T, kWidth, kSilu>(p, window, t, c, out);
        }
        store_flat_vector<T>(y, f, total, out);
    }
}

template <typename T, int kWidth> hipconv_status_t launch_width(const hipconv_conv1d_params &p, hipStream_t stream) {
    constexpr int V = kVectorsPerThread;
    const int64_t total = (int64_t)p.batch * p.dim * p.seqlen;
    const int64_t blocks = ceil_div(total, (int64_t)kThreads * V * Vec16<T>::kCount);
    if (blocks > INT32_MAX) return (hipconv_status_t)hipErrorInvalidValue;
    return with_silu(p.silu != 0, [&](auto silu) {
        hipLaunchKernelGGL((conv1d_direct_wide_channel_first_kernel<T, kWidth, V, decltype(silu)::value>),
                           dim3((unsigned)blocks), dim3(kThreads), 0, stream, p, total);
        return last_launch_status();
    });
}

}  // namespace

template <typename T> bool direct_wide_channel_first_fits(const hipconv_conv1d_params &p) {
    return p.width > kNarrowMaxWidth && p.width <= kMaxStreamWidth &&
           contiguous_channel_first(p.x, p.x_batch_stride, p.x_dim_stride, p.x_seq_stride, p) &&
           contiguous_channel_first(p.y, p.y_batch_stride, p.y_dim_stride, p.y_seq_stride, p);
}

template <typename T>
hipconv_status_t launch_direct_wide_channel_first(const hipconv_conv1d_params &p, hipStream_t stream) {
    if (p.width <= 8) return launch_width<T, 8>(p, stream);
    if (p.width <= 16) return launch_width<T, 16>(p, stream);
    if (p.width <= 32) return launch_width<T, 32>(p, stream);
    if (p.width <= 64) return launch_width<T, 64>(p, stream);
    return (hipconv_status_t)hipErrorInvalidValue;
}

#define HIPCONV_INSTANTIATE(T)                                                            \
    template bool direct_wide_channel_first_fits<T>(const hipconv_conv1d_params &);       \
    template hipconv_status_t launch_direct_wide_channel_first<T>(const hipconv_conv1d_params &, hipStream_t);
HIPCONV_INSTANTIATE(__half)
HIPCONV_INSTANTIATE(hipconv_bf16)
HIPCONV_INSTANTIATE(float)
#undef HIPCONV_INSTANTIATE

}  // namespace hipconv
