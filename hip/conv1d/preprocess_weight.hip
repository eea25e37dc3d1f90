/*
 * preprocess_weight: depthwise weight -> dense block-diagonal GEMM operand.
 *
 *   in   w [dim, width]                     depthwise, one filter per channel
 *   out  b [dim, width*dim]                 GEMM B (row = output channel), ldb = width*dim
 *        b[co, tap*dim + ci] = (ci == co) ? w[co, tap] : 0
 *
 * Each row holds `width` non-zeros; everything else is written as zero, so the
 * buffer needs no prior clearing. One thread per element of b, consecutive
 * threads on consecutive columns (coalesced writes; w is tiny and cached).
 *
 * Launch: 256 threads per block; 1-D grid-stride loop over dim*width*dim elements.
 */
#include "compat.h"
#include "hipconv.h"
#include "launch.h"

namespace hipconv {

constexpr int kWeightThreads = 256;

template <typename T>
__global__ void __launch_bounds__(kWeightThreads)
    preprocess_weight_kernel(hipconv_preprocess_weight_params p) {
    const T *w = static_cast<const T *>(p.w);
    T *b = static_cast<T *>(p.b);
    const int64_t k = (int64_t)p.width * p.dim;
    const int64_t total = k * p.dim;
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += stride) {
        const int64_t co = i / k;
        const int64_t col = i - co * k;
        const int64_t tap = col / p.dim;
        const int64_t ci = col - tap * p.dim;
        b[i] = (ci == co) ? w[co * p.width + tap] : T(0.0f);
    }
}

template <typename T>
hipconv_status_t launch_preprocess_weight(const hipconv_preprocess_weight_params &p,
                                          hipStream_t stream) {
    if (p.w == nullptr || p.b == nullptr || p.dim < 1 || p.width < 1)
        return (hipconv_status_t)hipErrorInvalidValue;
    const int64_t total = (int64_t)p.dim * p.width * p.dim;
    hipLaunchKernelGGL(preprocess_weight_kernel<T>,
                       dim3(grid_blocks(ceil_div(total, kWeightThreads))), dim3(kWeightThreads),
                       0, stream, p);
    return last_launch_status();
}

}  // namespace hipconv

HIPCONV_EXPORT_LAUNCHER(preprocess_weight, f16, __half)
