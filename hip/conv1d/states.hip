/*
 * Sequence boundaries of the forward (hipconv/conv1d.h): initial states, packed variable-length
 * batches, final states. The forward kernels themselves run with zero history over each
 * batch row (or over a packed batch as one row); only the first width-1 outputs of each
 * sequence see a different history, so one small pass after them rewrites those, and
 * writes the final states in the same launch; the fast kernels stay as they are.
 *
 * A sequence is a batch row b (times 0 .. seqlen-1, states row b), or with cu_seqlens
 * sequence s of the packed row (times cu_seqlens[s] .. cu_seqlens[s+1]-1, states row s).
 * Bad cu_seqlens entries are reported in the status word and their sequences skipped;
 * nothing is addressed through them.
 *
 * conv1d_sequence_boundaries: thread (seq, c, j), j < width-1, grid-stride over
 *   sequences*dim*(width-1), j fastest (final-state writes coalesced; x reads are strided,
 *   and small). Launch: 256 threads, as a follower of the forward (dependent_launch.h): on
 *   sm_90 it starts during the forward's last blocks and does all its reads (x, w, bias,
 *   initial_states, cu_seqlens: nothing the forward writes), then waits for the forward
 *   before it writes y and final_states.
 *   heads (initial_states or cu_seqlens): y at time j < length of the sequence, recomputed
 *     with the history initial_states[seq, c, width-1+tau] (0 without it) for tau < 0;
 *     bias and SiLU as the forward, fp32 accumulation.
 *   final_states (not NULL): final_states[seq, c, j] = x at time length-(width-1)+j of the
 *     sequence, from initial_states[seq, c, length+j] (or 0) where that time is < 0.
 */
#include "compat.h"
#include "dependent_launch.h"
#include "element.h"
#include "hipconv/conv1d.h"
#include "launch.h"
#include "sequences.h"

namespace hipconv {

constexpr int kStatesThreads = 256;
constexpr int kGatheredTaps = 4;  // widths up to this gather a head's loads before its sums

template <typename T>
__global__ void __launch_bounds__(kStatesThreads) conv1d_sequence_boundaries_kernel(hipconv_conv1d_sequences_params q,
                                                                                   bool heads) {
    const hipconv_conv1d_params &p = q.conv;
    const T *x = static_cast<const T *>(p.x);
    const T *w = static_cast<const T *>(p.w);
    const T *bias = static_cast<const T *>(p.bias);
    const T *initial = static_cast<const T *>(p.initial_states);
    T *y = static_cast<T *>(p.y);
    T *final_states = static_cast<T *>(p.final_states);
    const int history = p.width - 1;
    const int64_t total = sequence_count(q) * p.dim * history;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < total; i += (int64_t)gridDim.x * blockDim.x) {
        const QuotientRemainder by_tap = divide(i, history);
        const int64_t row = by_tap.quotient;  // seq * dim + c
        const int j = (int)by_tap.remainder;
        const QuotientRemainder by_channel = divide(row, p.dim);
        const int64_t seq = by_channel.quotient;
        const int c = (int)by_channel.remainder;
        const Sequence s = sequence(q, seq, c == 0 && j == 0);
        if (!s.ok) continue;
        const T *x_c = x + s.x_start + c * p.x_dim_stride;
        // Reads (none of them written by the forward) before the wait, writes after it.
        T last = from_float<T>(0.f);
        if (final_states != nullptr) {
            const int64_t tau = s.length - history + j;
            if (tau >= 0)
                last = x_c[tau * p.x_seq_stride];
            else if (initial != nullptr)
                last = initial[row * history + j + s.length];
        }
        const bool head = heads && j < s.length;
        float acc = 0.f;
        if (head) {
            acc = bias != nullptr ? to_float(bias[c]) : 0.f;
            // Where tap's input lies: x, the initial states before time 0, or nowhere (0).
            auto source = [&](int tap) -> const T * {
                const int tau = j + tap - history;
                if (tau >= 0) return x_c + (int64_t)tau * p.x_seq_stride;
                return initial != nullptr ? initial + row * history + history + tau : nullptr;
            };
            const T *w_c = w + (int64_t)c * p.width;
            if (p.width <= kGatheredTaps) {
                // Every tap's loads issued before any is used (one predicated load each; the
                // branches that pick its source do not wait for the loads before), then the
                // same sums in the same order as below. (Raw values: a conversion next to its
                // load would wait for it.)
                T xs[kGatheredTaps], ws[kGatheredTaps];
#pragma unroll
                for (int tap = 0; tap < kGatheredTaps; ++tap) {
                    const T *src = tap < p.width ? source(tap) : nullptr;
                    xs[tap] = src != nullptr ? *src : from_float<T>(0.f);
                    ws[tap] = tap < p.width ? w_c[tap] : from_float<T>(0.f);
                }
#pragma unroll
                for (int tap = 0; tap < kGatheredTaps; ++tap)
                    if (tap < p.width) acc += to_float(ws[tap]) * to_float(xs[tap]);
            } else {
                for (int tap = 0; tap < p.width; ++tap) {
                    const T *src = source(tap);
                    acc += to_float(w_c[tap]) * (src != nullptr ? to_float(*src) : 0.f);
                }
            }
            if (p.silu) acc = acc / (1.f + expf(-acc));
        }
        wait_for_primary();
        if (final_states != nullptr) final_states[i] = last;
        if (head) y[s.y_start + c * p.y_dim_stride + (int64_t)j * p.y_seq_stride] = from_float<T>(acc);
    }
    wait_for_primary();  // a follower never ends before the forward it follows
}

inline bool valid_sequences(const hipconv_conv1d_sequences_params &q) {
    const hipconv_conv1d_params &p = q.conv;
    if (p.x == nullptr || p.batch < 1 || p.dim < 1 || p.seqlen < 1 || p.width < 1) return false;
    if (q.cu_seqlens != nullptr && (p.batch != 1 || q.n_seqs < 1 || q.status == nullptr)) return false;
    return true;
}

template <typename T>
hipconv_status_t launch_conv1d_sequence_boundaries(const hipconv_conv1d_sequences_params &q, hipStream_t stream) {
    const hipconv_conv1d_params &p = q.conv;
    if (!valid_sequences(q)) return (hipconv_status_t)hipErrorInvalidValue;
    const bool heads = p.initial_states != nullptr || q.cu_seqlens != nullptr;
    if (heads && (p.w == nullptr || p.y == nullptr)) return (hipconv_status_t)hipErrorInvalidValue;
    if (p.width == 1 || (!heads && p.final_states == nullptr)) return (hipconv_status_t)hipSuccess;  // nothing to do
    const int64_t total = sequence_count(q) * p.dim * (p.width - 1);
    return launch_dependent(conv1d_sequence_boundaries_kernel<T>, dim3(grid_blocks(ceil_div(total, kStatesThreads))),
                            dim3(kStatesThreads), stream, q, heads);
}

}  // namespace hipconv

HIPCONV_EXPORT_PER_DTYPE(conv1d_sequence_boundaries, hipconv_conv1d_sequences_params)
