/*
 * The epilogue's activation, in fp32: SiLU(v) = v · sigmoid(v) = v / (1 + e^-v), with the
 * hardware's fast exponential (exp_neg_fast) and division (a few ulp in fp32; e^-v
 * overflowing to infinity gives -0, the limit). Streaming kernels run it once per output,
 * where the IEEE expf and division would cost more issue slots than the memory traffic
 * leaves.
 *
 * Streaming kernels take the activation as a template argument (`activate<kSilu>`, or
 * `activate_to<kSilu, T>` for the cheaper 16-bit form below, with
 * `with_silu` choosing the instantiation at launch). With a runtime flag, nvcc wraps every
 * element's SiLU chain (scale, MUFU.EX2, add, MUFU.RCP, multiply) in its own branch, so
 * the chains of neighbouring elements cannot overlap and each costs its full latency.
 */
#pragma once

#include <type_traits>

#include "compat.h"

namespace hipconv {

// e^-v with the hardware's exponential. On NVIDIA ex2.approx.ftz: __expf's non-ftz form
// wraps MUFU.EX2 in a three-instruction fix-up for results below 2^-126, which here only
// ever meet 1 + e^-v, where they vanish anyway.
__device__ inline float exp_neg_fast(float v) {
#if defined(HIPCONV_PLATFORM_NVIDIA)
    float e;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(e) : "f"(v * -1.44269504088896341f));
    return e;
#else
    return __expf(-v);
#endif
}

__device__ inline float silu_fast(float v) { return __fdividef(v, 1.f + exp_neg_fast(v)); }

__device__ inline float activate_fast(float v, bool silu) { return silu ? silu_fast(v) : v; }

template <bool kSilu> __device__ inline float activate(float v) {
    if constexpr (kSilu) return silu_fast(v);
    else return v;
}

// The hardware's tanh (tanh.approx.f32: NVIDIA sm_75 and newer, one MUFU; its error about
// 2^-11 of tanh, relative, below the rounding of a 16-bit value). Where kHasTanhApprox is
// false tanh_approx is the library's tanhf; callers keep their exp form there instead.
#if defined(HIPCONV_PLATFORM_NVIDIA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 750
constexpr bool kHasTanhApprox = true;
#else
constexpr bool kHasTanhApprox = false;
#endif

__device__ inline float tanh_approx(float v) {
#if defined(HIPCONV_PLATFORM_NVIDIA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 750
    float t;
    asm("tanh.approx.f32 %0, %1;" : "=f"(t) : "f"(v));
    return t;
#else
    return tanhf(v);
#endif
}

// SiLU(v) = h + h·tanh(h), h = v/2, with tanh_approx: one MUFU and three instructions
// against two MUFUs and five. Only outputs stored in 16 bits use it (activate_to);
// elsewhere, and where there is no tanh_approx (AMD), it is silu_fast.
__device__ inline float silu_tanh(float v) {
    if constexpr (kHasTanhApprox) {
        const float h = 0.5f * v;
        return fmaf(h, tanh_approx(h), h);
    } else {
        return silu_fast(v);
    }
}

// The activation of an output stored as T: the tanh form where T has 16 bits (measured on
// an H200: the channel-first forward's 16-bit SiLU rows 4-6% faster, their errors against
// the f64 reference unchanged), silu_fast for f32.
template <bool kSilu, typename T> __device__ inline float activate_to(float v) {
    if constexpr (!kSilu) return v;
    else if constexpr (sizeof(T) == 2) return silu_tanh(v);
    else return silu_fast(v);
}

// The tanh form takes h = v/2. A caller that folds the 1/2 into its taps and bias (exact:
// a power of two, so each fma rounds to half of what it would have) scales them by
// kActivationInputScale<kSilu, T> and calls activate_scaled_to on the scaled sum: the same
// bits as activate_to on the unscaled one, one multiply fewer an output.
template <bool kSilu, typename T>
constexpr float kActivationInputScale = kSilu && sizeof(T) == 2 && kHasTanhApprox ? 0.5f : 1.f;
template <bool kSilu, typename T> __device__ inline float activate_scaled_to(float s) {
    if constexpr (kActivationInputScale<kSilu, T> == 0.5f) return fmaf(s, tanh_approx(s), s);
    else return activate_to<kSilu, T>(s);
}

// launch(std::true_type{}) with SiLU, launch(std::false_type{}) without: the kernel's
// `kSilu` is `decltype(silu)::value` inside the launcher's lambda.
template <typename Launch> inline auto with_silu(bool silu, Launch &&launch) {
    return silu ? launch(std::true_type{}) : launch(std::false_type{});
}

}  // namespace hipconv
