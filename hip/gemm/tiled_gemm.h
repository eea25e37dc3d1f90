/*
 * tiled_gemm: C = A * B^T on matrix cores, generic over the element type and the epilogue.
 *
 *   in   a [m, k] row-major (lda >= k)      T = __half, hipconv_bf16 or float
 *        b [n, k] row-major (ldb >= k)
 *   out  what the Epilogue writes: it receives each block's fp32 tile of C (GemmTile) in
 *        shared memory, C[row, col] = sum_k a[row, k] * b[col, k]
 *   fp32 accumulation; f32 operands stay fp32-accurate (matrix_core.h: fp32 MFMA on AMD,
 *   3xTF32 on NVIDIA).
 *
 * Block tile 64 x 64, k-step 64; 2 x 2 waves, each 32 x 32 = 2 x 2 steps of 16x16x16
 * (matrix_core.h: one MFMA on AMD for f16/bf16, four for f32; two mma.sync on NVIDIA for
 * f16/bf16, twelve TF32 ones for f32):
 *
 *                 n0 ............ n0+63
 *               +-------+-------+
 *        m0     | wave0 | wave1 |   each wave:  +----+----+
 *          :    | 32x32 | 32x32 |               |16² |16² |  2 x 2 steps,
 *          :    +-------+-------+               +----+----+  k = 16 per step,
 *          :    | wave2 | wave3 |               |16² |16² |  4 steps per k-step
 *        m0+63  |       |       |               +----+----+
 *               +-------+-------+
 *
 * Per k-step the block stages A[m0:+64, k0:+64] and B[n0:+64, k0:+64] in shared memory as
 * rows of GemmLayout<T>::kLds elements (72 for 16-bit types, 68 for f32: 64 plus one
 * 16-byte chunk, so a row is an odd number of 16-byte units and the fragment loads of 8 or
 * 16 rows fall in distinct banks). The global loads are 16-byte vectors when lda / ldb and k
 * are multiples of 16 bytes' worth of elements and the base is 16-byte aligned; elements,
 * with zero fill at the M, N and K edges, otherwise. The next k-step's loads are issued into
 * registers before the current one's steps and stored after them (TileStage), so a k-step
 * costs its multiplies rather than a memory latency. Each wave then loads its fragments
 * from the staged rows (ldmatrix on NVIDIA) and runs its 2 x 2 x 4 steps.
 *
 * Epilogue: each wave stores its fp32 accumulators into shared memory transposed, c[n][m]
 * with row stride kGemmLdsC = 68 floats; after a barrier every thread of the block calls
 * epilogue(tile) (GemmTile: where the tile is, its origin, the problem's m and n), and a
 * barrier follows before the buffer is reused. Transposed, the tile is contiguous along m,
 * which lets an epilogue whose output runs along m (conv1d's time axis) write coalesced.
 *
 * Launch (launch_tiled_gemm): 4 waves (256 threads on AMD, 128 on NVIDIA), static shared
 * memory GemmLayout<T>::kSharedBytes; 1-D grid-stride loop over ceil(m/64) * ceil(n/64)
 * tiles, consecutive blocks along n (they share A rows).
 */
#pragma once

#include "compat.h"
#include "element.h"
#include "launch.h"
#include "matrix_core.h"

namespace hipconv {

constexpr int kGemmBlockM = 64;
constexpr int kGemmBlockN = 64;
constexpr int kGemmBlockK = 64;  // 4 k-steps at the conv1d seed shape: fewer latency-bound steps
constexpr int kGemmWavesM = 2;
constexpr int kGemmWavesN = 2;
constexpr int kGemmThreads = kGemmWavesM * kGemmWavesN * mc::kWaveSize;
constexpr int kGemmWaveTileM = kGemmBlockM / kGemmWavesM;  // 32
constexpr int kGemmWaveTileN = kGemmBlockN / kGemmWavesN;  // 32
constexpr int kGemmFragsM = kGemmWaveTileM / mc::kStep;    // 2
constexpr int kGemmFragsN = kGemmWaveTileN / mc::kStep;    // 2
constexpr int kGemmLdsC = kGemmBlockM + 4;                 // floats per row of c[n][m]
constexpr int kGemmOutputBytes = kGemmBlockN * kGemmLdsC * 4;

static_assert(kGemmBlockM == kGemmBlockN, "TileStage serves A and B with one shape");
static_assert(kGemmBlockK % mc::kStep == 0, "k-step must be a multiple of the step's k");
static_assert(kGemmLdsC % 16 == 4, "store_transposed is conflict-free for ld = 4 mod 16");

// Shared-memory layout of the operand tiles for element type T.
template <typename T> struct GemmLayout {
    static constexpr int kVec = 16 / sizeof(T);        // elements per 16-byte chunk
    static constexpr int kLds = kGemmBlockK + kVec;     // elements per staged row: 72 / 68
    static constexpr int kOperandBytes = 2 * kGemmBlockM * kLds * (int)sizeof(T);
    static constexpr int kSharedBytes = kOperandBytes > kGemmOutputBytes ? kOperandBytes : kGemmOutputBytes;
    // Steps of a k-step unrolled: all for 16-bit types; for f32 one at a time on NVIDIA,
    // where the unrolled 3xTF32 steps beside the registers of the next k-step's f32 tiles
    // (64 per thread) spilled, and one at a time ran at 182 registers without spills.
#if defined(HIPCONV_PLATFORM_NVIDIA)
    static constexpr int kUnroll = sizeof(T) == 4 ? 1 : kGemmBlockK / mc::kStep;
#else
    static constexpr int kUnroll = kGemmBlockK / mc::kStep;
#endif
    static_assert((kLds * sizeof(T)) % 32 == 16, "rows an odd number of 16-byte units");
};

// The operands of one GEMM.
struct GemmProblem {
    const void *a;
    const void *b;
    int32_t m;
    int32_t n;
    int32_t k;
    int64_t lda;
    int64_t ldb;
};

// One block's result as an epilogue sees it: C[m0 + i, n0 + j] = c[j * kLd + i] for
// i < kBlockM, j < kBlockN, where m0 + i < m and n0 + j < n (the rest is padding).
struct GemmTile {
    static constexpr int kBlockM = kGemmBlockM;
    static constexpr int kBlockN = kGemmBlockN;
    static constexpr int kThreads = kGemmThreads;  // the block's threads, all in the epilogue
    static constexpr int kLd = kGemmLdsC;
    const float *c;  // shared memory, c[j * kLd + i]
    int m0;
    int n0;
    int m;
    int n;
};

// The 16 / sizeof(T) elements at s as one 16-byte vector, loaded element by element: s[i]
// where inside(i), else zero.
template <typename T, typename Inside> __device__ inline uint4 load_padded(const T *s, const Inside &inside) {
#if defined(HIPCONV_PLATFORM_NVIDIA)
    constexpr int kVec = 16 / sizeof(T);
    alignas(16) T e[kVec];
    for (int i = 0; i < kVec; ++i) e[i] = inside(i) ? s[i] : from_float<T>(0.0f);
    return *reinterpret_cast<const uint4 *>(e);
#else
    // Built as 32-bit words: clang would keep an array of 16-bit elements in scratch.
    constexpr int kPerWord = 4 / sizeof(T);
    const element_bits_t<T> *bits = reinterpret_cast<const element_bits_t<T> *>(s);
    uint32_t w[4];
#pragma unroll
    for (int q = 0; q < 4; ++q) {
        w[q] = 0;
#pragma unroll
        for (int h = 0; h < kPerWord; ++h) {
            const int i = q * kPerWord + h;
            w[q] |= (inside(i) ? (uint32_t)bits[i] : 0u) << (16 * h);
        }
    }
    return make_uint4(w[0], w[1], w[2], w[3]);
#endif
}

// Rows [row0, row0+64) x cols [k0, k0+kGemmBlockK) of a row-major matrix, held in registers
// between issue() (the global loads) and commit() (the stores into tile[64][kLds]), so that
// the next k-step's loads are in flight while the current one is multiplied.
template <typename T> struct TileStage {
    static constexpr int kVec = GemmLayout<T>::kVec;
    static constexpr int kChunksPerRow = kGemmBlockK / kVec;
    static constexpr int kChunks = kGemmBlockM * kChunksPerRow;
    static constexpr int kIters = (kChunks + kGemmThreads - 1) / kGemmThreads;
    uint4 v[kIters];

    __device__ void issue(const T *src, int64_t ld, int rows, int cols, int row0, int k0, bool vector_ok) {
#pragma unroll
        for (int it = 0; it < kIters; ++it) {
            const int chunk = threadIdx.x + it * kGemmThreads;
            const int row = row0 + chunk / kChunksPerRow;
            const int col = k0 + (chunk % kChunksPerRow) * kVec;
            const T *s = src + (int64_t)row * ld + col;
            if (chunk < kChunks && vector_ok && row < rows && col < cols) {
                // ld % kVec == 0 and cols % kVec == 0: the chunk is either wholly in or out.
                v[it] = *reinterpret_cast<const uint4 *>(s);
            } else {
                v[it] = load_padded(s, [&](int i) { return chunk < kChunks && row < rows && col + i < cols; });
            }
        }
    }

    __device__ void commit(T *tile) const {
#pragma unroll
        for (int it = 0; it < kIters; ++it) {
            const int chunk = threadIdx.x + it * kGemmThreads;
            if (chunk < kChunks)
                *reinterpret_cast<uint4 *>(tile + (chunk / kChunksPerRow) * GemmLayout<T>::kLds +
                                           (chunk % kChunksPerRow) * kVec) = v[it];
        }
    }
};

template <typename T, typename Epilogue>
__global__ void __launch_bounds__(kGemmThreads) tiled_gemm_kernel(GemmProblem p, Epilogue epilogue) {
    constexpr int kVec = GemmLayout<T>::kVec;
    constexpr int kLds = GemmLayout<T>::kLds;
    constexpr int kUnroll = GemmLayout<T>::kUnroll;
    __shared__ __align__(128) unsigned char smem[GemmLayout<T>::kSharedBytes];
    T *a_tile = reinterpret_cast<T *>(smem);
    T *b_tile = a_tile + kGemmBlockM * kLds;
    float *c_tile = reinterpret_cast<float *>(smem);

    const T *a = static_cast<const T *>(p.a);
    const T *b = static_cast<const T *>(p.b);
    const bool a_vec = p.lda % kVec == 0 && p.k % kVec == 0 && (reinterpret_cast<uintptr_t>(a) & 15) == 0;
    const bool b_vec = p.ldb % kVec == 0 && p.k % kVec == 0 && (reinterpret_cast<uintptr_t>(b) & 15) == 0;

    const int wave = threadIdx.x / mc::kWaveSize;
    const int wave_m = (wave / kGemmWavesN) * kGemmWaveTileM;
    const int wave_n = (wave % kGemmWavesN) * kGemmWaveTileN;
    const int64_t tiles_n = ceil_div(p.n, kGemmBlockN);
    const int64_t tiles = ceil_div(p.m, kGemmBlockM) * tiles_n;

    for (int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const int m0 = (int)(tile / tiles_n) * kGemmBlockM;
        const int n0 = (int)(tile % tiles_n) * kGemmBlockN;

        mc::Acc acc[kGemmFragsM][kGemmFragsN];
        for (int i = 0; i < kGemmFragsM; ++i)
            for (int j = 0; j < kGemmFragsN; ++j) mc::zero(acc[i][j]);

        TileStage<T> stage_a, stage_b;
        stage_a.issue(a, p.lda, p.m, p.k, m0, 0, a_vec);
        stage_b.issue(b, p.ldb, p.n, p.k, n0, 0, b_vec);
        for (int k0 = 0; k0 < p.k; k0 += kGemmBlockK) {
            stage_a.commit(a_tile);
            stage_b.commit(b_tile);
            __syncthreads();
            if (k0 + kGemmBlockK < p.k) {  // the next k-step flies during this one's multiplies
                stage_a.issue(a, p.lda, p.m, p.k, m0, k0 + kGemmBlockK, a_vec);
                stage_b.issue(b, p.ldb, p.n, p.k, n0, k0 + kGemmBlockK, b_vec);
            }
#pragma unroll kUnroll
            for (int kk = 0; kk < kGemmBlockK; kk += mc::kStep) {
                mc::FragA<T> fa[kGemmFragsM];
                mc::FragB<T> fb[kGemmFragsN];
#pragma unroll
                for (int i = 0; i < kGemmFragsM; ++i)
                    mc::load_a(fa[i], a_tile + (wave_m + i * mc::kStep) * kLds + kk, kLds);
#pragma unroll
                for (int j = 0; j < kGemmFragsN; ++j)
                    mc::load_b(fb[j], b_tile + (wave_n + j * mc::kStep) * kLds + kk, kLds);
#pragma unroll
                for (int i = 0; i < kGemmFragsM; ++i)
#pragma unroll
                    for (int j = 0; j < kGemmFragsN; ++j) mc::mma(acc[i][j], fa[i], fb[j]);
            }
            __syncthreads();
        }

        // The fp32 tile -> shared c_tile[n][m] -> the epilogue.
        for (int i = 0; i < kGemmFragsM; ++i)
            for (int j = 0; j < kGemmFragsN; ++j)
                mc::store_transposed(c_tile + (wave_n + j * mc::kStep) * kGemmLdsC + wave_m + i * mc::kStep,
                                     kGemmLdsC, acc[i][j]);
        __syncthreads();
        epilogue(GemmTile{c_tile, m0, n0, p.m, p.n});
        __syncthreads();
    }
}

// Launches C = A * B^T with `epilogue` on `stream`; invalid sizes or missing operands are
// hipErrorInvalidValue. The epilogue's own arguments are its caller's to check.
template <typename T, typename Epilogue>
hipconv_status_t launch_tiled_gemm(const GemmProblem &p, const Epilogue &epilogue, hipStream_t stream) {
    if (p.a == nullptr || p.b == nullptr || p.m < 1 || p.n < 1 || p.k < 1 || p.lda < p.k || p.ldb < p.k)
        return (hipconv_status_t)hipErrorInvalidValue;
    const int64_t tiles = ceil_div(p.m, kGemmBlockM) * ceil_div(p.n, kGemmBlockN);
    auto kernel = tiled_gemm_kernel<T, Epilogue>;
    hipLaunchKernelGGL(kernel, dim3(grid_blocks(tiles)), dim3(kGemmThreads), 0, stream, p, epilogue);
    return last_launch_status();
}

}  // namespace hipconv
