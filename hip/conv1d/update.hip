/*
 * Decode-time update (hipconv.h, hipconv_conv1d_update_params): the outputs of a few new
 * tokens per row against each row's rolling state, and the state advanced in place.
 *
 *   in   x [batch, dim, seqlen] by strides (channel-first or channel-last), w [dim, width],
 *        bias [dim] or NULL, state_indices [batch] or NULL, cache_seqlens [batch] or NULL
 *   io   conv_state [n_slots, dim, state_len], row (slot, c) contiguous
 *   out  y [batch, dim, seqlen] by strides; status word on an index error
 *
 * History of row b, channel c at time tau < 0 (tau >= -(width-1)):
 *   shifting state:  conv_state[slot, c, state_len + tau]
 *   circular buffer: conv_state[slot, c, (cache_seqlens[b] + tau) mod state_len]
 * New state: shifting, the last state_len values of (state, x); circular, x[t] at
 * (cache_seqlens[b] + t) mod state_len for the last min(seqlen, state_len) tokens.
 *
 * Launch: 256 threads, grid-stride over batch*dim, channel fastest, so x, y and the state
 * rows of neighbouring threads are neighbours in memory. Each thread reads all of its
 * row's history before it writes the new state, so the update is in place without a
 * barrier (distinct rows must use distinct slots).
 */
#include "compat.h"
#include "element.h"
#include "hipconv.h"
#include "launch.h"
#include "status.h"

namespace hipconv {

constexpr int kUpdateThreads = 256;

// The state position holding time tau (< 0) of the row, for either kind of state.
__device__ inline int64_t history_position(int64_t tau, int64_t cache_seqlen, int state_len, bool circular) {
    if (!circular) return state_len + tau;
    const int64_t pos = (cache_seqlen + tau) % state_len;
    return pos < 0 ? pos + state_len : pos;
}

template <typename T> __global__ void __launch_bounds__(kUpdateThreads) conv1d_update_kernel(hipconv_conv1d_update_params p) {
    const T *x = static_cast<const T *>(p.x);
    const T *w = static_cast<const T *>(p.w);
    const T *bias = static_cast<const T *>(p.bias);
    T *y = static_cast<T *>(p.y);
    T *conv_state = static_cast<T *>(p.conv_state);
    const bool circular = p.cache_seqlens != nullptr;
    const int history = p.width - 1;
    const int64_t total = (int64_t)p.batch * p.dim;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < total; i += (int64_t)gridDim.x * blockDim.x) {
        const int b = (int)(i / p.dim);
        const int c = (int)(i % p.dim);
        const T *x_row = x + b * p.x_batch_stride + c * p.x_dim_stride;
        T *y_row = y + b * p.y_batch_stride + c * p.y_dim_stride;
        const int slot = p.state_indices != nullptr ? p.state_indices[b] : b;
        if (slot < 0) {  // padding row
            for (int t = 0; t < p.seqlen; ++t) y_row[t * p.y_seq_stride] = from_float<T>(0.f);
            continue;
        }
        const int64_t cache_seqlen = circular ? p.cache_seqlens[b] : 0;
        const bool bad_slot = slot >= p.n_slots, bad_cache = cache_seqlen < 0;
        if (bad_slot || bad_cache) {
            if (c == 0 && bad_slot) report_index_error(p.status, HIPCONV_STATUS_SLOT_OUT_OF_RANGE, b, slot);
            if (c == 0 && bad_cache) report_index_error(p.status, HIPCONV_STATUS_NEGATIVE_CACHE_SEQLEN, b, cache_seqlen);
            for (int t = 0; t < p.seqlen; ++t) y_row[t * p.y_seq_stride] = from_float<T>(__int_as_float(0x7fc00000));
            continue;
        }
        T *state = conv_state + ((int64_t)slot * p.dim + c) * p.state_len;
        const T *w_row = w + (int64_t)c * p.width;
        const float b_c = bias != nullptr ? to_float(bias[c]) : 0.f;
        for (int t = 0; t < p.seqlen; ++t) {
            float acc = b_c;
            for (int tap = 0; tap < p.width; ++tap) {
                const int64_t tau = (int64_t)t + tap - history;
                const T v = tau >= 0 ? x_row[tau * p.x_seq_stride]
                                     : state[history_position(tau, cache_seqlen, p.state_len, circular)];
                acc += to_float(w_row[tap]) * to_float(v);
            }
            if (p.silu) acc = acc / (1.f + expf(-acc));
            y_row[t * p.y_seq_stride] = from_float<T>(acc);
        }
        if (circular) {
            const int first = p.seqlen > p.state_len ? p.seqlen - p.state_len : 0;
            for (int t = first; t < p.seqlen; ++t)
                state[(cache_seqlen + t) % p.state_len] = x_row[(int64_t)t * p.x_seq_stride];
        } else {
            // Ascending k reads position k + seqlen before anything at or after it is written.
            for (int k = 0; k < p.state_len; ++k) {
                const int64_t source = (int64_t)k + p.seqlen;
                state[k] = source < p.state_len ? state[source] : x_row[(source - p.state_len) * p.x_seq_stride];
            }
        }
    }
}

template <typename T>
hipconv_status_t launch_conv1d_update(const hipconv_conv1d_update_params &p, hipStream_t stream) {
    if (p.x == nullptr || p.w == nullptr || p.y == nullptr || p.status == nullptr || p.batch < 1 || p.dim < 1 ||
        p.seqlen < 1 || p.width < 1 || p.n_slots < 0 || p.state_len < p.width - 1 ||
        (p.state_len > 0 && p.conv_state == nullptr))
        return (hipconv_status_t)hipErrorInvalidValue;
    const int64_t total = (int64_t)p.batch * p.dim;
    hipLaunchKernelGGL(conv1d_update_kernel<T>, dim3(grid_blocks(ceil_div(total, kUpdateThreads))),
                       dim3(kUpdateThreads), 0, stream, p);
    return last_launch_status();
}

}  // namespace hipconv

HIPCONV_EXPORT_LAUNCHER(conv1d_update, f16, __half)
HIPCONV_EXPORT_LAUNCHER(conv1d_update, bf16, hipconv_bf16)
HIPCONV_EXPORT_LAUNCHER(conv1d_update, f32, float)
