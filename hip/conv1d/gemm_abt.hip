/*
 * conv1d gemm_abt: the explicit pipeline's GEMM, C = A * B^T on matrix cores
 * (hip/gemm/tiled_gemm.h), with the conv1d output epilogue.
 *
 *   in   a [m, k] row-major (lda)      im2col of x:       m = batch*seqlen, k = width*dim
 *        b [n, k] row-major (ldb)      dense weight:      n = dim
 *   out  y [batch, n, seqlen]          C[row, col] -> y[(row/seqlen)*n + col][row%seqlen]
 *   f16, bf16 or f32 operands, fp32 accumulation, output rounded to the element type once.
 *
 * The GEMM (tile diagram in tiled_gemm.h): 64 x 64 block tiles, k-step 64, 4 waves. Its
 * epilogue receives each tile as c[n][m] in shared memory (contiguous along m, which is t
 * within a batch row), and ChannelFirstOutput writes it with consecutive threads on
 * consecutive t: coalesced, no separate transpose pass.
 *
 * Launch: as tiled_gemm.h's (4 waves: 256 threads on AMD, 128 on NVIDIA; 1-D grid-stride
 * loop over ceil(m/64) * ceil(n/64) tiles).
 */
#include "compat.h"
#include "element.h"
#include "hipconv/conv1d.h"
#include "launch.h"
#include "tiled_gemm.h"

namespace hipconv {

// C[row, col] -> y[(row / seqlen) * n + col][row % seqlen], y channel-first and contiguous.
template <typename T> struct ChannelFirstOutput {
    T *y;
    int32_t seqlen;

    __device__ void operator()(const GemmTile &tile) const {
        for (int idx = threadIdx.x; idx < GemmTile::kBlockM * GemmTile::kBlockN; idx += GemmTile::kThreads) {
            const int ml = idx % GemmTile::kBlockM;
            const int nl = idx / GemmTile::kBlockM;
            const int row = tile.m0 + ml;
            const int col = tile.n0 + nl;
            if (row < tile.m && col < tile.n) {
                const int bt = row / seqlen;
                const int t = row - bt * seqlen;
                y[((int64_t)bt * tile.n + col) * seqlen + t] = from_float<T>(tile.c[nl * GemmTile::kLd + ml]);
            }
        }
    }
};

template <typename T>
hipconv_status_t launch_conv1d_gemm_abt(const hipconv_conv1d_gemm_abt_params &p, hipStream_t stream) {
    if (p.y == nullptr || p.seqlen < 1 || p.m % p.seqlen != 0) return (hipconv_status_t)hipErrorInvalidValue;
    const GemmProblem problem{p.a, p.b, p.m, p.n, p.k, p.lda, p.ldb};
    return launch_tiled_gemm<T>(problem, ChannelFirstOutput<T>{static_cast<T *>(p.y), p.seqlen}, stream);
}

}  // namespace hipconv

HIPCONV_EXPORT_PER_DTYPE(conv1d_gemm_abt, hipconv_conv1d_gemm_abt_params)
