/*
 * conv3d transpose: a batch of row-major matrices transposed (hipconv/conv3d.h), the
 * relayout that lets ImplicitGemm's channels-last gathers serve NCDHW tensors.
 *
 *   in   src [batch, rows, cols]   e.g. NCDHW x: [n][c][d*h*w]
 *   out  dst [batch, cols, rows]   dst[b, c, r] = src[b, r, c]: [n][d*h*w][c] = NDHWC
 *   An exact copy: elements move as raw bits (one kernel per element size).
 *
 * Launch: 32 x 8 threads per 32 x 32 tile; 1-D grid-stride loop over batch * tiles. Each
 * thread reads 4 elements of the tile along cols (coalesced: a warp reads 32 consecutive
 * src elements per row), the tile waits in shared memory (33 columns per row, so the
 * column-wise reads hit 32 distinct banks), and is written along rows (coalesced in dst):
 *
 *      src rows r0..r0+31            shared tile[32][33]          dst rows c0..c0+31
 *      cols c0..c0+31   -- load -->  tile[r][c]        -- store -->  dst[c][r] = tile[r][c]
 */
#include "compat.h"
#include "element.h"
#include "hipconv/conv3d.h"
#include "launch.h"

namespace hipconv {
namespace conv3d {

constexpr int kTransposeTile = 32;
constexpr int kTransposeRowsPerPass = 8;

template <typename Bits>
__global__ void __launch_bounds__(kTransposeTile *kTransposeRowsPerPass)
    conv3d_transpose_kernel(const Bits *src, Bits *dst, int64_t batch, int32_t rows, int32_t cols) {
    __shared__ Bits tile[kTransposeTile][kTransposeTile + 1];
    const int64_t tiles_r = ceil_div(rows, kTransposeTile), tiles_c = ceil_div(cols, kTransposeTile);
    const int64_t per_matrix = tiles_r * tiles_c;
    const int tx = threadIdx.x % kTransposeTile, ty = threadIdx.x / kTransposeTile;
    for (int64_t t = blockIdx.x; t < batch * per_matrix; t += gridDim.x) {
        const int64_t b = t / per_matrix;
        const int64_t rest = t - b * per_matrix;
        const int r0 = (int)(rest / tiles_c) * kTransposeTile, c0 = (int)(rest % tiles_c) * kTransposeTile;
        const Bits *s = src + b * rows * (int64_t)cols;
        Bits *d = dst + b * rows * (int64_t)cols;
#pragma unroll
        for (int i = 0; i < kTransposeTile; i += kTransposeRowsPerPass) {
            const int r = r0 + ty + i, c = c0 + tx;
            if (r < rows && c < cols) tile[ty + i][tx] = s[(int64_t)r * cols + c];
        }
        __syncthreads();
#pragma unroll
        for (int i = 0; i < kTransposeTile; i += kTransposeRowsPerPass) {
            const int c = c0 + ty + i, r = r0 + tx;
            if (r < rows && c < cols) d[(int64_t)c * rows + r] = tile[tx][ty + i];
        }
        __syncthreads();
    }
}

}  // namespace conv3d

template <typename T>
hipconv_status_t launch_conv3d_transpose(const hipconv_conv3d_transpose_params &p, hipStream_t stream) {
    if (p.src == nullptr || p.dst == nullptr || p.batch < 1 || p.rows < 1 || p.cols < 1)
        return (hipconv_status_t)hipErrorInvalidValue;
    typedef element_bits_t<T> Bits;
    const int64_t tiles = p.batch * ceil_div(p.rows, conv3d::kTransposeTile) * ceil_div(p.cols, conv3d::kTransposeTile);
    hipLaunchKernelGGL(conv3d::conv3d_transpose_kernel<Bits>, dim3(grid_blocks(tiles)),
                       dim3(conv3d::kTransposeTile * conv3d::kTransposeRowsPerPass), 0, stream,
                       static_cast<const Bits *>(p.src), static_cast<Bits *>(p.dst), p.batch, p.rows, p.cols);
    return last_launch_status();
}

}  // namespace hipconv

HIPCONV_EXPORT_PER_DTYPE(conv3d_transpose, hipconv_conv3d_transpose_params)
