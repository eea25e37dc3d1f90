/*
 * The conv1d backward's shared pieces (hipconv/conv1d.h, "backward"): the paths, the
 * workspace each needs, and the device helpers they share.
 *
 * Paths (backward.hip picks one per call):
 *   channel_first  backward_channel_first.hip: contiguous channel-first, widths 1..4
 *   channel_last_tiled  backward_channel_last_tiled.hip: f16 and bf16 channel-last,
 *                  channels in 16-byte vectors, widths 1..4 (tiles staged in shared memory)
 *   channel_last   backward_channel_last.hip:  other channel-last cases, widths 1..4
 *   generic        backward_generic.hip: anything else (any width or strides, packed
 *                  batches): dz into the workspace, then dx and the partials from it
 * Each path leaves per-tile partials of dweight and dbias in the workspace,
 *   partials [tiles, dim, width+1] fp32   (entry width: the bias),
 * which backward.hip sums over the tiles in a fixed order (no atomics: deterministic); a path that
 * sums each channel whole in one block reports 0 tiles and writes dweight and dbias itself
 * (store_parameter_gradient). Then backward.hip runs the states pass for dinitial_states.
 */
#pragma once

#include "activation.h"
#include "compat.h"
#include "dependent_launch.h"
#include "element.h"
#include "hipconv/conv1d.h"
#include "launch.h"
#include "sequences.h"

namespace hipconv {

constexpr int kBackwardMaxFusedWidth = 4;  // widths of the fused channel-first/last kernels

// act'(z): 1, or SiLU's derivative sigmoid(z)·(1 + z·(1 − sigmoid(z))) with the fast
// exponential and division, as the forward's SiLU (a few ulp; sigmoid → 0 where e^-z
// overflows: the derivative's limit 0). The IEEE reciprocal costs a branchy sequence per
// time on NVIDIA, more issue slots than the memory traffic leaves.
// The fused kernels take it as a template argument (activation.h says why).
template <bool kSilu> __device__ inline float activation_derivative(float z) {
    if constexpr (!kSilu) {
        return 1.f;
    } else {
        const float sigmoid = __fdividef(1.f, 1.f + exp_neg_fast(z));
        return sigmoid * (1.f + z * (1.f - sigmoid));
    }
}

// dz = dy·act'(z) as the fused kernels compute it. Where the output is 16-bit, SiLU' comes
// from tanh: with h = z/2 and t = tanh(h), SiLU'(z) = (1 + t·(1 - h·t) + h) / 2. The kernel
// then computes h itself (taps and bias times kScale = 1/2, exactly) and carries dz2 = 2·dz:
// dx = Σ (w/2)·dz2, and the sums of dweight and dbias are times kScale at the end. One MUFU
// and four instructions a time, against two and eight (tanh_approx, activation.h; its error
// lies below a 16-bit dx's rounding). Where there is no tanh_approx (AMD), and for f32,
// the exp/rcp form of activation_derivative, kScale 1.
template <typename T, bool kSilu> struct ScaledDerivative {
    static constexpr bool kHalved = kSilu && sizeof(T) == 2 && kHasTanhApprox;
    static constexpr float kScale = kHalved ? 0.5f : 1.f;  // of taps, bias and (at the end) the sums

    // dy times the derivative (times 1/kScale), given the pre-activation times kScale.
    __device__ static float dz(float dy, float scaled_z) {
        if constexpr (kHalved) {
            const float t = tanh_approx(scaled_z);
            return dy * (fmaf(t, fmaf(-scaled_z, t, 1.f), 1.f) + scaled_z);
        } else {
            return dy * activation_derivative<kSilu>(scaled_z);
        }
    }
};

// The flag tested per time (the channel-first kernel, the generic passes). __expf here,
// not exp_neg_fast: with it ptxas keeps the channel-first kernel at 64 registers (f16,
// width 4; 110 with the inline ex2), and that kernel measured fastest this way.
__device__ inline float activation_derivative(float z, bool silu) {
    if (!silu) return 1.f;
    const float sigmoid = __fdividef(1.f, 1.f + __expf(-z));
    return sigmoid * (1.f + z * (1.f - sigmoid));
}

// The forward's view of the backward's tensors, and the sequences it runs over.
__host__ __device__ inline hipconv_conv1d_sequences_params backward_sequences(const hipconv_conv1d_backward_params &p) {
    return hipconv_conv1d_sequences_params{p.conv, p.cu_seqlens, p.n_seqs, p.status};
}

// A tile's partial sums of dweight (entries 0 .. width-1) and dbias (entry width) for one
// channel: partials[(tile * dim + c) * (width + 1) + k].
__host__ __device__ inline int64_t partial_index(int64_t tile, int64_t dim, int64_t c, int width, int k) {
    return (tile * dim + c) * (width + 1) + k;
}

// dweight[c, k] (k < width) or dbias[c] (k == width) from its final sum: fp32, or rounded
// once to T, as the caller asked; nothing where the caller passed no buffer.
template <typename T>
__device__ inline void store_parameter_gradient(const hipconv_conv1d_backward_params &p, int64_t c, int k, float sum) {
    const int width = p.conv.width;
    void *out = k < width ? p.dweight : p.dbias;
    if (out == nullptr) return;
    const bool f32 = k < width ? p.dweight_f32 != 0 : p.dbias_f32 != 0;
    const int64_t at = k < width ? c * width + k : c;
    if (f32)
        static_cast<float *>(out)[at] = sum;
    else
        static_cast<T *>(out)[at] = from_float<T>(sum);
}

// Whether a pointer is 16-byte aligned (the fused paths' vector accesses).
inline bool aligned16(const void *ptr) { return (reinterpret_cast<uintptr_t>(ptr) & 15) == 0; }

// Per path: whether it runs these params, the tiles of partials it writes, and its launch.
// (The fused paths assume 16-byte aligned tensors where the query passes null pointers.)
template <typename T> bool backward_channel_first_fits(const hipconv_conv1d_backward_params &p);
template <typename T> int64_t backward_channel_first_tiles(const hipconv_conv1d_backward_params &p);
template <typename T>
hipconv_status_t launch_backward_channel_first(const hipconv_conv1d_backward_params &p, float *partials,
                                               hipStream_t stream);

template <typename T> bool backward_channel_last_tiled_fits(const hipconv_conv1d_backward_params &p);
template <typename T> int64_t backward_channel_last_tiled_tiles(const hipconv_conv1d_backward_params &p);
template <typename T>
hipconv_status_t launch_backward_channel_last_tiled(const hipconv_conv1d_backward_params &p, float *partials,
                                                    hipStream_t stream);

template <typename T> bool backward_channel_last_fits(const hipconv_conv1d_backward_params &p);
template <typename T> int64_t backward_channel_last_tiles(const hipconv_conv1d_backward_params &p);
template <typename T>
hipconv_status_t launch_backward_channel_last(const hipconv_conv1d_backward_params &p, float *partials,
                                              hipStream_t stream);

// The generic path also needs dz: [batch, dim, seqlen] fp32 in x's axis order.
int64_t backward_generic_tiles(const hipconv_conv1d_backward_params &p);
int64_t backward_generic_dz_floats(const hipconv_conv1d_backward_params &p);
template <typename T>
hipconv_status_t launch_backward_generic(const hipconv_conv1d_backward_params &p, float *partials, float *dz,
                                         hipStream_t stream);

}  // namespace hipconv
