/*
 * The epilogue's activation, in fp32: SiLU(v) = v · sigmoid(v) = v / (1 + e^-v), with the
 * hardware's fast exponential and division (a few ulp in fp32; e^-v overflowing to
 * infinity gives -0, the limit). Streaming kernels run it once per output, where the
 * IEEE expf and division would cost more issue slots than the memory traffic leaves.
 */
#pragma once

#include "compat.h"

namespace hipconv {

__device__ inline float silu_fast(float v) { return __fdividef(v, 1.f + __expf(-v)); }

__device__ inline float activate_fast(float v, bool silu) { return silu ? silu_fast(v) : v; }

}  // namespace hipconv
