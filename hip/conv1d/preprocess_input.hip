/*
 * preprocess_input: implicit transpose + causal left padding + im2col, one kernel.
 *
 *   in   x [batch, dim, seqlen]             channel-first (the seed's [ci, hi] per batch)
 *   out  a [batch*seqlen, width*dim]         GEMM A, row-major, lda = width*dim
 *        a[b*seqlen + t, tap*dim + c] = x[b, c, t + tap - (width-1)]   (0 where < 0)
 *
 * Work unit: one (batch, 32 times, 32 channels, up to 8 taps) tile. The block
 * first reads x[b, c0..c0+32, window] into shared memory with threads along t
 * (coalesced reads of the channel-first rows), then writes each tap's 32x32
 * block of `a` with threads along c (coalesced writes of the im2col rows): the
 * transpose happens in shared memory, the padding as zeros in the window.
 * An exact copy: the kernel moves raw bits (element_bits_t), one kernel per element size
 * (f16 and bf16 share one).
 *
 * Launch: block (32, 8); 1-D grid-stride loop over tiles (no grid limit binds).
 */
#include "compat.h"
#include "element.h"
#include "hipconv/conv1d.h"
#include "launch.h"

namespace hipconv {

constexpr int kIm2colTileT = 32;     // times per tile
constexpr int kIm2colTileC = 32;     // channels per tile
constexpr int kIm2colTaps = 8;       // taps per tile
constexpr int kIm2colRows = 8;       // blockDim.y
constexpr int kIm2colWindow = kIm2colTileT + kIm2colTaps - 1;  // 39 times per channel

// Elements per window row in shared memory: at least kIm2colWindow, and an odd number of
// 4-byte words (42 16-bit or 39 32-bit elements), so that the write phase's column reads,
// one row per lane, fall in 32 different banks.
template <typename T>
constexpr int kIm2colWindowLd = (4 / sizeof(T)) * (((kIm2colWindow + 4 / sizeof(T) - 1) / (4 / sizeof(T))) | 1);
static_assert(kIm2colWindowLd<uint16_t> == 42 && kIm2colWindowLd<uint32_t> == 39, "odd words per row");

// T: the elements' raw storage (element_bits_t): an exact copy and zeros, for any dtype.
template <typename T>
__global__ void __launch_bounds__(kIm2colTileC *kIm2colRows)
    preprocess_input_kernel(hipconv_conv1d_preprocess_input_params p) {
    __shared__ T window[kIm2colTileC][kIm2colWindowLd<T>];

    const T *x = static_cast<const T *>(p.x);
    T *a = static_cast<T *>(p.a);
    const int64_t k = (int64_t)p.width * p.dim;
    const int64_t c_tiles = ceil_div(p.dim, kIm2colTileC);
    const int64_t t_tiles = ceil_div(p.seqlen, kIm2colTileT);
    const int64_t tap_chunks = ceil_div(p.width, kIm2colTaps);
    const int64_t tiles = c_tiles * t_tiles * tap_chunks * p.batch;

    for (int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        int64_t rest = tile;
        const int c0 = (int)(rest % c_tiles) * kIm2colTileC;
        rest /= c_tiles;
        const int t0 = (int)(rest % t_tiles) * kIm2colTileT;
        rest /= t_tiles;
        const int tap0 = (int)(rest % tap_chunks) * kIm2colTaps;
        const int64_t b = rest / tap_chunks;
        const int taps = min(kIm2colTaps, p.width - tap0);
        const int span = kIm2colTileT + taps - 1;
        // time of window column 0: t0 + tap0 - (width - 1)
        const int64_t tau0 = (int64_t)t0 + tap0 - (p.width - 1);

        for (int cl = threadIdx.y; cl < kIm2colTileC; cl += kIm2colRows) {
            const int c = c0 + cl;
            const T *row = x + (b * p.dim + c) * (int64_t)p.seqlen;
            for (int j = threadIdx.x; j < span; j += kIm2colTileT) {
                const int64_t tau = tau0 + j;
                const bool inside = c < p.dim && tau >= 0 && tau < p.seqlen;
                window[cl][j] = inside ? row[tau] : T(0);
            }
        }
        __syncthreads();

        const int c = c0 + threadIdx.x;
        for (int tap = 0; tap < taps; ++tap) {
            for (int tl = threadIdx.y; tl < kIm2colTileT; tl += kIm2colRows) {
                const int t = t0 + tl;
                if (c < p.dim && t < p.seqlen) {
                    a[(b * p.seqlen + t) * k + (int64_t)(tap0 + tap) * p.dim + c] =
                        window[threadIdx.x][tl + tap];
                }
            }
        }
        __syncthreads();
    }
}

template <typename T>
hipconv_status_t launch_conv1d_preprocess_input(const hipconv_conv1d_preprocess_input_params &p,
                                                hipStream_t stream) {
    if (p.x == nullptr || p.a == nullptr || p.batch < 1 || p.dim < 1 || p.seqlen < 1 ||
        p.width < 1)
        return (hipconv_status_t)hipErrorInvalidValue;
    const int64_t tiles = ceil_div(p.dim, kIm2colTileC) * ceil_div(p.seqlen, kIm2colTileT) *
                          ceil_div(p.width, kIm2colTaps) * p.batch;
    hipLaunchKernelGGL(preprocess_input_kernel<element_bits_t<T>>, dim3(grid_blocks(tiles)),
                       dim3(kIm2colTileC, kIm2colRows), 0, stream, p);
    return last_launch_status();
}

}  // namespace hipconv

HIPCONV_EXPORT_PER_DTYPE(conv1d_preprocess_input, hipconv_conv1d_preprocess_input_params)
