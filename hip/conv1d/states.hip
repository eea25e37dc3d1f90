/*
 * Initial and final states of the forward (hipconv.h). The forward kernels themselves run
 * with zero history; the initial states only change the first width-1 outputs of each row,
 * so a small pass rewrites those afterwards, and the fast kernels stay as they are.
 *
 * conv1d_apply_initial_states: y[b, c, t] for t < min(width-1, seqlen), recomputed with
 *   x[b, c, tau < 0] = initial_states[b, c, width-1+tau]; bias and SiLU as the forward,
 *   fp32 accumulation. Launch: 256 threads, grid-stride over batch*dim*min(width-1, seqlen).
 *
 * conv1d_final_states: the state a later forward continues from.
 *
 *   in   x [batch, dim, seqlen] or [batch, seqlen, dim] (strides), initial_states
 *        [batch, dim, width-1] or NULL
 *   out  final_states[b, c, k] = x[b, c, seqlen-(width-1)+k], where that time is < 0:
 *        initial_states[b, c, seqlen+k] (0 without initial states)
 *
 * Launch: 256 threads, 1-D grid-stride loop over batch*dim*(width-1), k fastest (writes
 * coalesced; x reads are strided, and small).
 */
#include "compat.h"
#include "element.h"
#include "hipconv.h"
#include "launch.h"

namespace hipconv {

constexpr int kStatesThreads = 256;

template <typename T> __global__ void __launch_bounds__(kStatesThreads) conv1d_final_states_kernel(hipconv_conv1d_params p) {
    const T *x = static_cast<const T *>(p.x);
    const T *initial = static_cast<const T *>(p.initial_states);
    T *final_states = static_cast<T *>(p.final_states);
    const int history = p.width - 1;
    const int64_t total = (int64_t)p.batch * p.dim * history;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < total; i += (int64_t)gridDim.x * blockDim.x) {
        const int64_t row = i / history;  // b * dim + c
        const int k = (int)(i % history);
        const int64_t b = row / p.dim;
        const int c = (int)(row % p.dim);
        const int64_t tau = (int64_t)p.seqlen - history + k;
        T v;
        if (tau >= 0)
            v = x[b * p.x_batch_stride + c * p.x_dim_stride + tau * p.x_seq_stride];
        else
            v = initial != nullptr ? initial[row * history + k + p.seqlen] : from_float<T>(0.f);
        final_states[i] = v;
    }
}

template <typename T>
__global__ void __launch_bounds__(kStatesThreads) conv1d_apply_initial_states_kernel(hipconv_conv1d_params p) {
    const T *x = static_cast<const T *>(p.x);
    const T *w = static_cast<const T *>(p.w);
    const T *bias = static_cast<const T *>(p.bias);
    const T *initial = static_cast<const T *>(p.initial_states);
    T *y = static_cast<T *>(p.y);
    const int history = p.width - 1;
    const int head = history < p.seqlen ? history : p.seqlen;  // outputs per row that see the history
    const int64_t total = (int64_t)p.batch * p.dim * head;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < total; i += (int64_t)gridDim.x * blockDim.x) {
        const int64_t row = i / head;  // b * dim + c
        const int t = (int)(i % head);
        const int64_t b = row / p.dim;
        const int c = (int)(row % p.dim);
        float acc = bias != nullptr ? to_float(bias[c]) : 0.f;
        for (int tap = 0; tap < p.width; ++tap) {
            const int tau = t + tap - history;
            const T v = tau >= 0 ? x[b * p.x_batch_stride + c * p.x_dim_stride + (int64_t)tau * p.x_seq_stride]
                                 : initial[row * history + history + tau];
            acc += to_float(w[(int64_t)c * p.width + tap]) * to_float(v);
        }
        if (p.silu) acc = acc / (1.f + expf(-acc));
        y[b * p.y_batch_stride + c * p.y_dim_stride + (int64_t)t * p.y_seq_stride] = from_float<T>(acc);
    }
}

template <typename T>
hipconv_status_t launch_conv1d_apply_initial_states(const hipconv_conv1d_params &p, hipStream_t stream) {
    if (p.x == nullptr || p.w == nullptr || p.y == nullptr || p.batch < 1 || p.dim < 1 || p.seqlen < 1 ||
        p.width < 1)
        return (hipconv_status_t)hipErrorInvalidValue;
    if (p.width == 1) return (hipconv_status_t)hipSuccess;  // no history
    if (p.initial_states == nullptr) return (hipconv_status_t)hipErrorInvalidValue;
    const int head = p.width - 1 < p.seqlen ? p.width - 1 : p.seqlen;
    const int64_t total = (int64_t)p.batch * p.dim * head;
    hipLaunchKernelGGL(conv1d_apply_initial_states_kernel<T>, dim3(grid_blocks(ceil_div(total, kStatesThreads))),
                       dim3(kStatesThreads), 0, stream, p);
    return last_launch_status();
}

template <typename T>
hipconv_status_t launch_conv1d_final_states(const hipconv_conv1d_params &p, hipStream_t stream) {
    if (p.x == nullptr || p.batch < 1 || p.dim < 1 || p.seqlen < 1 || p.width < 1)
        return (hipconv_status_t)hipErrorInvalidValue;
    if (p.width == 1) return (hipconv_status_t)hipSuccess;  // no state to keep
    if (p.final_states == nullptr) return (hipconv_status_t)hipErrorInvalidValue;
    const int64_t total = (int64_t)p.batch * p.dim * (p.width - 1);
    hipLaunchKernelGGL(conv1d_final_states_kernel<T>, dim3(grid_blocks(ceil_div(total, kStatesThreads))),
                       dim3(kStatesThreads), 0, stream, p);
    return last_launch_status();
}

}  // namespace hipconv

HIPCONV_EXPORT_LAUNCHER(conv1d_apply_initial_states, f16, __half)
HIPCONV_EXPORT_LAUNCHER(conv1d_apply_initial_states, bf16, hipconv_bf16)
HIPCONV_EXPORT_LAUNCHER(conv1d_apply_initial_states, f32, float)
HIPCONV_EXPORT_LAUNCHER(conv1d_final_states, f16, __half)
HIPCONV_EXPORT_LAUNCHER(conv1d_final_states, bf16, hipconv_bf16)
HIPCONV_EXPORT_LAUNCHER(conv1d_final_states, f32, float)
