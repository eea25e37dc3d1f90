/*
 * The matrix units with operands gathered element by element, for one wave / warp:
 *
 *     C[16 x 16] (fp32) += A[16 x 16] * B[16 x 16]          A(m, k), B(k, n) are functors
 *
 * matrix_core.h loads its operands as strided tiles; implicit-GEMM kernels (fused_gemm.hip)
 * instead build A from a time window and B from the taps, so every lane asks the functors
 * for exactly the elements its registers hold. mma_rows() takes A as rows in shared memory
 * and loads 16-bit A fragments whole (ldmatrix / 8-byte loads). Per element type:
 *
 *   T             AMD (wave64)                          NVIDIA (warp32)
 *   __half        v_mfma_f32_16x16x16f16                2 x mma.m16n8k16.f32.f16
 *   hipconv_bf16  v_mfma_f32_16x16x16bf16_1k            2 x mma.m16n8k16.f32.bf16
 *   float         4 x v_mfma_f32_16x16x4f32 (fp32)      3xTF32: 2 k-steps x 2 n-halves x 3 mma.m16n8k8.tf32
 *
 * fp32 stays fp32-accurate on both: CDNA multiplies fp32 natively; on NVIDIA each operand
 * is split into a TF32 high part and a TF32 remainder and a*b ~ ah*bh + ah*bl + al*bh
 * (about 22 significant bits per product, accumulated in fp32).
 *
 * Lane layouts (l = lane, AMD i = 0..3; NVIDIA g = l / 4, q = l % 4):
 *
 *   AMD 16x16x16 (f16, bf16):  a[i] = A(l%16, 4*(l/16)+i)    b[i] = B(4*(l/16)+i, l%16)
 *   AMD 16x16x4 (f32):         a    = A(l%16, l/16)           b    = B(l/16, l%16)
 *   AMD C:                     c[i] = C(4*(l/16)+i, l%16)
 *
 *   NVIDIA m16n8k16, n-half h (columns 8h..8h+7), pairs packed low element first:
 *     a0 = A(g, 2q..2q+1)   a1 = A(g+8, 2q..2q+1)   a2 = A(g, 2q+8..)   a3 = A(g+8, 2q+8..)
 *     b0 = B(2q..2q+1, 8h+g)                        b1 = B(2q+8..2q+9, 8h+g)
 *   NVIDIA m16n8k8 (tf32):  a0 = A(g, q)  a1 = A(g+8, q)  a2 = A(g, q+4)  a3 = A(g+8, q+4)
 *                           b0 = B(q, 8h+g)  b1 = B(q+4, 8h+g)
 *   NVIDIA C, n-half h:     c[h][0..1] = C(g, 8h+2q..+1)   c[h][2..3] = C(g+8, 8h+2q..+1)
 */
#pragma once

#include "compat.h"
#include "element.h"

namespace hipconv {
namespace gather {

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

// The 16-bit operand types: register element and instruction.
template <typename T> struct Mfma16;
template <> struct Mfma16<__half> {
    typedef _Float16 Elem;
    typedef half4_v Vec;
    __device__ static float4_v run(Vec a, Vec b, float4_v c) {
        return __builtin_amdgcn_mfma_f32_16x16x16f16(a, b, c, 0, 0, 0);
    }
};
template <> struct Mfma16<hipconv_bf16> {
    typedef short Elem;
    typedef short4_v Vec;
    __device__ static float4_v run(Vec a, Vec b, float4_v c) {
        return __builtin_amdgcn_mfma_f32_16x16x16bf16_1k(a, b, c, 0, 0, 0);
    }
};

// Half-precision operands: one 16x16x16 instruction.
template <typename T> struct Mma {
    template <typename FA, typename FB> __device__ static void run(Acc &c, const FA &a, const FB &b) {
        typedef typename Mfma16<T>::Elem Elem;
        const int l = lane_id(), r = l % 16, k = 4 * (l / 16);
        typename Mfma16<T>::Vec av, bv;
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            av[i] = __builtin_bit_cast(Elem, a(r, k + i));
            bv[i] = __builtin_bit_cast(Elem, b(k + i, r));
        }
        c.v = Mfma16<T>::run(av, bv, c.v);
    }
};

template <> struct Mma<float> {
    template <typename FA, typename FB> __device__ static void run(Acc &c, const FA &a, const FB &b) {
        const int l = lane_id(), r = l % 16, k = l / 16;
#pragma unroll
        for (int k0 = 0; k0 < 16; k0 += 4)
            c.v = __builtin_amdgcn_mfma_f32_16x16x4f32(a(r, k0 + k), b(k0 + k, r), c.v, 0, 0, 0);
    }
};

template <typename T> struct MmaRows {
    template <typename FB> __device__ static void run(Acc &c, const T *a, int stride, const FB &b) {
        typedef typename Mfma16<T>::Elem Elem;
        const int l = lane_id(), r = l % 16, k = 4 * (l / 16);
        const typename Mfma16<T>::Vec av = *reinterpret_cast<const typename Mfma16<T>::Vec *>(a + r * stride + k);
        typename Mfma16<T>::Vec bv;
#pragma unroll
        for (int i = 0; i < 4; ++i) bv[i] = __builtin_bit_cast(Elem, b(k + i, r));
        c.v = Mfma16<T>::run(av, bv, c.v);
    }
};

// fn(m, n, value) for each element of C this lane holds.
template <typename F> __device__ inline void for_each(const Acc &c, const F &fn) {
    const int l = lane_id();
#pragma unroll
    for (int i = 0; i < 4; ++i) fn(4 * (l / 16) + i, l % 16, c.v[i]);
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
template <> struct Mma16x8x16<__half> {
    __device__ static void run(float (&c)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
        asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
            "{%0,%1,%2,%3};"
            : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
    }
};
template <> struct Mma16x8x16<hipconv_bf16> {
    __device__ static void run(float (&c)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
        asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
            "{%0,%1,%2,%3};"
            : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
    }
};

// Half-precision operands: per n-half one m16n8k16.
template <typename T> struct Mma {
    template <typename FA, typename FB> __device__ static void run(Acc &c, const FA &a, const FB &b) {
        const int l = lane_id(), g = l / 4, k = 2 * (l % 4);
        const uint32_t av[4] = {pack(a(g, k), a(g, k + 1)), pack(a(g + 8, k), a(g + 8, k + 1)),
                                pack(a(g, k + 8), a(g, k + 9)), pack(a(g + 8, k + 8), a(g + 8, k + 9))};
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int n = 8 * h + g;
            Mma16x8x16<T>::run(c.v[h], av, pack(b(k, n), b(k + 1, n)), pack(b(k + 8, n), b(k + 9, n)));
        }
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

// fp32 operands: 3xTF32 per k-step of 8 and n-half; the small terms first.
template <> struct Mma<float> {
    template <typename FA, typename FB> __device__ static void run(Acc &c, const FA &a, const FB &b) {
        const int l = lane_id(), g = l / 4, q = l % 4;
#pragma unroll
        for (int k0 = 0; k0 < 16; k0 += 8) {
            uint32_t ah[4], al[4];
            split_tf32(a(g, k0 + q), ah[0], al[0]);
            split_tf32(a(g + 8, k0 + q), ah[1], al[1]);
            split_tf32(a(g, k0 + q + 4), ah[2], al[2]);
            split_tf32(a(g + 8, k0 + q + 4), ah[3], al[3]);
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int n = 8 * h + g;
                uint32_t bh0, bl0, bh1, bl1;
                split_tf32(b(k0 + q, n), bh0, bl0);
                split_tf32(b(k0 + q + 4, n), bh1, bl1);
                mma_tf32(c.v[h], al, bh0, bh1);
                mma_tf32(c.v[h], ah, bl0, bl1);
                mma_tf32(c.v[h], ah, bh0, bh1);
            }
        }
    }
};

// The four 8x8 blocks of a 16x16 b16 tile, in the register order of an m16n8k16 A operand:
// lane l gives the address of row l%8 of block l/8 (rows +8 for odd blocks, k +8 for 2, 3).
__device__ inline void ldmatrix_a(uint32_t (&r)[4], const void *a, int stride_bytes) {
    const int l = lane_id(), block = l / 8;
    const char *row = static_cast<const char *>(a) + (l % 8 + 8 * (block & 1)) * stride_bytes + 16 * (block >> 1);
    const unsigned addr = (unsigned)__cvta_generic_to_shared(row);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}

template <typename T> struct MmaRows {
    template <typename FB> __device__ static void run(Acc &c, const T *a, int stride, const FB &b) {
        const int l = lane_id(), g = l / 4, k = 2 * (l % 4);
        uint32_t av[4];
        ldmatrix_a(av, a, stride * (int)sizeof(T));
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int n = 8 * h + g;
            Mma16x8x16<T>::run(c.v[h], av, pack(b(k, n), b(k + 1, n)), pack(b(k + 8, n), b(k + 9, n)));
        }
    }
};

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

#endif

// fp32 has no whole-fragment load: gather as mma() does.
template <> struct MmaRows<float> {
    template <typename FB> __device__ static void run(Acc &c, const float *a, int stride, const FB &b) {
        Mma<float>::run(c, [a, stride](int m, int k) { return a[m * stride + k]; }, b);
    }
};

// C += A * B for one 16 x 16 x 16 step; A(m, k) and B(k, n) return T.
template <typename T, typename FA, typename FB> __device__ inline void mma(Acc &c, const FA &a, const FB &b) {
    Mma<T>::run(c, a, b);
}

// The same with A(m, k) = a[m * stride + k] in shared memory, a and stride 16-byte aligned:
// 16-bit A fragments are loaded whole (ldmatrix.x4 on NVIDIA, 8-byte loads on AMD)
// instead of element by element; fp32 gathers as mma() does.
template <typename T, typename FB>
__device__ inline void mma_rows(Acc &c, const T *a, int stride, const FB &b) {
    MmaRows<T>::run(c, a, stride, b);
}

}  // namespace gather
}  // namespace hipconv
