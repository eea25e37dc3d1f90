/*
 * The streaming kernels behind Direct for compiled widths (1 .. kMaxStreamWidth), one file
 * per layout; direct.hip picks one when it fits and falls back to its tiled kernel.
 *   direct_channel_first.hip: contiguous channel-first x and y, as one flat array
 *   direct_channel_last.hip:  channel-last x and y (16-byte packs, or elements)
 */
#pragma once

#include "compat.h"
#include "hipconv/conv1d.h"

namespace hipconv {

constexpr int kMaxStreamWidth = HIPCONV_STREAM_MAX_WIDTH;

template <typename T> bool direct_channel_first_fits(const hipconv_conv1d_params &p);
template <typename T> hipconv_status_t launch_direct_channel_first(const hipconv_conv1d_params &p, hipStream_t stream);
template <typename T> bool direct_channel_last_fits(const hipconv_conv1d_params &p);
template <typename T> hipconv_status_t launch_direct_channel_last(const hipconv_conv1d_params &p, hipStream_t stream);

}  // namespace hipconv
