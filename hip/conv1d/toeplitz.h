/*
 * The causal depthwise conv1d of one channel as a matrix product on the matrix cores, for
 * f16/bf16 and widths up to 64: the shared part of the wide streaming kernels
 * direct_toeplitz_channel_first.hip and direct_toeplitz_channel_last.hip, over the Toeplitz
 * tile of hip/common/toeplitz_tile.h (the band is TapBand: the channel's taps, causal).
 *
 * A wave's taps operand (2 · kSteps words per lane) lives in shared memory, built when the
 * wave's channel changes (WaveTaps): in registers it would be held through the whole
 * kernel.
 */
#pragma once

#include "hipconv/conv1d.h"
#include "toeplitz_tile.h"

namespace hipconv {
namespace toeplitz {

constexpr int kThreads = 256;  // both kernels' blocks
constexpr int kWaves = kThreads / HIPCONV_WAVE_SIZE;

// The channel whose taps a wave holds, reloaded when a tile needs another: its operand
// words in shared memory, slot[s · wave size + lane] for step s (each lane reads back only
// what it wrote, conflict-free; in registers they cost 2 · kSteps for the whole kernel).
template <typename T, int kWidth> struct WaveTaps {
    StepTaps<T> *slot;
    float bias = 0.f;
    int channel = -1;

    __device__ explicit WaveTaps(StepTaps<T> *slot) : slot(slot) {}

    // This lane's operand of step s (for accumulate).
    __device__ StepTaps<T> operator()(int s) const { return slot[s * HIPCONV_WAVE_SIZE + mc::lane_id()]; }

    __device__ void use(const hipconv_conv1d_params &p, int c) {
        if (c == channel) return;
        const T *w = static_cast<const T *>(p.w);
        const T *b = static_cast<const T *>(p.bias);
        build_taps<T, Toeplitz<kWidth>::kSteps>(
            slot, TapBand<T>{w + (int64_t)c * p.width, p.width, Toeplitz<kWidth>::kReach - p.width + 1});
        bias = b != nullptr ? to_float(b[c]) : 0.f;
        channel = c;
    }
};

}  // namespace toeplitz
}  // namespace hipconv
