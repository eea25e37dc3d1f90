/*
 * The matrix units: one interface for both vendors and every element type, for one wave
 * (AMD, 64 lanes) or warp (NVIDIA, 32 lanes). One step is
 *
 *     C[16 x 16] (fp32) += A[16 x 16] * B[16 x 16]          A(m, k), B(k, n); kStep = 16
 *
 * An operand reaches its fragment (FragA<T>, FragB<T>: the registers one step reads) in
 * one of three ways, freely mixed within a dtype:
 *   gather_a / gather_b   functors A(m, k), B(k, n) return exactly the elements this lane
 *                         holds (implicit GEMMs: fused_gemm.hip reads A from a time window
 *                         and builds B from the taps)
 *   load_a                A from rows in shared memory: A(m, k) = a[m * ld + k]
 *   load_b                B from rows in shared memory: B(k, n) = b[n * ld + k] (B^T
 *                         row-major, as C = A * B^T holds it: hip/gemm/tiled_gemm.h)
 * then mma(acc, fa, fb). Shorthands: mma_gathered<T>(acc, A, B) gathers both;
 * mma_rows<T>(acc, a, ld, B) loads A and gathers B (f32 gathers A as well). The result:
 * for_each(acc, fn(m, n, value)) per element this lane holds, or store_transposed(out, ld,
 * acc): out[n * ld + m] = C(m, n).
 *
 *   T             AMD (wave64)                          NVIDIA (warp32)
 *   __half        v_mfma_f32_16x16x16f16                2 x mma.m16n8k16.f32.f16
 *   hipconv_bf16  v_mfma_f32_16x16x16bf16_1k            2 x mma.m16n8k16.f32.bf16
 *   float         4 x v_mfma_f32_16x16x4f32 (fp32)      3xTF32: 2 k-halves x 2 n-halves x
 *                                                        3 mma.m16n8k8.tf32
 *
 * fp32 stays fp32-accurate on both: CDNA multiplies fp32 natively; on NVIDIA each operand
 * is split into a TF32 high part and a TF32 remainder and a*b ~ ah*bh + ah*bl + al*bh
 * (about 22 significant bits per product, accumulated in fp32).
 *
 * Lane layouts (l = lane; AMD r = l % 16, j = l / 16, i = 0..3; NVIDIA g = l / 4, q = l % 4):
 *
 *   AMD 16x16x16 (f16, bf16):  a[i] = A(r, 4j + i)     b[i] = B(4j + i, r)
 *   AMD 16x16x4 (f32), instruction i of 4:
 *                              a[i] = A(r, 4i + j)     b[i] = B(4i + j, r)
 *   AMD C:                     c[i] = C(4j + i, r)
 *
 *   NVIDIA m16n8k16, n-half h (columns 8h..8h+7), pairs packed low element first:
 *     a0 = A(g, 2q..2q+1)   a1 = A(g+8, 2q..2q+1)   a2 = A(g, 2q+8..)   a3 = A(g+8, 2q+8..)
 *     b0 = B(2q..2q+1, 8h+g)                        b1 = B(2q+8..2q+9, 8h+g)
 *   NVIDIA m16n8k8 (tf32), k-half kh (k0 = 8kh):
 *     a0 = A(g, k0+q)  a1 = A(g+8, k0+q)  a2 = A(g, k0+q+4)  a3 = A(g+8, k0+q+4)
 *     b0 = B(k0+q, 8h+g)  b1 = B(k0+q+4, 8h+g)
 *   NVIDIA C, n-half h:     c[h][0..1] = C(g, 8h+2q..+1)   c[h][2..3] = C(g+8, 8h+2q..+1)
 *
 * Row loads (load_a, load_b, mma_rows):
 *   AMD f16/bf16   one 8-byte load per lane and operand (4 consecutive k): rows and base
 *                  8-byte aligned.
 *   AMD f32        4 element loads per lane and operand (k = 4i + j).
 *   NVIDIA         ldmatrix.x4, lane l giving the address of row l % 8 of 8x8 block l / 8
 *                  (16-byte rows: 8 k of a 16-bit type, 4 of f32): per operand one for
 *                  f16/bf16, one per k-half for f32 (kept in fp32; mma() splits them into
 *                  TF32). Rows and base 16-byte aligned; conflict-free when the row stride
 *                  in bytes is an odd multiple of 16 (8 rows then cover the 32 banks).
 *     A blocks: 0 = rows 0-7, k 0-7 | 1 = rows 8-15, k 0-7 | 2 = rows 0-7, k 8-15 | 3 = rows 8-15, k 8-15
 *     B blocks: 0 = n 0-7, k 0-7    | 1 = n 0-7, k 8-15    | 2 = n 8-15, k 0-7   | 3 = n 8-15, k 8-15
 *     (k in 16-bit elements; halve them for f32) = the registers a0..a3, and b0, b1 of
 *     n-half 0 then of n-half 1.
 */
#pragma once

#include "compat.h"
#include "element.h"

namespace hipconv {
namespace mc {

constexpr int kStep = 16;  // m, n and k of one step
constexpr int kWaveSize = HIPCONV_WAVE_SIZE;

__device__ inline int lane_id() { return (int)(threadIdx.x % kWaveSize); }

#if defined(HIPCONV_PLATFORM_AMD)

typedef _Float16 half4_v __attribute__((ext_vector_type(4)));
typedef short short4_v __attribute__((ext_vector_type(4)));
typedef float float4_v __attribute__((ext_vector_type(4)));

struct Acc {
    float4_v v;
};

__device__ inline void zero(Acc &c) { c.v = float4_v{0.f, 0.f, 0.f, 0.f}; }

// Per element type: the register element, the 4-element operand vector, the k of element
// i of lane l's operand, and one step.
template <typename T> struct Step;
template <> struct Step<__half> {
    typedef _Float16 Elem;
    typedef half4_v Vec;
    __device__ static int k(int l, int i) { return 4 * (l / 16) + i; }
    __device__ static float4_v run(Vec a, Vec b, float4_v c) {
        return __builtin_amdgcn_mfma_f32_16x16x16f16(a, b, c, 0, 0, 0);
    }
};
template <> struct Step<hipconv_bf16> {
    typedef short Elem;
    typedef short4_v Vec;
    __device__ static int k(int l, int i) { return 4 * (l / 16) + i; }
    __device__ static float4_v run(Vec a, Vec b, float4_v c) {
        return __builtin_amdgcn_mfma_f32_16x16x16bf16_1k(a, b, c, 0, 0, 0);
    }
};
template <> struct Step<float> {
    typedef float Elem;
    typedef float4_v Vec;
    __device__ static int k(int l, int i) { return 4 * i + l / 16; }
    __device__ static float4_v run(Vec a, Vec b, float4_v c) {
#pragma unroll
        for (int i = 0; i < 4; ++i) c = __builtin_amdgcn_mfma_f32_16x16x4f32(a[i], b[i], c, 0, 0, 0);
        return c;
    }
};

template <typename T> struct FragA {
    typename Step<T>::Vec v;
};
template <typename T> struct FragB {
    typename Step<T>::Vec v;
};

template <typename T, typename FA> __device__ inline void gather_a(FragA<T> &f, const FA &a) {
    const int l = lane_id();
#pragma unroll
    for (int i = 0; i < 4; ++i) f.v[i] = __builtin_bit_cast(typename Step<T>::Elem, a(l % 16, Step<T>::k(l, i)));
}

template <typename T, typename FB> __device__ inline void gather_b(FragB<T> &f, const FB &b) {
    const int l = lane_id();
#pragma unroll
    for (int i = 0; i < 4; ++i) f.v[i] = __builtin_bit_cast(typename Step<T>::Elem, b(Step<T>::k(l, i), l % 16));
}

// Lane l's four elements of row l % 16 of rows[.][ld]: A's row m or B's column n (B^T's row).
template <typename T> __device__ inline typename Step<T>::Vec load_row(const T *rows, int ld) {
    typedef typename Step<T>::Vec Vec;
    const int l = lane_id();
    const T *row = rows + (l % 16) * ld;
    if constexpr (sizeof(T) == 2) {
        return *reinterpret_cast<const Vec *>(row + Step<T>::k(l, 0));  // 4 consecutive k
    } else {
        Vec v;
#pragma unroll
        for (int i = 0; i < 4; ++i) v[i] = row[Step<T>::k(l, i)];
        return v;
    }
}

template <typename T> __device__ inline void load_a(FragA<T> &f, const T *a, int ld) { f.v = load_row(a, ld); }
template <typename T> __device__ inline void load_b(FragB<T> &f, const T *b, int ld) { f.v = load_row(b, ld); }

template <typename T> __device__ inline void mma(Acc &c, const FragA<T> &a, const FragB<T> &b) {
    c.v = Step<T>::run(a.v, b.v, c.v);
}

// fn(m, n, value) for each element of C this lane holds.
template <typename F> __device__ inline void for_each(const Acc &c, const F &fn) {
    const int l = lane_id();
#pragma unroll
    for (int i = 0; i < 4; ++i) fn(4 * (l / 16) + i, l % 16, c.v[i]);
}

// out[n * ld + m] = C(m, n): one 16-byte store per lane (out 16-byte aligned, ld % 4 == 0).
__device__ inline void store_transposed(float *out, int ld, const Acc &c) {
    const int l = lane_id();
    *reinterpret_cast<float4_v *>(out + (l % 16) * ld + 4 * (l / 16)) = c.v;
}

#else /* HIPCONV_PLATFORM_NVIDIA */

struct Acc {
    float v[2][4];  // [n-half][register]
};

__device__ inline void zero(Acc &c) {
#pragma unroll
    for (int h = 0; h < 2; ++h)
#pragma unroll
        for (int i = 0; i < 4; ++i) c.v[h][i] = 0.f;
}

__device__ inline uint32_t pack(__half lo, __half hi) {
    __half2 v = __halves2half2(lo, hi);
    return *reinterpret_cast<uint32_t *>(&v);
}

__device__ inline uint32_t pack(hipconv_bf16 lo, hipconv_bf16 hi) {
    __nv_bfloat162 v = __halves2bfloat162(lo, hi);
    return *reinterpret_cast<uint32_t *>(&v);
}

template <typename T> struct Mma16x8x16;
// run(c, a, b0, b1): c += a b. run(d, a, b0, b1, c): d = a b + c, the addend kept apart from
// the result (an output's first product with its bias, conv3d's depthwise_diagonal.hip).
template <> struct Mma16x8x16<__half> {
    __device__ static void run(float (&c)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
        asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
            "{%0,%1,%2,%3};"
            : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
    }
    __device__ static void run(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1, const float (&c)[4]) {
        asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
            "{%10,%11,%12,%13};"
            : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1), "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
    }
};
template <> struct Mma16x8x16<hipconv_bf16> {
    __device__ static void run(float (&c)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
        asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
            "{%0,%1,%2,%3};"
            : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
    }
    __device__ static void run(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1, const float (&c)[4]) {
        asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
            "{%10,%11,%12,%13};"
            : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1), "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
    }
};

__device__ inline uint32_t to_tf32(float v) {
    uint32_t r;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(v));
    return r;
}

// v = hi + lo with both parts representable in TF32.
__device__ inline void split_tf32(float v, uint32_t &hi, uint32_t &lo) {
    hi = to_tf32(v);
    lo = to_tf32(v - __uint_as_float(hi));
}

__device__ inline void mma_tf32(float (&c)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
    asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// 16-bit operands: the m16n8k16 registers (A), per n-half (B).
template <typename T> struct FragA {
    uint32_t v[4];
};
template <typename T> struct FragB {
    uint32_t v[2][2];  // [n-half][b0, b1]
};
// f32 operands: per k-half the m16n8k8 registers, in fp32; mma() splits them into TF32
// (holding the split parts of a whole 2 x 2 wave tile's fragments would cost 64 registers).
template <> struct FragA<float> {
    float v[2][4];  // [k-half][a0..a3]
};
template <> struct FragB<float> {
    float v[2][2][2];  // [k-half][n-half][b0, b1]
};

template <typename T, typename FA> __device__ inline void gather_a(FragA<T> &f, const FA &a) {
    const int l = lane_id(), g = l / 4, k = 2 * (l % 4);
    f.v[0] = pack(a(g, k), a(g, k + 1));
    f.v[1] = pack(a(g + 8, k), a(g + 8, k + 1));
    f.v[2] = pack(a(g, k + 8), a(g, k + 9));
    f.v[3] = pack(a(g + 8, k + 8), a(g + 8, k + 9));
}

// b0, b1 of n-half h (16-bit).
template <typename FB> __device__ inline void gather_b_half(const FB &b, int h, uint32_t &b0, uint32_t &b1) {
    const int l = lane_id(), k = 2 * (l % 4), n = 8 * h + l / 4;
    b0 = pack(b(k, n), b(k + 1, n));
    b1 = pack(b(k + 8, n), b(k + 9, n));
}

template <typename T, typename FB> __device__ inline void gather_b(FragB<T> &f, const FB &b) {
#pragma unroll
    for (int h = 0; h < 2; ++h) gather_b_half(b, h, f.v[h][0], f.v[h][1]);
}

// a0..a3 of k-half kh (f32), split into TF32.
template <typename FA>
__device__ inline void gather_a_tf32(const FA &a, int kh, uint32_t (&hi)[4], uint32_t (&lo)[4]) {
    const int l = lane_id(), g = l / 4, k = 8 * kh + l % 4;
    split_tf32(a(g, k), hi[0], lo[0]);
    split_tf32(a(g + 8, k), hi[1], lo[1]);
    split_tf32(a(g, k + 4), hi[2], lo[2]);
    split_tf32(a(g + 8, k + 4), hi[3], lo[3]);
}

// b0, b1 of k-half kh and n-half h (f32), split into TF32.
template <typename FB>
__device__ inline void gather_b_tf32(const FB &b, int kh, int h, uint32_t (&hi)[2], uint32_t (&lo)[2]) {
    const int l = lane_id(), k = 8 * kh + l % 4, n = 8 * h + l / 4;
    split_tf32(b(k, n), hi[0], lo[0]);
    split_tf32(b(k + 4, n), hi[1], lo[1]);
}

template <typename FA> __device__ inline void gather_a(FragA<float> &f, const FA &a) {
    const int l = lane_id(), g = l / 4;
#pragma unroll
    for (int kh = 0; kh < 2; ++kh) {
        const int k = 8 * kh + l % 4;
        f.v[kh][0] = a(g, k);
        f.v[kh][1] = a(g + 8, k);
        f.v[kh][2] = a(g, k + 4);
        f.v[kh][3] = a(g + 8, k + 4);
    }
}

template <typename FB> __device__ inline void gather_b(FragB<float> &f, const FB &b) {
    const int l = lane_id();
#pragma unroll
    for (int kh = 0; kh < 2; ++kh)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int k = 8 * kh + l % 4, n = 8 * h + l / 4;
            f.v[kh][h][0] = b(k, n);
            f.v[kh][h][1] = b(k + 4, n);
        }
}

// ldmatrix.x4: the four 8x8 b16 blocks of a 16-row x 32-byte tile, lane l giving the address
// of row l % 8 of block l / 8, in the register order of an A operand (ldmatrix_a: block b
// covers rows 8 (b & 1).., bytes 16 (b >> 1)..) or of a B operand's two n-halves
// (ldmatrix_b: rows 8 (b >> 1).., bytes 16 (b & 1)..).
__device__ inline void ldmatrix_a(uint32_t (&r)[4], const void *a, int stride_bytes) {
    const int l = lane_id(), block = l / 8;
    const char *row = static_cast<const char *>(a) + (l % 8 + 8 * (block & 1)) * stride_bytes + 16 * (block >> 1);
    const unsigned addr = (unsigned)__cvta_generic_to_shared(row);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}

// ldmatrix.x4 from this lane's own row address (a shared-space byte address: row l % 8 of
// block l / 8, as ldmatrix_a orders them), for tiles whose rows are not one stride apart.
__device__ inline void ldmatrix_at(uint32_t (&r)[4], uint32_t lane_row) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(lane_row));
}

__device__ inline void ldmatrix_b(uint32_t (&r)[4], const void *b, int stride_bytes) {
    const int l = lane_id(), block = l / 8;
    const char *row = static_cast<const char *>(b) + (l % 8 + 8 * (block >> 1)) * stride_bytes + 16 * (block & 1);
    const unsigned addr = (unsigned)__cvta_generic_to_shared(row);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}

template <typename T> __device__ inline void load_a(FragA<T> &f, const T *a, int ld) {
    ldmatrix_a(f.v, a, ld * (int)sizeof(T));
}

template <typename T> __device__ inline void load_b(FragB<T> &f, const T *b, int ld) {
    uint32_t r[4];
    ldmatrix_b(r, b, ld * (int)sizeof(T));
    f.v[0][0] = r[0], f.v[0][1] = r[1], f.v[1][0] = r[2], f.v[1][1] = r[3];
}

template <> __device__ inline void load_a(FragA<float> &f, const float *a, int ld) {
#pragma unroll
    for (int kh = 0; kh < 2; ++kh) {
        uint32_t r[4];
        ldmatrix_a(r, a + 8 * kh, ld * (int)sizeof(float));
#pragma unroll
        for (int i = 0; i < 4; ++i) f.v[kh][i] = __uint_as_float(r[i]);
    }
}

template <> __device__ inline void load_b(FragB<float> &f, const float *b, int ld) {
#pragma unroll
    for (int kh = 0; kh < 2; ++kh) {
        uint32_t r[4];
        ldmatrix_b(r, b + 8 * kh, ld * (int)sizeof(float));
#pragma unroll
        for (int i = 0; i < 4; ++i) f.v[kh][i / 2][i % 2] = __uint_as_float(r[i]);
    }
}

// One k-half and n-half of an f32 step: 3 TF32 products, the small terms first.
__device__ inline void mma_3xtf32(float (&c)[4], const uint32_t (&ah)[4], const uint32_t (&al)[4],
                                  const uint32_t (&bh)[2], const uint32_t (&bl)[2]) {
    mma_tf32(c, al, bh[0], bh[1]);
    mma_tf32(c, ah, bl[0], bl[1]);
    mma_tf32(c, ah, bh[0], bh[1]);
}

// 16-bit operands: per n-half one m16n8k16.
template <typename T> __device__ inline void mma(Acc &c, const FragA<T> &a, const FragB<T> &b) {
#pragma unroll
    for (int h = 0; h < 2; ++h) Mma16x8x16<T>::run(c.v[h], a.v, b.v[h][0], b.v[h][1]);
}

// f32 operands: 3xTF32 per k-half and n-half, each operand split just before its products.
// The step's 16 products are summed on the tensor cores into a zeroed partial, which is
// then added to the accumulator on the FMA units: the tensor cores' fp32 accumulation
// does not round to nearest, and letting it carry the whole reduction made the error grow
// with k (1.7e-5 relative at k = 2592, against the 1e-5 an fp32 result must meet); per
// step it stays at 16 products, and the running sum is rounded as an fp32 sum is.
template <> __device__ inline void mma(Acc &c, const FragA<float> &a, const FragB<float> &b) {
    uint32_t ah[2][4], al[2][4];
#pragma unroll
    for (int kh = 0; kh < 2; ++kh)
#pragma unroll
        for (int i = 0; i < 4; ++i) split_tf32(a.v[kh][i], ah[kh][i], al[kh][i]);
#pragma unroll
    for (int h = 0; h < 2; ++h) {
        float partial[4] = {0.f, 0.f, 0.f, 0.f};
#pragma unroll
        for (int kh = 0; kh < 2; ++kh) {
            uint32_t bh[2], bl[2];
#pragma unroll
            for (int i = 0; i < 2; ++i) split_tf32(b.v[kh][h][i], bh[i], bl[i]);
            mma_3xtf32(partial, ah[kh], al[kh], bh, bl);
        }
#pragma unroll
        for (int i = 0; i < 4; ++i) c.v[h][i] += partial[i];
    }
}

// A from load(fa) (a fragment loader), B gathered per n-half just before its instruction.
template <typename T, typename LoadA, typename FB>
__device__ inline void mma_gather_b(Acc &c, const LoadA &load, const FB &b) {
    const int l = lane_id(), g = l / 4, k = 2 * (l % 4);
    FragA<T> a;
    load(a);
#pragma unroll
    for (int h = 0; h < 2; ++h) {
        const int n = 8 * h + g;
        Mma16x8x16<T>::run(c.v[h], a.v, pack(b(k, n), b(k + 1, n)), pack(b(k + 8, n), b(k + 9, n)));
    }
}

// f32 with both operands gathered, each k-half's A just before its instructions.
template <typename FA, typename FB> __device__ inline void mma_gather_f32(Acc &c, const FA &a, const FB &b) {
#pragma unroll
    for (int kh = 0; kh < 2; ++kh) {
        uint32_t ah[4], al[4];
        gather_a_tf32(a, kh, ah, al);
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            uint32_t bh[2], bl[2];
            gather_b_tf32(b, kh, h, bh, bl);
            mma_3xtf32(c.v[h], ah, al, bh, bl);
        }
    }
}

// fn(m, n, value) for each element of C this lane holds.
template <typename F> __device__ inline void for_each(const Acc &c, const F &fn) {
    const int l = lane_id(), g = l / 4, n = 2 * (l % 4);
#pragma unroll
    for (int h = 0; h < 2; ++h) {
        fn(g, 8 * h + n, c.v[h][0]);
        fn(g, 8 * h + n + 1, c.v[h][1]);
        fn(g + 8, 8 * h + n, c.v[h][2]);
        fn(g + 8, 8 * h + n + 1, c.v[h][3]);
    }
}

// out[n * ld + m] = C(m, n): 8 element stores per lane; with ld % 32 == 4 (e.g. 68) each
// store instruction of the warp hits 32 different banks.
__device__ inline void store_transposed(float *out, int ld, const Acc &c) {
    for_each(c, [out, ld](int m, int n, float v) { out[n * ld + m] = v; });
}

#endif

// The gathered shorthands fetch each operand just before the instructions that use it (as
// the implicit GEMMs were tuned with), rather than whole fragments first.

// C += A * B with both operands gathered: A(m, k) and B(k, n) return T.
template <typename T, typename FA, typename FB> __device__ inline void mma_gathered(Acc &c, const FA &a, const FB &b) {
#if defined(HIPCONV_PLATFORM_AMD)
    if constexpr (sizeof(T) == 2) {
        FragA<T> fa;
        FragB<T> fb;
        gather_a(fa, a);
        gather_b(fb, b);
        mma(c, fa, fb);
    } else {
        const int l = lane_id(), r = l % 16;
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            const int k = Step<float>::k(l, i);
            c.v = __builtin_amdgcn_mfma_f32_16x16x4f32(a(r, k), b(k, r), c.v, 0, 0, 0);
        }
    }
#else
    if constexpr (sizeof(T) == 2) {
        mma_gather_b<T>(c, [&a](FragA<T> &fa) { gather_a(fa, a); }, b);
    } else {
        mma_gather_f32(c, a, b);
    }
#endif
}

// The same with A(m, k) = a[m * ld + k] in shared memory (rows aligned as load_a needs):
// 16-bit A fragments are loaded whole (ldmatrix.x4 on NVIDIA, 8-byte loads on AMD) instead
// of element by element; f32 gathers A as mma_gathered() does.
template <typename T, typename FB> __device__ inline void mma_rows(Acc &c, const T *a, int ld, const FB &b) {
    if constexpr (sizeof(T) == 2) {
#if defined(HIPCONV_PLATFORM_AMD)
        FragA<T> fa;
        FragB<T> fb;
        load_a(fa, a, ld);
        gather_b(fb, b);
        mma(c, fa, fb);
#else
        mma_gather_b<T>(c, [a, ld](FragA<T> &fa) { load_a(fa, a, ld); }, b);
#endif
    } else {
        mma_gathered<float>(c, [a, ld](int m, int k) { return a[m * ld + k]; }, b);
    }
}

}  // namespace mc
}  // namespace hipconv
