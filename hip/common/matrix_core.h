/*
 * One device-side interface to the matrix units, for one wave / warp:
 *
 *     C[16x16] (fp32) += A[16x16] (fp16, row-major [m][k]) * B[16x16]^T (fp16, [n][k])
 *
 * AMD (wave64):   v_mfma_f32_16x16x16f16, through __builtin_amdgcn_mfma_f32_16x16x16f16.
 * NVIDIA (warp32): tensor-core WMMA m16n16k16 (HMMA in SASS).
 *
 * Operands come from shared memory / LDS; the result goes back to shared memory
 * TRANSPOSED (element (m, n) at c[n*ld + m]) so that the epilogue can write the
 * conv output [batch, dim, seqlen] with consecutive threads on consecutive t.
 *
 * MFMA 16x16x16f16 lane layout (lane l = 0..63, i = 0..3):
 *
 *            k ->  0..3    4..7    8..11   12..15
 *   A row m:      l=m     l=m+16  l=m+32  l=m+48      a[i] = A[l%16][4*(l/16) + i]
 *   B col n:      l=n     l=n+16  l=n+32  l=n+48      b[i] = B[4*(l/16) + i][l%16]  (B as k x n)
 *   D:   lane l holds column n = l%16, rows m = 4*(l/16) + i, i = 0..3.
 *
 * On NVIDIA the fragment layout is opaque (WMMA); alignment rules: ld a multiple
 * of 8 halves / 4 floats, fragment pointers 32-byte aligned.
 */
#pragma once

#include "compat.h"

#if defined(HIPCONV_PLATFORM_NVIDIA)
#include <mma.h>
#endif

namespace hipconv {
namespace mc {

constexpr int kInstM = 16;
constexpr int kInstN = 16;
constexpr int kInstK = 16;
constexpr int kWaveSize = HIPCONV_WAVE_SIZE;

#if defined(HIPCONV_PLATFORM_AMD)

typedef _Float16 half4 __attribute__((ext_vector_type(4)));
typedef float float4_v __attribute__((ext_vector_type(4)));

struct FragA { half4 v; };
struct FragB { half4 v; };
struct FragC { float4_v v; };

__device__ inline int lane_id() { return (int)(threadIdx.x % kWaveSize); }

__device__ inline void zero(FragC &c) { c.v = float4_v{0.f, 0.f, 0.f, 0.f}; }

// tile[m][k], row stride ld (halves)
__device__ inline void load_a(FragA &a, const __half *tile, int ld) {
    const int l = lane_id();
    const _Float16 *p = reinterpret_cast<const _Float16 *>(tile) + (l % 16) * ld + 4 * (l / 16);
    a.v = half4{p[0], p[1], p[2], p[3]};
}

// tile[n][k], row stride ld (halves)
__device__ inline void load_b(FragB &b, const __half *tile, int ld) {
    const int l = lane_id();
    const _Float16 *p = reinterpret_cast<const _Float16 *>(tile) + (l % 16) * ld + 4 * (l / 16);
    b.v = half4{p[0], p[1], p[2], p[3]};
}

__device__ inline void mma(FragC &c, const FragA &a, const FragB &b) {
    c.v = __builtin_amdgcn_mfma_f32_16x16x16f16(a.v, b.v, c.v, 0, 0, 0);
}

// element (m, n) -> out[n*ld + m]
__device__ inline void store_c_transposed(float *out, int ld, const FragC &c) {
    const int l = lane_id();
    float *p = out + (l % 16) * ld + 4 * (l / 16);
    p[0] = c.v[0];
    p[1] = c.v[1];
    p[2] = c.v[2];
    p[3] = c.v[3];
}

#else /* HIPCONV_PLATFORM_NVIDIA */

namespace wmma = nvcuda::wmma;

struct FragA { wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> f; };
struct FragB { wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> f; };
struct FragC { wmma::fragment<wmma::accumulator, 16, 16, 16, float> f; };

__device__ inline void zero(FragC &c) { wmma::fill_fragment(c.f, 0.0f); }

// tile[m][k], row stride ld (halves)
__device__ inline void load_a(FragA &a, const __half *tile, int ld) {
    wmma::load_matrix_sync(a.f, tile, ld);
}

// tile[n][k] is B (k x n) in column-major order with leading dimension ld
__device__ inline void load_b(FragB &b, const __half *tile, int ld) {
    wmma::load_matrix_sync(b.f, tile, ld);
}

__device__ inline void mma(FragC &c, const FragA &a, const FragB &b) {
    wmma::mma_sync(c.f, a.f, b.f, c.f);
}

// element (m, n) -> out[n*ld + m]
__device__ inline void store_c_transposed(float *out, int ld, const FragC &c) {
    wmma::store_matrix_sync(out, c.f, ld, wmma::mem_col_major);
}

#endif

}  // namespace mc
}  // namespace hipconv
