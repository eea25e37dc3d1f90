/*
 * hipconv C ABI: causal depthwise conv1d (hip/conv1d/).
 *
 *   forwards        hipconv_conv1d_params            direct, fused_gemm
 *   boundary pass   hipconv_conv1d_sequences_params  sequence_boundaries
 *   decode update   hipconv_conv1d_update_params     update
 *   explicit pipeline (Im2colGemm), one params struct per stage:
 *                   hipconv_conv1d_preprocess_input_params, _preprocess_weight_params,
 *                   _gemm_abt_params
 * The boundary passes and the update embed the forward's params (member `conv`) and add
 * their own. Every entry point is hipconv_conv1d_<op>_{f16,bf16,f32}
 * (HIPCONV_DECLARE_PER_DTYPE); it takes its params by pointer and passes them to the
 * kernel by value.
 */
#ifndef HIPCONV_CONV1D_H
#define HIPCONV_CONV1D_H

#include "runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------- status codes */

/* Codes of the device status word (hipconv/runtime.h) that conv1d's kernels report. */
/* state_indices[position] = value >= n_slots */
#define HIPCONV_STATUS_SLOT_OUT_OF_RANGE 1
/* cache_seqlens[position] = value < 0 */
#define HIPCONV_STATUS_NEGATIVE_CACHE_SEQLEN 2
/* cu_seqlens[0] = value != 0 */
#define HIPCONV_STATUS_CU_SEQLENS_START 3
/* cu_seqlens[position] = value < cu_seqlens[position-1] */
#define HIPCONV_STATUS_CU_SEQLENS_DECREASING 4
/* cu_seqlens[position] = value outside 0 .. total tokens */
#define HIPCONV_STATUS_CU_SEQLENS_RANGE 5
/* cu_seqlens[n_seqs] = value != total tokens */
#define HIPCONV_STATUS_CU_SEQLENS_END 6

/* -------------------------------------------------------------- forwards */

/*
 * y[b,c,t] = act(bias[c] + sum_tap w[c,tap] * x[b,c,t+tap-(width-1)]),  x[..,<0] = 0
 *   x, y: element strides per axis, so channel-first [batch, dim, seqlen] and
 *         channel-last [batch, seqlen, dim] are both views without a copy
 *   w [dim, width] contiguous; bias [dim] or NULL; silu: 0 or 1. fp32 accumulation.
 *   initial_states [batch, dim, width-1] contiguous or NULL: the inputs before t = 0
 *         (x[b, c, -k] = initial_states[b, c, width-1-k]); zeros without it. The forward
 *         kernels compute with zeros; hipconv_conv1d_sequence_boundaries, launched
 *         after them, rewrites the outputs that see the history.
 *   final_states [batch, dim, width-1] contiguous or NULL: written by
 *         hipconv_conv1d_sequence_boundaries with the last width-1 inputs (from
 *         initial_states where seqlen < width-1); the forward kernels ignore it. It must
 *         not overlap initial_states.
 * One params struct for every forward algorithm.
 */
typedef struct hipconv_conv1d_params {
    const void *x;
    const void *w;
    const void *bias;
    void *y;
    int32_t batch;
    int32_t dim;
    int32_t seqlen;
    int32_t width;
    int64_t x_batch_stride;
    int64_t x_dim_stride;
    int64_t x_seq_stride;
    int64_t y_batch_stride;
    int64_t y_dim_stride;
    int64_t y_seq_stride;
    int32_t silu;
    const void *initial_states;
    void *final_states;
} hipconv_conv1d_params;

/* Direct: streaming kernels on the vector units, any width: widths 1 ..
 * HIPCONV_STREAM_MAX_WIDTH in the streaming kernels of hip/conv1d/direct_paths.h
 * (contiguous channel-first x and y, or channel-last), everything else in the tiled
 * kernel of hip/conv1d/direct.hip, whose entry points these are. */
#define HIPCONV_STREAM_MAX_WIDTH 64
HIPCONV_DECLARE_PER_DTYPE(hipconv_conv1d_direct, hipconv_conv1d_params)

/*
 * FusedGemm: implicit im2col GEMM on matrix cores (hip/conv1d/fused_gemm.hip): each tile
 * multiplies its own channel's taps only. Widths 1 .. HIPCONV_FUSED_GEMM_MAX_WIDTH.
 * fp32 is computed fp32-accurately (CDNA fp32 MFMA; 3xTF32 on NVIDIA).
 */
#define HIPCONV_FUSED_GEMM_MAX_WIDTH 512
HIPCONV_DECLARE_PER_DTYPE(hipconv_conv1d_fused_gemm, hipconv_conv1d_params)

/* -------------------------------------------------------- boundary pass */

/*
 * The sequences of a forward, for the passes at their boundaries (the forward kernels
 * never see this): the batch rows where cu_seqlens is NULL, else a packed batch.
 *   cu_seqlens [n_seqs+1] int32 on the device: conv.batch is 1 and conv.seqlen the total
 *         tokens; sequence s is times cu_seqlens[s] .. cu_seqlens[s+1]-1, and the states
 *         are [n_seqs, dim, width-1]. The forward kernels run over the packed tokens as
 *         one sequence; sequence_boundaries then recomputes the outputs that must not
 *         see the previous sequence.
 *   status: the status word (HIPCONV_STATUS_CU_SEQLENS_*), required with cu_seqlens.
 */
typedef struct hipconv_conv1d_sequences_params {
    hipconv_conv1d_params conv;
    const int32_t *cu_seqlens;
    int32_t n_seqs;
    int32_t *status;
} hipconv_conv1d_sequences_params;

/*
 * sequence_boundaries, one launch after the forward kernels:
 * - heads, with initial_states or cu_seqlens: the first min(width-1, length) outputs of
 *   each sequence, recomputed with the sequence's own history: initial_states (or zeros
 *   where NULL). Without cu_seqlens the sequences are the batch rows. With cu_seqlens it
 *   separates the sequences of a packed batch the forward kernels ran over as one.
 * - final_states, where not NULL: final_states[b, c, k] = x[b, c, seqlen-(width-1)+k]
 *   (initial_states or 0 before t = 0), per sequence of cu_seqlens where given
 *   ([n_seqs, dim, width-1]).
 * Nothing to do (and no launch) for width 1, or with neither part asked for.
 * On NVIDIA sm_90 and newer it is a programmatic dependent launch: it may start before the
 * kernel before it in the stream has ended, reads x, w, bias, initial_states and
 * cu_seqlens at once, and waits for that kernel before it writes y and final_states. So
 * launch it right after the forward (which writes none of those inputs), not after a
 * kernel that produces them.
 */
HIPCONV_DECLARE_PER_DTYPE(hipconv_conv1d_sequence_boundaries, hipconv_conv1d_sequences_params)

/* --------------------------------------------------------- decode update */

/*
 * One decoding step against rolling states, which it advances in place:
 *   conv  the forward's params: x, y [batch, dim, seqlen] by strides (seqlen = the new
 *         tokens, >= 1), w, bias, silu as for a forward; conv.initial_states and
 *         conv.final_states must be NULL (the states are conv_state)
 *   conv_state [n_slots, dim, state_len] contiguous, state_len >= width-1
 *   state_indices [batch] int32 or NULL (row b uses slot b): a negative index is a padding
 *         row (its y is 0, no state is read or written); >= n_slots is an error (status,
 *         y of the row NaN, state untouched)
 *   cache_seqlens [batch] int32 or NULL: with it each slot is a circular buffer and
 *         cache_seqlens[b] (>= 0) the position the row's next token goes to; without it
 *         the state is the last state_len inputs in order, shifted left
 *   status: the status word (HIPCONV_STATUS_SLOT_OUT_OF_RANGE, _NEGATIVE_CACHE_SEQLEN)
 *   y[b,c,t] = act(bias[c] + sum_tap w[c,tap] * xx[t + tap]), xx = (the last width-1
 *         inputs of the state, then x[b,c,:])
 * Distinct rows must use distinct slots. Each thread reads its rows' history before it
 * writes y and the new state (hip/conv1d/update.hip: 16-byte channel groups for the common
 * widths, one thread per (b, c) otherwise); no host synchronisation, so it can be captured
 * in a graph.
 */
typedef struct hipconv_conv1d_update_params {
    hipconv_conv1d_params conv;
    void *conv_state;
    const int32_t *state_indices;
    const int32_t *cache_seqlens;
    int32_t *status;
    int32_t n_slots;
    int32_t state_len;
} hipconv_conv1d_update_params;

HIPCONV_DECLARE_PER_DTYPE(hipconv_conv1d_update, hipconv_conv1d_update_params)

/* -------------------------------------------------------------- backward */

/*
 * The backward of a forward with the same conv params (hip/conv1d/backward*.hip):
 *   z = bias + conv(x, w) (history from conv.initial_states), y = act(z), and from dy:
 *   dz[b,c,t]      = dy[b,c,t] * act'(z[b,c,t])          (z recomputed, nothing stored)
 *   dx[b,c,tau]    = sum_k w[c,k] * dz[b,c,tau+(width-1)-k]   over times < seqlen
 *                    + dfinal_states[b,c,tau-(seqlen-(width-1))] where that index >= 0
 *   dweight[c,k]   = sum_{b,t} dz[b,c,t] * x[b,c,t+k-(width-1)]   (history included)
 *   dbias[c]       = sum_{b,t} dz[b,c,t]
 *   dinitial_states[b,c,j] = the same sum as dx at tau = j-(width-1) < 0, plus
 *                    dfinal_states[b,c,j-seqlen] where j >= seqlen (a sequence shorter
 *                    than width-1 hands part of its initial states on as final states).
 *   conv   x, w, bias (or NULL), silu, initial_states (or NULL), sizes and strides of x;
 *          conv.y is not read (may be NULL); dy and dx use x's strides;
 *          conv.final_states must be NULL.
 *   dfinal_states, dinitial_states [rows, dim, width-1] contiguous or NULL (rows: batch,
 *          or n_seqs with cu_seqlens)
 *   dweight [dim, width] and dbias [dim] (or NULL): fp32 where *_f32 is 1, else T; they
 *          are overwritten, never accumulated into.
 *   cu_seqlens, n_seqs, status: a packed batch as for the boundary passes (conv.batch 1).
 *   workspace: workspace_bytes (>= hipconv_conv1d_backward_workspace_*) of device memory.
 * Deterministic: dweight and dbias are reduced from per-tile partials in a fixed order
 * (no atomics), so equal inputs give bitwise-equal gradients on every run.
 */
typedef struct hipconv_conv1d_backward_params {
    hipconv_conv1d_params conv;
    const void *dy;
    void *dx;
    const void *dfinal_states;
    void *dinitial_states;
    void *dweight;
    void *dbias;
    int32_t dweight_f32;
    int32_t dbias_f32;
    const int32_t *cu_seqlens;
    int32_t n_seqs;
    int32_t *status;
    void *workspace;
    int64_t workspace_bytes;
} hipconv_conv1d_backward_params;

HIPCONV_DECLARE_PER_DTYPE(hipconv_conv1d_backward, hipconv_conv1d_backward_params)

/* The workspace bytes hipconv_conv1d_backward_<dtype> needs for these params: from their
 * sizes, strides and cu_seqlens presence, with every tensor pointer taken to be 16-byte
 * aligned (nothing is dereferenced; a launch with less workspace than its path needs
 * fails with hipErrorInvalidValue before any kernel runs). */
#define HIPCONV_DECLARE_BACKWARD_WORKSPACE_(dtype, unused)                                     \
    hipconv_status_t hipconv_conv1d_backward_workspace_##dtype(const hipconv_conv1d_backward_params *params, \
                                                               int64_t *bytes);
HIPCONV_FOR_EACH_DTYPE(HIPCONV_DECLARE_BACKWARD_WORKSPACE_, unused)

/* ------------------------------------ explicit pipeline (Im2colGemm) */

/*
 * preprocess_input (hip/conv1d/preprocess_input.hip): x [batch, dim, seqlen]
 * (channel-first, contiguous) -> a [batch*seqlen, width*dim]
 *   a[b*seqlen + t, tap*dim + c] = x[b, c, t + tap - (width-1)], 0 where that index < 0.
 * Implicit transpose, causal left padding and im2col in one kernel; an exact copy.
 */
typedef struct hipconv_conv1d_preprocess_input_params {
    const void *x;
    void *a;
    int32_t batch;
    int32_t dim;
    int32_t seqlen;
    int32_t width;
} hipconv_conv1d_preprocess_input_params;

HIPCONV_DECLARE_PER_DTYPE(hipconv_conv1d_preprocess_input, hipconv_conv1d_preprocess_input_params)

/*
 * preprocess_weight (hip/conv1d/preprocess_weight.hip): w [dim, width] (depthwise) ->
 * b [dim, width*dim] (dense, block-diagonal per tap)
 *   b[co, tap*dim + ci] = (ci == co) ? w[co, tap] : 0
 */
typedef struct hipconv_conv1d_preprocess_weight_params {
    const void *w;
    void *b;
    int32_t dim;
    int32_t width;
} hipconv_conv1d_preprocess_weight_params;

HIPCONV_DECLARE_PER_DTYPE(hipconv_conv1d_preprocess_weight, hipconv_conv1d_preprocess_weight_params)

/*
 * gemm_abt (hip/conv1d/gemm_abt.hip): the shared tiled GEMM (hipconv/gemm.h) with the
 * conv1d output epilogue.
 *   a [m, k] row-major (leading dimension lda), b [n, k] row-major (ldb):
 *     C[row, col] = sum_k a[row, k] * b[col, k]      (fp32 accumulation)
 *   The epilogue writes C straight into the conv output layout y [batch, n, seqlen]
 *   (channel-first, contiguous), rounding once:
 *     row = bt*seqlen + t  ->  y[(bt*n + col)*seqlen + t]   (m = batch*seqlen)
 * Runs on matrix cores: MFMA (wave64) on AMD, mma.sync (warp32) on NVIDIA; f32 stays
 * fp32-accurate (fp32 MFMA; 3xTF32 on NVIDIA).
 */
typedef struct hipconv_conv1d_gemm_abt_params {
    const void *a;
    const void *b;
    void *y;
    int32_t m;
    int32_t n;
    int32_t k;
    int64_t lda;
    int64_t ldb;
    int32_t seqlen;
} hipconv_conv1d_gemm_abt_params;

HIPCONV_DECLARE_PER_DTYPE(hipconv_conv1d_gemm_abt, hipconv_conv1d_gemm_abt_params)

#ifdef __cplusplus
}
#endif

#endif /* HIPCONV_CONV1D_H */
