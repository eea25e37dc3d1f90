/*
 * The sequences of a conv1d pass at sequence boundaries (hipconv/conv1d.h): the batch rows,
 * or with cu_seqlens the sequences of a packed batch. Shared by the forward's boundary
 * passes (states.hip) and the backward (backward*.hip). Bad cu_seqlens entries are
 * reported into the status word and their sequences marked not ok; nothing is addressed
 * through them.
 */
#pragma once

#include "compat.h"
#include "hipconv/conv1d.h"
#include "status.h"

namespace hipconv {

// Where one sequence's inputs and outputs start, and its length; ok = false for a sequence
// whose cu_seqlens entries are bad (reported, then skipped).
struct Sequence {
    int64_t x_start;
    int64_t y_start;
    int64_t length;
    bool ok;
};

__host__ __device__ inline int64_t sequence_count(const hipconv_conv1d_sequences_params &q) {
    return q.cu_seqlens != nullptr ? q.n_seqs : q.conv.batch;
}

__device__ inline Sequence sequence(const hipconv_conv1d_sequences_params &q, int64_t seq, bool report) {
    const hipconv_conv1d_params &p = q.conv;
    if (q.cu_seqlens == nullptr)
        return Sequence{seq * p.x_batch_stride, seq * p.y_batch_stride, p.seqlen, true};
    const int64_t start = q.cu_seqlens[seq], end = q.cu_seqlens[seq + 1], total = p.seqlen;
    if (report) {
        if (seq == 0 && start != 0) report_index_error(q.status, HIPCONV_STATUS_CU_SEQLENS_START, 0, start);
        if (start < 0 || start > total)
            report_index_error(q.status, HIPCONV_STATUS_CU_SEQLENS_RANGE, seq, start);
        if (end < 0 || end > total)
            report_index_error(q.status, HIPCONV_STATUS_CU_SEQLENS_RANGE, seq + 1, end);
        else if (end < start)
            report_index_error(q.status, HIPCONV_STATUS_CU_SEQLENS_DECREASING, seq + 1, end);
        if (seq == q.n_seqs - 1 && end != total)
            report_index_error(q.status, HIPCONV_STATUS_CU_SEQLENS_END, seq + 1, end);
    }
    const bool ok = 0 <= start && start <= end && end <= total;
    return Sequence{start * p.x_seq_stride, start * p.y_seq_stride, end - start, ok};
}

}  // namespace hipconv
