/*
 * The conv3d GEMMs' output stage (im3col_gemm.hip, implicit_gemm.hip): a block's fp32 tile
 * of C in shared memory, c[j * ld + i] = C(m0 + i, co0 + j), gets bias and SiLU and is
 * written to y[n, co, od, oh, ow] through y_stride (m = ((n*out[0] + od)*out[1] + oh)*out[2]
 * + ow). The tile is contiguous along m.
 *
 *   channel-last y (y_stride[1] == 1, NDHWC): a thread takes one position i and a run of
 *     16 bytes' worth of channels j..j+7 (f32: 4); the lanes of a wave take consecutive i,
 *     so each read c[j' * ld + i] of the run hits consecutive banks, and the run is one
 *     16-byte store where y allows (OutputView::vector), element stores otherwise.
 *   otherwise (NCDHW and any other strides): a thread takes a run of 16 bytes' worth of
 *     positions i0..i0+7 (f32: 4) of one channel, consecutive threads on consecutive runs;
 *     the run is one 16-byte store along ow where it lies in one output row of a y with w
 *     stride 1 and is aligned (OutputView::vector_rows, checked per run), element stores
 *     otherwise.
 * The y offset of each row's position is computed once per tile into `rows` (shared).
 *
 * transpose_quad (NVIDIA): the 4 x 4 transpose of 32-bit words across each quad of lanes
 * that the kernels writing y from mma accumulators use (implicit_gemm_sm90.hip,
 * implicit_gemm_halo.hip): a lane's 16-bit pairs of four column groups become one group's
 * 8 consecutive channels, one 16-byte store.
 */
#pragma once

#include <cstring>

#include "activation.h"
#include "compat.h"
#include "element.h"
#include "geometry.h"

namespace hipconv {
namespace conv3d {

// Where and how a launch writes y (host-built, passed to the kernel by value).
struct OutputView {
    void *y;
    const void *bias;
    int64_t stride[kTensorAxes];
    int32_t out[kAxes];
    int32_t silu;
    int32_t channel_last;  // y_stride[1] == 1
    int32_t vector;        // channel-last runs of 16 bytes are one aligned store
    int32_t vector_rows;   // otherwise: y is 16-byte aligned with w stride 1 (runs along ow)
};

template <typename T> inline OutputView output_view(const hipconv_conv3d_params &p) {
    constexpr int kVec = 16 / sizeof(T);
    OutputView o{};
    o.y = p.y;
    o.bias = p.bias;
    for (int a = 0; a < kTensorAxes; ++a) o.stride[a] = p.y_stride[a];
    for (int a = 0; a < kAxes; ++a) o.out[a] = p.out[a];
    o.silu = p.silu;
    o.channel_last = p.y_stride[1] == 1;
    const int cout_g = p.cout / p.groups;
    o.vector = o.channel_last && (reinterpret_cast<uintptr_t>(p.y) & 15) == 0 && p.y_stride[0] % kVec == 0 &&
               p.y_stride[2] % kVec == 0 && p.y_stride[3] % kVec == 0 && p.y_stride[4] % kVec == 0 &&
               (p.groups == 1 || cout_g % kVec == 0);
    o.vector_rows = !o.channel_last && (reinterpret_cast<uintptr_t>(p.y) & 15) == 0 && p.y_stride[4] == 1;
    return o;
}

template <typename T> __device__ inline uint32_t element_bits(T v) {
    element_bits_t<T> bits;
    memcpy(&bits, &v, sizeof(T));
    return (uint32_t)bits;
}

// v rounded to T, as one 16-byte store at dst (16-byte aligned; 16 / sizeof(T) values).
template <typename T> __device__ inline void store16_rounded(T *dst, const float (&v)[16 / sizeof(T)]) {
    uint32_t w[4];
#pragma unroll
    for (int q = 0; q < 4; ++q) {
        if constexpr (sizeof(T) == 2) {
            w[q] = element_bits(from_float<T>(v[2 * q])) | element_bits(from_float<T>(v[2 * q + 1])) << 16;
        } else {
            w[q] = __float_as_uint(v[q]);
        }
    }
    *reinterpret_cast<uint4 *>(dst) = make_uint4(w[0], w[1], w[2], w[3]);
}

#if defined(HIPCONV_PLATFORM_NVIDIA)
// Lane q of each quad holds w[0..3]; afterwards w[k] is what lane k held as w[q]. Two
// exchange rounds (bit 0, then bit 1 of q), two shuffles each; all 32 lanes call this.
__device__ inline void transpose_quad(uint32_t (&w)[4], int q) {
#pragma unroll
    for (int bit = 1; bit <= 2; bit *= 2) {
        const bool upper = (q & bit) != 0;
#pragma unroll
        for (int c = 0; c < 4; ++c) {
            if ((c & bit) != 0) continue;
            const uint32_t got = __shfl_xor_sync(0xffffffffu, upper ? w[c] : w[c | bit], bit);
            if (upper)
                w[c] = got;
            else
                w[c | bit] = got;
        }
    }
}
#endif

// The y offset (elements) of output position m's channel 0.
__device__ inline int64_t output_offset(const OutputView &o, int64_t m) {
    QuotientRemainder q = divide(m, o.out[2]);
    const int64_t ow = q.remainder;
    q = divide(q.quotient, o.out[1]);
    const int64_t oh = q.remainder;
    q = divide(q.quotient, o.out[0]);
    return q.quotient * o.stride[0] + q.remainder * o.stride[2] + oh * o.stride[3] + ow * o.stride[4];
}

// Writes the tile (rows x cols of it valid, rows <= bm, cols <= bn; co0 a multiple of 8 where
// o.vector) with all kThreads threads of the block; `rows_smem` holds bm int64 (shared).
// Starts and ends with the block in step (it synchronises internally).
template <typename T, int kThreads>
__device__ inline void write_output_tile(const OutputView &o, const float *c, int ld, int bm, int bn, int64_t m0,
                                         int rows, int co0, int cols, int64_t *rows_smem) {
    constexpr int kVec = 16 / sizeof(T);
    for (int i = threadIdx.x; i < rows; i += kThreads) rows_smem[i] = output_offset(o, m0 + i);
    __syncthreads();
    T *y = static_cast<T *>(o.y);
    const T *bias = static_cast<const T *>(o.bias);
    if (o.channel_last) {
        const int runs = (cols + kVec - 1) / kVec;
        for (int item = threadIdx.x; item < bm * runs; item += kThreads) {
            const int i = item % bm, j0 = (item / bm) * kVec;
            if (i >= rows) continue;
            T *dst = y + rows_smem[i] + (int64_t)(co0 + j0);
            float v[kVec];
#pragma unroll
            for (int e = 0; e < kVec; ++e) {
                const int j = min(j0 + e, bn - 1);  // past cols: computed, never stored
                float s = c[j * ld + i];
                if (bias != nullptr && j0 + e < cols) s += to_float(bias[co0 + j0 + e]);
                v[e] = activate_fast(s, o.silu != 0);
            }
            if (o.vector && j0 + kVec <= cols) {
                store16_rounded<T>(dst, v);
            } else {
#pragma unroll
                for (int e = 0; e < kVec; ++e)
                    if (j0 + e < cols) dst[e] = from_float<T>(v[e]);  // channel stride 1
            }
        }
    } else {
        // Runs of kVec positions (i0 .. i0 + kVec - 1) of one channel: one 16-byte store where
        // the run lies in one output row of a w-contiguous y and is aligned, else elements.
        const int runs = (bm + kVec - 1) / kVec;
        for (int item = threadIdx.x; item < runs * cols; item += kThreads) {
            const int i0 = (item % runs) * kVec, j = item / runs;
            if (i0 >= rows) continue;
            const float b = bias != nullptr ? to_float(bias[co0 + j]) : 0.f;
            const int64_t channel = (int64_t)(co0 + j) * o.stride[1];
            float v[kVec];
#pragma unroll
            for (int e = 0; e < kVec; ++e)  // past rows: computed, never stored
                v[e] = activate_fast(c[j * ld + min(i0 + e, bm - 1)] + b, o.silu != 0);
            const int64_t first = rows_smem[i0] + channel;
            bool whole = o.vector_rows && i0 + kVec <= rows && first % kVec == 0;
            if (whole) whole = divide(m0 + i0, o.out[2]).remainder + kVec <= o.out[2];
            if (whole) {
                store16_rounded<T>(y + first, v);
            } else {
#pragma unroll
                for (int e = 0; e < kVec; ++e)
                    if (i0 + e < rows) y[rows_smem[i0 + e] + channel] = from_float<T>(v[e]);
            }
        }
    }
    __syncthreads();
}

}  // namespace conv3d
}  // namespace hipconv
