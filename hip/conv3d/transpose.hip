/*
 * conv3d transpose: a batch of row-major matrices transposed (hipconv/conv3d.h), the
 * relayout that lets ImplicitGemm's channels-last gathers serve NCDHW tensors.
 *
 *   in   src [batch, rows, cols]   e.g. NCDHW x: [n][c][d*h*w]
 *   out  dst [batch, cols, rows]   dst[b, c, r] = src[b, r, c]: [n][d*h*w][c] = NDHWC
 *   An exact copy: elements move as raw bits (one kernel per element size).
 *
 * Two kernels, 256 threads a block, a 1-D grid-stride loop over batch * tiles:
 *
 * - The chunk kernel, wherever rows and cols are multiples of V = 16 / sizeof(element)
 *   (8 for 16-bit, 4 for 32-bit) and both pointers 16-byte aligned: tiles of 8V x 8V
 *   (64 x 64 or 32 x 32), every global access a 16-byte chunk. A tile row is 8 chunks =
 *   128 bytes, read by 8 consecutive threads (4 rows a warp); in shared memory chunk k of
 *   row r sits at position k ^ (r / V % 8). A thread then gathers V elements of one column
 *   (rows kV .. kV + V - 1, k = thread % 8) and writes them as one chunk of dst row c: for
 *   each of the V reads the warp's 8 row groups k sit at 8 distinct chunk positions, so the
 *   reads are conflict-free, and the 8 threads of a dst row write its 128 bytes.
 *
 *      src rows r0..r0+8V-1     shared: row r, chunk k at k ^ (r/V % 8)     dst rows c0..c0+8V-1
 *      8 chunks a row  -- load -->  [8V][8 chunks]  -- V reads, one chunk --> 8 chunks a row
 *
 * - The element kernel everywhere else: 32 x 32 tiles, each thread 4 elements along cols
 *   (a warp reads 32 consecutive src elements of a row), the tile in shared memory with 33
 *   columns a row (column-wise reads on 32 distinct banks), written along rows.
 */
#include "compat.h"
#include "element.h"
#include "hipconv/conv3d.h"
#include "launch.h"

namespace hipconv {
namespace conv3d {

constexpr int kTransposeTile = 32;
constexpr int kTransposeRowsPerPass = 8;
constexpr int kTransposeThreads = kTransposeTile * kTransposeRowsPerPass;

template <typename Bits>
__global__ void __launch_bounds__(kTransposeThreads)
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

template <typename Bits> struct ChunkTranspose {
    static constexpr int kVec = 16 / sizeof(Bits);  // elements per 16-byte chunk
    static constexpr int kChunksPerRow = 8;          // a tile row: 128 bytes
    static constexpr int kTile = kChunksPerRow * kVec;
    static constexpr int kRowsPerPass = kTransposeThreads / kChunksPerRow;  // 32
    static constexpr int kPasses = kTile / kRowsPerPass;                     // 2 (16-bit) or 1 (32-bit)
    static_assert(kTile % kRowsPerPass == 0, "whole passes over a tile");

    // Position of chunk k of tile row r in shared memory.
    __device__ static int slot(int r, int k) { return r * kChunksPerRow + (k ^ (r / kVec % kChunksPerRow)); }
};

template <typename Bits>
__global__ void __launch_bounds__(kTransposeThreads)
    conv3d_transpose_chunks_kernel(const Bits *src, Bits *dst, int64_t batch, int32_t rows, int32_t cols) {
    typedef ChunkTranspose<Bits> Cfg;
    constexpr int kVec = Cfg::kVec, kTile = Cfg::kTile;
    __shared__ uint4 tile[kTile * Cfg::kChunksPerRow];
    const Bits *const tile_elements = reinterpret_cast<const Bits *>(tile);
    const int64_t tiles_r = ceil_div(rows, kTile), tiles_c = ceil_div(cols, kTile);
    const int64_t per_matrix = tiles_r * tiles_c;
    const int k = (int)threadIdx.x % Cfg::kChunksPerRow, lead = (int)threadIdx.x / Cfg::kChunksPerRow;
    for (int64_t t = blockIdx.x; t < batch * per_matrix; t += gridDim.x) {
        const int64_t b = t / per_matrix;
        const int64_t rest = t - b * per_matrix;
        const int r0 = (int)(rest / tiles_c) * kTile, c0 = (int)(rest % tiles_c) * kTile;
        const Bits *s = src + b * rows * (int64_t)cols;
        Bits *d = dst + b * rows * (int64_t)cols;
#pragma unroll
        for (int pass = 0; pass < Cfg::kPasses; ++pass) {
            const int r = lead + pass * Cfg::kRowsPerPass;  // this thread's chunk k of tile row r
            if (r0 + r < rows && c0 + k * kVec < cols)
                tile[Cfg::slot(r, k)] = *reinterpret_cast<const uint4 *>(s + (int64_t)(r0 + r) * cols + c0 + k * kVec);
        }
        __syncthreads();
#pragma unroll
        for (int pass = 0; pass < Cfg::kPasses; ++pass) {
            const int c = lead + pass * Cfg::kRowsPerPass;  // dst row c0 + c, its chunk k: rows kV .. kV + V - 1
            if (c0 + c < cols && r0 + k * kVec < rows) {
                uint32_t words[4] = {0, 0, 0, 0};  // the chunk, packed in registers (a union goes to scratch on AMD)
#pragma unroll
                for (int j = 0; j < kVec; ++j) {
                    const uint32_t e = tile_elements[Cfg::slot(k * kVec + j, c / kVec) * kVec + c % kVec];
                    words[j * sizeof(Bits) / 4] |= e << (8 * (j * sizeof(Bits) % 4));
                }
                *reinterpret_cast<uint4 *>(d + (int64_t)(c0 + c) * rows + r0 + k * kVec) =
                    make_uint4(words[0], words[1], words[2], words[3]);
            }
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
    typedef conv3d::ChunkTranspose<Bits> Chunks;
    const Bits *src = static_cast<const Bits *>(p.src);
    Bits *dst = static_cast<Bits *>(p.dst);
    const bool chunks = p.rows % Chunks::kVec == 0 && p.cols % Chunks::kVec == 0 &&
                        reinterpret_cast<uintptr_t>(src) % 16 == 0 && reinterpret_cast<uintptr_t>(dst) % 16 == 0;
    const int tile = chunks ? Chunks::kTile : conv3d::kTransposeTile;
    const int64_t tiles = p.batch * ceil_div(p.rows, tile) * ceil_div(p.cols, tile);
    if (chunks)
        hipLaunchKernelGGL(conv3d::conv3d_transpose_chunks_kernel<Bits>, dim3(grid_blocks(tiles)),
                           dim3(conv3d::kTransposeThreads), 0, stream, src, dst, p.batch, p.rows, p.cols);
    else
        hipLaunchKernelGGL(conv3d::conv3d_transpose_kernel<Bits>, dim3(grid_blocks(tiles)),
                           dim3(conv3d::kTransposeThreads), 0, stream, src, dst, p.batch, p.rows, p.cols);
    return last_launch_status();
}

}  // namespace hipconv

HIPCONV_EXPORT_PER_DTYPE(conv3d_transpose, hipconv_conv3d_transpose_params)
