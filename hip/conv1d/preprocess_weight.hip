/*
 * preprocess_weight: depthwise weight -> dense block-diagonal GEMM operand.
 *
 *   in   w [dim, width]                     depthwise, one filter per channel
 *   out  b [dim, width*dim]                 GEMM B (row = output channel), ldb = width*dim
 *        b[co, tap*dim + ci] = (ci == co) ? w[co, tap] : 0
 *
 * Each row holds `width` non-zeros; everything else is written as zero, so the
 * buffer needs no prior clearing. One thread per element of b, consecutive
 * threads on consecutive columns (coalesced writes; w is tiny and cached). An exact copy:
 * the kernel moves raw bits (element_bits_t), one kernel per element size.
 *
 * Launch: 256 threads per block; 1-D grid-stride loop over dim*width*dim elements.
 */
#include "compat.h"
#include "element.h"
#include "hipconv/conv1d.h"
#include "launch.h"

namespace hipconv {

constexpr int kWeightThreads = 256;

// Bits: the elements' raw storage (element_bits_t): an exact copy and zeros, for any dtype.
template <typename Bits>
__global__ void __launch_bounds__(kWeightThreads)
    preprocess_weight_kernel(hipconv_conv1d_preprocess_weight_params p) {
    const Bits *w = static_cast<const Bits *>(p.w);
    Bits *b = static_cast<Bits *>(p.b);
    const int64_t k = (int64_t)p.width * p.dim;
    const int64_t total = k * p.dim;
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    // Not unrolled: a thread mostly takes one step, and nvcc's unrolled grid-stride loop
    // (four 64-bit divisions per step, a trip-count division first) measured 1.43 against
    // 1.29 us at the seed shape.
#pragma unroll 1
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += stride) {
        const int64_t co = i / k;
        const int64_t col = i - co * k;
        const int64_t tap = col / p.dim;
        const int64_t ci = col - tap * p.dim;
        b[i] = (ci == co) ? w[co * p.width + tap] : Bits(0);
    }
}

template <typename T>
hipconv_status_t launch_conv1d_preprocess_weight(const hipconv_conv1d_preprocess_weight_params &p,
                                                 hipStream_t stream) {
    if (p.w == nullptr || p.b == nullptr || p.dim < 1 || p.width < 1)
        return (hipconv_status_t)hipErrorInvalidValue;
    const int64_t total = (int64_t)p.dim * p.width * p.dim;
    hipLaunchKernelGGL(preprocess_weight_kernel<element_bits_t<T>>,
                       dim3(grid_blocks(ceil_div(total, kWeightThreads))), dim3(kWeightThreads),
                       0, stream, p);
    return last_launch_status();
}

}  // namespace hipconv

HIPCONV_EXPORT_PER_DTYPE(conv1d_preprocess_weight, hipconv_conv1d_preprocess_weight_params)
