/*
 * gemm_abt: C = A * B^T on matrix cores, with the conv1d output epilogue.
 *
 *   in   a [m, k] row-major (lda)      im2col of x:       m = batch*seqlen, k = width*dim
 *        b [n, k] row-major (ldb)      dense weight:      n = dim
 *   out  y [batch, n, seqlen]          C[row, col] -> y[(row/seqlen)*n + col][row%seqlen]
 *   fp16 operands, fp32 accumulation, output rounded to fp16 once.
 *
 * Block tile 64 x 64, k-step 64; 2 x 2 waves, each 32 x 32 = 2 x 2 instructions
 * of 16x16x16 (matrix_core.h: MFMA on AMD, WMMA on NVIDIA):
 *
 *                 n0 ............ n0+63
 *               +-------+-------+
 *        m0     | wave0 | wave1 |   each wave:  +----+----+
 *          :    | 32x32 | 32x32 |               |16² |16² |  2 x 2 mma tiles,
 *          :    +-------+-------+               +----+----+  k = 16 per instruction,
 *          :    | wave2 | wave3 |               |16² |16² |  4 instructions per k-step
 *        m0+63  |       |       |               +----+----+
 *               +-------+-------+
 *
 * Per k-step: the block stages A[m0:+64, k0:+64] and B[n0:+64, k0:+64] in shared
 * memory (16-byte vector loads when lda/ldb are multiples of 8 and the bases are
 * 16-byte aligned; scalar loads with zero fill at the M/N/K edges otherwise),
 * then each wave runs its 2 x 2 x 4 instructions. The next k-step's loads are issued
 * into registers before those instructions and stored after them (TileStage), so a
 * k-step costs its multiplies rather than a memory latency. The epilogue parks the fp32
 * tile in shared memory transposed (c[n][m]) and writes y with consecutive
 * threads on consecutive t: coalesced, no separate transpose pass.
 *
 * Launch: 4 waves (256 threads on AMD, 128 on NVIDIA); 1-D grid-stride loop over
 * ceil(m/64) * ceil(n/64) tiles, consecutive blocks along n (they share A rows).
 */
#include "compat.h"
#include "hipconv.h"
#include "launch.h"
#include "matrix_core.h"

namespace hipconv {

constexpr int kGemmBlockM = 64;
constexpr int kGemmBlockN = 64;
constexpr int kGemmBlockK = 64;  // 4 k-steps at the seed shape: fewer latency-bound steps
constexpr int kGemmWavesM = 2;
constexpr int kGemmWavesN = 2;
constexpr int kGemmThreads = kGemmWavesM * kGemmWavesN * mc::kWaveSize;
constexpr int kGemmWaveTileM = kGemmBlockM / kGemmWavesM;  // 32
constexpr int kGemmWaveTileN = kGemmBlockN / kGemmWavesN;  // 32
constexpr int kGemmFragsM = kGemmWaveTileM / mc::kInstM;   // 2
constexpr int kGemmFragsN = kGemmWaveTileN / mc::kInstN;   // 2
// Row strides in shared memory: padded, and multiples of 8 halves / 4 floats (WMMA).
constexpr int kGemmLdsAB = kGemmBlockK + 8;  // halves
constexpr int kGemmLdsC = kGemmBlockM + 4;   // floats, c stored [n][m]
constexpr int kGemmVec = 8;                  // halves per 16-byte load

constexpr int kGemmOperandBytes = 2 * kGemmBlockM * kGemmLdsAB * 2;
constexpr int kGemmOutputBytes = kGemmBlockN * kGemmLdsC * 4;
constexpr int kGemmSharedBytes =
    kGemmOperandBytes > kGemmOutputBytes ? kGemmOperandBytes : kGemmOutputBytes;

static_assert(kGemmBlockM == kGemmBlockN, "TileStage serves A and B with one shape");
static_assert(kGemmBlockK % mc::kInstK == 0, "k-step must be a multiple of the instruction k");

// Rows [row0, row0+64) x cols [k0, k0+kGemmBlockK) (64) of a row-major matrix, held in registers between
// issue() (the global loads) and commit() (the stores into tile[64][kGemmLdsAB]), so that
// the next k-step's loads are in flight while the current one is multiplied.
template <typename T> struct TileStage {
    static constexpr int kChunksPerRow = kGemmBlockK / kGemmVec;
    static constexpr int kChunks = kGemmBlockM * kChunksPerRow;
    static constexpr int kIters = (kChunks + kGemmThreads - 1) / kGemmThreads;
    uint4 v[kIters];

    __device__ void issue(const T *src, int64_t ld, int rows, int cols, int row0, int k0, bool vector_ok) {
#pragma unroll
        for (int it = 0; it < kIters; ++it) {
            const int chunk = threadIdx.x + it * kGemmThreads;
            const int row = row0 + chunk / kChunksPerRow;
            const int col = k0 + (chunk % kChunksPerRow) * kGemmVec;
            const T *s = src + (int64_t)row * ld + col;
            if (chunk < kChunks && vector_ok && row < rows && col < cols) {
                // ld % 8 == 0 and cols == ld's k extent: the chunk is either wholly in or out.
                v[it] = *reinterpret_cast<const uint4 *>(s);
            } else {
                alignas(16) T e[kGemmVec];
                for (int i = 0; i < kGemmVec; ++i)
                    e[i] = (chunk < kChunks && row < rows && col + i < cols) ? s[i] : T(0.0f);
                v[it] = *reinterpret_cast<const uint4 *>(e);
            }
        }
    }

    __device__ void commit(T *tile) const {
#pragma unroll
        for (int it = 0; it < kIters; ++it) {
            const int chunk = threadIdx.x + it * kGemmThreads;
            if (chunk < kChunks)
                *reinterpret_cast<uint4 *>(tile + (chunk / kChunksPerRow) * kGemmLdsAB +
                                           (chunk % kChunksPerRow) * kGemmVec) = v[it];
        }
    }
};

template <typename T>
__global__ void __launch_bounds__(kGemmThreads) gemm_abt_kernel(hipconv_gemm_abt_params p) {
    __shared__ __align__(128) unsigned char smem[kGemmSharedBytes];
    T *a_tile = reinterpret_cast<T *>(smem);
    T *b_tile = a_tile + kGemmBlockM * kGemmLdsAB;
    float *c_tile = reinterpret_cast<float *>(smem);

    const T *a = static_cast<const T *>(p.a);
    const T *b = static_cast<const T *>(p.b);
    T *y = static_cast<T *>(p.y);
    const bool a_vec = p.lda % kGemmVec == 0 && p.k % kGemmVec == 0 &&
                       (reinterpret_cast<uintptr_t>(a) & 15) == 0;
    const bool b_vec = p.ldb % kGemmVec == 0 && p.k % kGemmVec == 0 &&
                       (reinterpret_cast<uintptr_t>(b) & 15) == 0;

    const int wave = threadIdx.x / mc::kWaveSize;
    const int wave_m = (wave / kGemmWavesN) * kGemmWaveTileM;
    const int wave_n = (wave % kGemmWavesN) * kGemmWaveTileN;
    const int64_t tiles_n = ceil_div(p.n, kGemmBlockN);
    const int64_t tiles = ceil_div(p.m, kGemmBlockM) * tiles_n;

    for (int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const int m0 = (int)(tile / tiles_n) * kGemmBlockM;
        const int n0 = (int)(tile % tiles_n) * kGemmBlockN;

        mc::FragC acc[kGemmFragsM][kGemmFragsN];
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
#pragma unroll
            for (int kk = 0; kk < kGemmBlockK; kk += mc::kInstK) {
                mc::FragA fa[kGemmFragsM];
                mc::FragB fb[kGemmFragsN];
#pragma unroll
                for (int i = 0; i < kGemmFragsM; ++i)
                    mc::load_a(fa[i], a_tile + (wave_m + i * mc::kInstM) * kGemmLdsAB + kk,
                               kGemmLdsAB);
#pragma unroll
                for (int j = 0; j < kGemmFragsN; ++j)
                    mc::load_b(fb[j], b_tile + (wave_n + j * mc::kInstN) * kGemmLdsAB + kk,
                               kGemmLdsAB);
#pragma unroll
                for (int i = 0; i < kGemmFragsM; ++i)
#pragma unroll
                    for (int j = 0; j < kGemmFragsN; ++j) mc::mma(acc[i][j], fa[i], fb[j]);
            }
            __syncthreads();
        }

        // Epilogue: fp32 tile -> shared c_tile[n][m] -> y[batch, n, seqlen].
        for (int i = 0; i < kGemmFragsM; ++i)
            for (int j = 0; j < kGemmFragsN; ++j)
                mc::store_c_transposed(
                    c_tile + (wave_n + j * mc::kInstN) * kGemmLdsC + wave_m + i * mc::kInstM,
                    kGemmLdsC, acc[i][j]);
        __syncthreads();
        for (int idx = threadIdx.x; idx < kGemmBlockM * kGemmBlockN; idx += kGemmThreads) {
            const int ml = idx % kGemmBlockM;
            const int nl = idx / kGemmBlockM;
            const int row = m0 + ml;
            const int col = n0 + nl;
            if (row < p.m && col < p.n) {
                const int bt = row / p.seqlen;
                const int t = row - bt * p.seqlen;
                y[((int64_t)bt * p.n + col) * p.seqlen + t] = T(c_tile[nl * kGemmLdsC + ml]);
            }
        }
        __syncthreads();
    }
}

template <typename T>
hipconv_status_t launch_gemm_abt(const hipconv_gemm_abt_params &p, hipStream_t stream) {
    if (p.a == nullptr || p.b == nullptr || p.y == nullptr || p.m < 1 || p.n < 1 || p.k < 1 ||
        p.lda < p.k || p.ldb < p.k || p.seqlen < 1 || p.m % p.seqlen != 0)
        return (hipconv_status_t)hipErrorInvalidValue;
    const int64_t tiles = ceil_div(p.m, kGemmBlockM) * ceil_div(p.n, kGemmBlockN);
    hipLaunchKernelGGL(gemm_abt_kernel<T>, dim3(grid_blocks(tiles)), dim3(kGemmThreads), 0,
                       stream, p);
    return last_launch_status();
}

}  // namespace hipconv

extern "C" void hipconv_gemm_abt_config(hipconv_gemm_config *config) {
    config->block_m = hipconv::kGemmBlockM;
    config->block_n = hipconv::kGemmBlockN;
    config->block_k = hipconv::kGemmBlockK;
    config->waves_m = hipconv::kGemmWavesM;
    config->waves_n = hipconv::kGemmWavesN;
    config->inst_m = hipconv::mc::kInstM;
    config->inst_n = hipconv::mc::kInstN;
    config->inst_k = hipconv::mc::kInstK;
    config->wave_size = hipconv::mc::kWaveSize;
}

HIPCONV_EXPORT_LAUNCHER(gemm_abt, f16, __half)
