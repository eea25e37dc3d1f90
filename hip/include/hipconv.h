/*
 * hipconv C ABI: the only interface between the HIP kernels and Rust.
 *
 * - Plain C, no HIP or CUDA types: streams and events are opaque handles
 *   (hipStream_t / cudaStream_t underneath), so bindgen sees one definition
 *   that serves both backends.
 * - Every entry point returns the runtime's own error code (0 = success) and
 *   never prints or exits. Kernel launchers take a stream and are asynchronous.
 * - One params struct per kind of kernel (the forwards share hipconv_conv1d_params; the
 *   boundary passes, the update and the pipeline stages have their own); launchers take
 *   it by pointer and pass it to the kernel by value.
 * - Exported kernel launchers are named hipconv_<op>_<dtype>.
 */
#ifndef HIPCONV_H
#define HIPCONV_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The runtime's error code (hipError_t or cudaError_t), 0 on success. */
typedef int32_t hipconv_status_t;
/* hipStream_t / cudaStream_t; NULL is the default stream. */
typedef void *hipconv_stream_t;
/* hipEvent_t / cudaEvent_t. */
typedef void *hipconv_event_t;

/* ------------------------------------------------------------------ runtime */

typedef struct hipconv_device_info {
    char name[256];
    /* gcnArchName on AMD ("gfx90a:sramecc+:xnack-"), "sm_90" on NVIDIA. */
    char arch[64];
    int64_t total_memory_bytes;
    int32_t multiprocessors;
    int32_t warp_size;
    int32_t major;
    int32_t minor;
    int64_t l2_cache_bytes;
} hipconv_device_info;

/* "rocm" or "cuda": the backend this library was compiled for. */
const char *hipconv_backend_name(void);
/* Symbolic name and description of a runtime error code. */
const char *hipconv_error_name(hipconv_status_t status);
const char *hipconv_error_string(hipconv_status_t status);

hipconv_status_t hipconv_device_count(int32_t *count);
hipconv_status_t hipconv_set_device(int32_t ordinal);
hipconv_status_t hipconv_device_info_get(int32_t ordinal, hipconv_device_info *info);

hipconv_status_t hipconv_malloc(void **ptr, size_t bytes);
hipconv_status_t hipconv_free(void *ptr);
hipconv_status_t hipconv_memcpy_htod_async(void *dst, const void *src, size_t bytes,
                                           hipconv_stream_t stream);
hipconv_status_t hipconv_memcpy_dtoh_async(void *dst, const void *src, size_t bytes,
                                           hipconv_stream_t stream);
hipconv_status_t hipconv_memcpy_dtod_async(void *dst, const void *src, size_t bytes,
                                           hipconv_stream_t stream);
/* Sets `bytes` bytes at dst to `byte`, in stream order. */
hipconv_status_t hipconv_memset_async(void *dst, int32_t byte, size_t bytes, hipconv_stream_t stream);

hipconv_status_t hipconv_stream_create(hipconv_stream_t *stream);
hipconv_status_t hipconv_stream_destroy(hipconv_stream_t stream);
hipconv_status_t hipconv_stream_synchronize(hipconv_stream_t stream);

hipconv_status_t hipconv_event_create(hipconv_event_t *event);
hipconv_status_t hipconv_event_destroy(hipconv_event_t event);
hipconv_status_t hipconv_event_record(hipconv_event_t event, hipconv_stream_t stream);
hipconv_status_t hipconv_event_synchronize(hipconv_event_t event);
hipconv_status_t hipconv_event_elapsed_ms(float *ms, hipconv_event_t start, hipconv_event_t end);

/* Stream capture into an executable graph (hipGraphExec_t / cudaGraphExec_t). */
typedef void *hipconv_graph_exec_t;
hipconv_status_t hipconv_stream_begin_capture(hipconv_stream_t stream);
/* Ends the capture and instantiates it; the captured graph itself is released. */
hipconv_status_t hipconv_stream_end_capture(hipconv_stream_t stream, hipconv_graph_exec_t *exec);
hipconv_status_t hipconv_graph_launch(hipconv_graph_exec_t exec, hipconv_stream_t stream);
hipconv_status_t hipconv_graph_exec_destroy(hipconv_graph_exec_t exec);

/* ------------------------------------------- device-detected index errors */

/*
 * Index arguments that live on the device (state_indices, cache_seqlens, cu_seqlens) are
 * checked by the kernels that read them. A bad one is never used to address memory: the
 * row it belongs to is skipped, and the first such error is kept in a status word,
 * int32_t[HIPCONV_STATUS_WORDS] on the device = {code, position, value, 0}, code 0 = none.
 * The caller reads the word when it next waits for the stream, and zeroes it.
 */
#define HIPCONV_STATUS_WORDS 4
#define HIPCONV_STATUS_OK 0
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

/* ------------------------------------------------------- conv1d: forwards */

/*
 * y[b,c,t] = act(bias[c] + sum_tap w[c,tap] * x[b,c,t+tap-(width-1)]),  x[..,<0] = 0
 *   x, y: element strides per axis, so channel-first [batch, dim, seqlen] and
 *         channel-last [batch, seqlen, dim] are both views without a copy
 *   w [dim, width] contiguous; bias [dim] or NULL; silu: 0 or 1. fp32 accumulation.
 *   initial_states [batch, dim, width-1] contiguous or NULL: the inputs before t = 0
 *         (x[b, c, -k] = initial_states[b, c, width-1-k]); zeros without it. The forward
 *         kernels compute with zeros; hipconv_conv1d_sequence_heads, launched after
 *         them, rewrites the outputs that see the history.
 *   final_states [batch, dim, width-1] contiguous: written by hipconv_conv1d_final_states
 *         with the last width-1 inputs (from initial_states where seqlen < width-1);
 *         the forward kernels ignore it. It must not overlap initial_states.
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

/*
 * The sequences of a forward, for the passes at their boundaries (the forward kernels
 * never see this): the batch rows where cu_seqlens is NULL, else a packed batch.
 *   cu_seqlens [n_seqs+1] int32 on the device: conv.batch is 1 and conv.seqlen the total
 *         tokens; sequence s is times cu_seqlens[s] .. cu_seqlens[s+1]-1, and the states
 *         are [n_seqs, dim, width-1]. The forward kernels run over the packed tokens as
 *         one sequence; sequence_heads then recomputes the outputs that must not see the
 *         previous sequence.
 *   status: the status word (HIPCONV_STATUS_*), required with cu_seqlens.
 */
typedef struct hipconv_conv1d_sequences_params {
    hipconv_conv1d_params conv;
    const int32_t *cu_seqlens;
    int32_t n_seqs;
    int32_t *status;
} hipconv_conv1d_sequences_params;

/*
 * The first min(width-1, length) outputs of each sequence, recomputed with the sequence's
 * own history: initial_states (or zeros where NULL). Without cu_seqlens the sequences are
 * the batch rows, and the pass is needed only with initial_states. With cu_seqlens it
 * separates the sequences of a packed batch the forward kernels ran over as one.
 */
typedef hipconv_conv1d_sequences_params hipconv_conv1d_sequence_heads_params;
hipconv_status_t hipconv_conv1d_sequence_heads_f16(const hipconv_conv1d_sequences_params *params,
                                                   hipconv_stream_t stream);
hipconv_status_t hipconv_conv1d_sequence_heads_bf16(const hipconv_conv1d_sequences_params *params,
                                                    hipconv_stream_t stream);
hipconv_status_t hipconv_conv1d_sequence_heads_f32(const hipconv_conv1d_sequences_params *params,
                                                   hipconv_stream_t stream);

/* final_states[b, c, k] = x[b, c, seqlen-(width-1)+k] (initial_states or 0 before t = 0),
 * per sequence of cu_seqlens where given ([n_seqs, dim, width-1]).
 * Reads x and initial_states, writes final_states only; nothing to do for width 1. */
typedef hipconv_conv1d_sequences_params hipconv_conv1d_final_states_params;
hipconv_status_t hipconv_conv1d_final_states_f16(const hipconv_conv1d_sequences_params *params,
                                                 hipconv_stream_t stream);
hipconv_status_t hipconv_conv1d_final_states_bf16(const hipconv_conv1d_sequences_params *params,
                                                  hipconv_stream_t stream);
hipconv_status_t hipconv_conv1d_final_states_f32(const hipconv_conv1d_sequences_params *params,
                                                 hipconv_stream_t stream);

/* Direct: streaming kernels on the vector units, any width: widths 1 ..
 * HIPCONV_STREAM_MAX_WIDTH in hip/conv1d/direct_channel_first.hip (contiguous
 * channel-first x and y) and direct_channel_last.hip (channel-last), everything else in
 * the tiled kernel of hip/conv1d/direct.hip, whose entry points these are. */
#define HIPCONV_STREAM_MAX_WIDTH 4
typedef hipconv_conv1d_params hipconv_conv1d_direct_params;
hipconv_status_t hipconv_conv1d_direct_f16(const hipconv_conv1d_params *params,
                                           hipconv_stream_t stream);
hipconv_status_t hipconv_conv1d_direct_bf16(const hipconv_conv1d_params *params,
                                            hipconv_stream_t stream);
hipconv_status_t hipconv_conv1d_direct_f32(const hipconv_conv1d_params *params,
                                           hipconv_stream_t stream);

/*
 * FusedGemm: implicit im2col GEMM on matrix cores (hip/conv1d/fused_gemm.hip): each tile
 * multiplies its own channel's taps only. Widths 1 .. HIPCONV_FUSED_GEMM_MAX_WIDTH.
 * fp32 is computed fp32-accurately (CDNA fp32 MFMA; 3xTF32 on NVIDIA).
 */
#define HIPCONV_FUSED_GEMM_MAX_WIDTH 512
typedef hipconv_conv1d_params hipconv_conv1d_fused_gemm_params;
hipconv_status_t hipconv_conv1d_fused_gemm_f16(const hipconv_conv1d_params *params,
                                               hipconv_stream_t stream);
hipconv_status_t hipconv_conv1d_fused_gemm_bf16(const hipconv_conv1d_params *params,
                                                hipconv_stream_t stream);
hipconv_status_t hipconv_conv1d_fused_gemm_f32(const hipconv_conv1d_params *params,
                                               hipconv_stream_t stream);

/* --------------------------------------------------- conv1d: decode update */

/*
 * One decoding step against rolling states, which it advances in place:
 *   x, y [batch, dim, seqlen] by strides (seqlen = the new tokens, >= 1)
 *   conv_state [n_slots, dim, state_len] contiguous, state_len >= width-1
 *   state_indices [batch] int32 or NULL (row b uses slot b): a negative index is a padding
 *         row (its y is 0, no state is read or written); >= n_slots is an error (status,
 *         y of the row NaN, state untouched)
 *   cache_seqlens [batch] int32 or NULL: with it each slot is a circular buffer and
 *         cache_seqlens[b] (>= 0) the position the row's next token goes to; without it
 *         the state is the last state_len inputs in order, shifted left
 *   y[b,c,t] = act(bias[c] + sum_tap w[c,tap] * xx[t + tap]), xx = (the last width-1
 *         inputs of the state, then x[b,c,:])
 * Distinct rows must use distinct slots. Each thread reads its rows' history before it
 * writes y and the new state (hip/conv1d/update.hip: 16-byte channel groups for the common
 * widths, one thread per (b, c) otherwise); no host synchronisation, so it can be captured
 * in a graph.
 */
typedef struct hipconv_conv1d_update_params {
    const void *x;
    const void *w;
    const void *bias;
    void *y;
    void *conv_state;
    const int32_t *state_indices;
    const int32_t *cache_seqlens;
    int32_t *status;
    int32_t batch;
    int32_t dim;
    int32_t seqlen;
    int32_t width;
    int32_t n_slots;
    int32_t state_len;
    int64_t x_batch_stride;
    int64_t x_dim_stride;
    int64_t x_seq_stride;
    int64_t y_batch_stride;
    int64_t y_dim_stride;
    int64_t y_seq_stride;
    int32_t silu;
} hipconv_conv1d_update_params;

hipconv_status_t hipconv_conv1d_update_f16(const hipconv_conv1d_update_params *params,
                                           hipconv_stream_t stream);
hipconv_status_t hipconv_conv1d_update_bf16(const hipconv_conv1d_update_params *params,
                                            hipconv_stream_t stream);
hipconv_status_t hipconv_conv1d_update_f32(const hipconv_conv1d_update_params *params,
                                           hipconv_stream_t stream);

/* ------------------------------------ conv1d: explicit pipeline (Im2colGemm) */

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

hipconv_status_t hipconv_conv1d_preprocess_input_f16(const hipconv_conv1d_preprocess_input_params *params,
                                                     hipconv_stream_t stream);
hipconv_status_t hipconv_conv1d_preprocess_input_bf16(const hipconv_conv1d_preprocess_input_params *params,
                                                      hipconv_stream_t stream);
hipconv_status_t hipconv_conv1d_preprocess_input_f32(const hipconv_conv1d_preprocess_input_params *params,
                                                     hipconv_stream_t stream);

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

hipconv_status_t hipconv_conv1d_preprocess_weight_f16(const hipconv_conv1d_preprocess_weight_params *params,
                                                      hipconv_stream_t stream);
hipconv_status_t hipconv_conv1d_preprocess_weight_bf16(const hipconv_conv1d_preprocess_weight_params *params,
                                                       hipconv_stream_t stream);
hipconv_status_t hipconv_conv1d_preprocess_weight_f32(const hipconv_conv1d_preprocess_weight_params *params,
                                                      hipconv_stream_t stream);

/*
 * gemm_abt (hip/conv1d/gemm_abt.hip): the shared tiled GEMM (hip/gemm/tiled_gemm.h) with
 * the conv1d output epilogue.
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

hipconv_status_t hipconv_conv1d_gemm_abt_f16(const hipconv_conv1d_gemm_abt_params *params,
                                             hipconv_stream_t stream);
hipconv_status_t hipconv_conv1d_gemm_abt_bf16(const hipconv_conv1d_gemm_abt_params *params,
                                              hipconv_stream_t stream);
hipconv_status_t hipconv_conv1d_gemm_abt_f32(const hipconv_conv1d_gemm_abt_params *params,
                                             hipconv_stream_t stream);

/* ----------------------------------------------------------- the tiled GEMM */

/*
 * The shared tiled GEMM's tile configuration (hip/gemm/tiled_gemm.h), the same for every
 * element type and epilogue: block_m x block_n outputs per block, k-step block_k,
 * waves_m x waves_n waves, inst_m x inst_n x inst_k one step of the matrix-core layer.
 */
typedef struct hipconv_gemm_config {
    int32_t block_m;
    int32_t block_n;
    int32_t block_k;
    int32_t waves_m;
    int32_t waves_n;
    int32_t inst_m;
    int32_t inst_n;
    int32_t inst_k;
    int32_t wave_size;
} hipconv_gemm_config;

void hipconv_gemm_config_get(hipconv_gemm_config *config);

#ifdef __cplusplus
}
#endif

#endif /* HIPCONV_H */
