/*
 * The backward's generic path (hipconv/conv1d.h, "backward"): any width, any strides,
 * packed variable-length batches. Three element-wise passes through an fp32 dz in the
 * workspace, [batch, dim, seqlen] in x's axis order (channels fastest where x's channel
 * stride is the smaller, else time), so that every pass reads and writes along x's
 * contiguous axis:
 *
 *   conv1d_backward_dz        dz[b,c,t] = dy[b,c,t] · act'(z[b,c,t]), z recomputed
 *   conv1d_backward_dx        dx[b,c,tau] = sum_k w[c,k] · dz[b,c,tau+(width-1)-k] within
 *                             the sequence, + dfinal_states where tau is in its last width-1
 *   conv1d_backward_partials  partials[tile, c, k] = sum over the tile's times of
 *                             dz · x[t+k-(width-1)] (k < width; history from the states)
 *                             and of dz (k = width); a tile is kTileTimes times of one row
 *
 * A packed batch (cu_seqlens) runs as one row; each time finds its sequence by binary
 * search over the offsets, clamped so that a bad offset can never address memory outside
 * the row (backward.hip's states pass reports bad offsets).
 * Launch: 256 threads, grid-stride over the elements (partials: over tiles·dim, c fastest).
 */
#include "backward.h"

namespace hipconv {

namespace {

constexpr int kThreads = 256;
constexpr int64_t kTileTimes = 256;

// The sequence holding time t of row b: its states row and its times [start, end), with
// start <= t < end inside [0, seqlen) whatever the offsets hold.
struct Span {
    int64_t seq;
    int64_t start;
    int64_t end;
};

__device__ inline Span span_of(const hipconv_conv1d_backward_params &p, int64_t b, int64_t t) {
    if (p.cu_seqlens == nullptr) return Span{b, 0, p.conv.seqlen};
    int lo = 0, hi = p.n_seqs - 1;
    while (lo < hi) {
        const int mid = (lo + hi + 1) / 2;
        if (p.cu_seqlens[mid] <= t) lo = mid;
        else hi = mid - 1;
    }
    const int64_t start = min(max((int64_t)p.cu_seqlens[lo], (int64_t)0), t);
    const int64_t end = max(min((int64_t)p.cu_seqlens[lo + 1], (int64_t)p.conv.seqlen), t + 1);
    return Span{lo, start, end};
}

// Element (b, c, t) of x, dy and dx, and of dz.
struct Indexing {
    const hipconv_conv1d_params &p;
    bool channels_fastest;
    __device__ int64_t tensor(int64_t b, int64_t c, int64_t t) const {
        return b * p.x_batch_stride + c * p.x_dim_stride + t * p.x_seq_stride;
    }
    __device__ int64_t dz(int64_t b, int64_t c, int64_t t) const {
        return channels_fastest ? (b * p.seqlen + t) * p.dim + c : (b * p.dim + c) * p.seqlen + t;
    }
    // The element of dz index i.
    __device__ void element(int64_t i, int64_t &b, int64_t &c, int64_t &t) const {
        if (channels_fastest) {
            c = i % p.dim;
            t = (i / p.dim) % p.seqlen;
            b = i / ((int64_t)p.dim * p.seqlen);
        } else {
            t = i % p.seqlen;
            c = (i / p.seqlen) % p.dim;
            b = i / ((int64_t)p.dim * p.seqlen);
        }
    }
};

__host__ __device__ inline bool channels_fastest(const hipconv_conv1d_params &p) {
    return p.x_dim_stride < p.x_seq_stride;
}

// x at absolute time tau (>= span.start - (width-1)) of row b, channel c: before the
// sequence starts, its initial states (or 0).
template <typename T>
__device__ inline float x_at(const hipconv_conv1d_backward_params &p, const Indexing &at, int64_t b, int64_t c,
                             int64_t tau, const Span &s) {
    if (tau >= s.start) return to_float(static_cast<const T *>(p.conv.x)[at.tensor(b, c, tau)]);
    const T *initial = static_cast<const T *>(p.conv.initial_states);
    const int64_t history = p.conv.width - 1;
    return initial != nullptr ? to_float(initial[(s.seq * p.conv.dim + c) * history + history + (tau - s.start)]) : 0.f;
}

template <typename T>
__global__ void __launch_bounds__(kThreads) conv1d_backward_dz_kernel(hipconv_conv1d_backward_params p, float *dz) {
    const hipconv_conv1d_params &cp = p.conv;
    const Indexing at{cp, channels_fastest(cp)};
    const T *w = static_cast<const T *>(cp.w);
    const T *bias = static_cast<const T *>(cp.bias);
    const T *dy = static_cast<const T *>(p.dy);
    const int history = cp.width - 1;
    const int64_t total = (int64_t)cp.batch * cp.dim * cp.seqlen;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < total; i += (int64_t)gridDim.x * blockDim.x) {
        int64_t b, c, t;
        at.element(i, b, c, t);
        const Span s = span_of(p, b, t);
        float z = bias != nullptr ? to_float(bias[c]) : 0.f;
        for (int k = 0; k < cp.width; ++k) z += to_float(w[c * cp.width + k]) * x_at<T>(p, at, b, c, t + k - history, s);
        dz[i] = to_float(dy[at.tensor(b, c, t)]) * activation_derivative(z, cp.silu != 0);
    }
}

template <typename T>
__global__ void __launch_bounds__(kThreads) conv1d_backward_dx_kernel(hipconv_conv1d_backward_params p,
                                                                       const float *dz) {
    const hipconv_conv1d_params &cp = p.conv;
    const Indexing at{cp, channels_fastest(cp)};
    const T *w = static_cast<const T *>(cp.w);
    const T *dfinal = static_cast<const T *>(p.dfinal_states);
    T *dx = static_cast<T *>(p.dx);
    const int history = cp.width - 1;
    const int64_t total = (int64_t)cp.batch * cp.dim * cp.seqlen;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < total; i += (int64_t)gridDim.x * blockDim.x) {
        int64_t b, c, tau;
        at.element(i, b, c, tau);
        const Span s = span_of(p, b, tau);
        float acc = 0.f;
        for (int k = 0; k < cp.width; ++k) {
            const int64_t t = tau + history - k;
            if (t < s.end) acc += to_float(w[c * cp.width + k]) * dz[at.dz(b, c, t)];
        }
        const int64_t into_final = tau - s.start - (s.end - s.start - history);  // index in final_states
        if (dfinal != nullptr && into_final >= 0)
            acc += to_float(dfinal[(s.seq * cp.dim + c) * history + into_final]);
        dx[at.tensor(b, c, tau)] = from_float<T>(acc);
    }
}

template <typename T>
__global__ void __launch_bounds__(kThreads) conv1d_backward_partials_kernel(hipconv_conv1d_backward_params p,
                                                                             const float *dz, float *partials) {
    const hipconv_conv1d_params &cp = p.conv;
    const Indexing at{cp, channels_fastest(cp)};
    const int history = cp.width - 1;
    const int64_t tiles_per_row = ceil_div(cp.seqlen, kTileTimes);
    const int64_t total = cp.batch * tiles_per_row * cp.dim;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < total; i += (int64_t)gridDim.x * blockDim.x) {
        const int64_t c = i % cp.dim;
        const int64_t tile = i / cp.dim;  // b * tiles_per_row + tile of the row
        const int64_t b = tile / tiles_per_row;
        const int64_t t_begin = (tile % tiles_per_row) * kTileTimes;
        const int64_t t_end = min(t_begin + kTileTimes, (int64_t)cp.seqlen);
        for (int k = 0; k <= cp.width; ++k) {
            float sum = 0.f;
            Span s = span_of(p, b, t_begin);
            for (int64_t t = t_begin; t < t_end; ++t) {
                if (t >= s.end) s = span_of(p, b, t);
                const float g = dz[at.dz(b, c, t)];
                sum += k == cp.width ? g : g * x_at<T>(p, at, b, c, t + k - history, s);
            }
            partials[partial_index(tile, cp.dim, c, cp.width, k)] = sum;
        }
    }
}

}  // namespace

int64_t backward_generic_tiles(const hipconv_conv1d_backward_params &p) {
    return p.conv.batch * ceil_div(p.conv.seqlen, kTileTimes);
}

int64_t backward_generic_dz_floats(const hipconv_conv1d_backward_params &p) {
    return (int64_t)p.conv.batch * p.conv.dim * p.conv.seqlen;
}

template <typename T>
hipconv_status_t launch_backward_generic(const hipconv_conv1d_backward_params &p, float *partials, float *dz,
                                         hipStream_t stream) {
    const int64_t total = backward_generic_dz_floats(p);
    const dim3 grid(grid_blocks(ceil_div(total, kThreads)));
    hipLaunchKernelGGL(conv1d_backward_dz_kernel<T>, grid, dim3(kThreads), 0, stream, p, dz);
    HIPCONV_RETURN_IF_ERROR(hipGetLastError());
    hipLaunchKernelGGL(conv1d_backward_dx_kernel<T>, grid, dim3(kThreads), 0, stream, p, dz);
    HIPCONV_RETURN_IF_ERROR(hipGetLastError());
    const int64_t work = backward_generic_tiles(p) * p.conv.dim;
    hipLaunchKernelGGL(conv1d_backward_partials_kernel<T>, dim3(grid_blocks(ceil_div(work, kThreads))),
                       dim3(kThreads), 0, stream, p, dz, partials);
    return last_launch_status();
}

#define HIPCONV_INSTANTIATE(T)                                                                                   \
    template hipconv_status_t launch_backward_generic<T>(const hipconv_conv1d_backward_params &, float *, float *, \
                                                         hipStream_t);
HIPCONV_INSTANTIATE(__half)
HIPCONV_INSTANTIATE(hipconv_bf16)
HIPCONV_INSTANTIATE(float)
#undef HIPCONV_INSTANTIATE

}  // namespace hipconv
