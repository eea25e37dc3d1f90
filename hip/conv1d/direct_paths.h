/*
 * The streaming kernels behind Direct for widths 1 .. kMaxStreamWidth, two per layout;
 * direct.hip picks one when it fits and falls back to its tiled kernel.
 *   direct_channel_first.hip:      widths 1 .. kNarrowMaxWidth, contiguous channel-first
 *                                  x and y, as one flat array (history from the next lane)
 *   direct_channel_last.hip:       widths 1 .. kNarrowMaxWidth, channel-last x and y
 *   direct_wide_channel_first.hip: widths kNarrowMaxWidth+1 .. kMaxStreamWidth (compiled
 *                                  as 8, 16, 32, 64 taps), the flat array staged in shared
 *                                  memory
 *   direct_wide_channel_last.hip:  the same widths, channel-last, time tiles staged in
 *                                  shared memory
 */
#pragma once

#include "compat.h"
#include "hipconv/conv1d.h"

namespace hipconv {

constexpr int kNarrowMaxWidth = 4;
constexpr int kMaxStreamWidth = HIPCONV_STREAM_MAX_WIDTH;

template <typename T> bool direct_channel_first_fits(const hipconv_conv1d_params &p);
template <typename T> hipconv_status_t launch_direct_channel_first(const hipconv_conv1d_params &p, hipStream_t stream);
template <typename T> bool direct_channel_last_fits(const hipconv_conv1d_params &p);
template <typename T> hipconv_status_t launch_direct_channel_last(const hipconv_conv1d_params &p, hipStream_t stream);
template <typename T> bool direct_wide_channel_first_fits(const hipconv_conv1d_params &p);
template <typename T>
hipconv_status_t launch_direct_wide_channel_first(const hipconv_conv1d_params &p, hipStream_t stream);
template <typename T> bool direct_wide_channel_last_fits(const hipconv_conv1d_params &p);
template <typename T>
hipconv_status_t launch_direct_wide_channel_last(const hipconv_conv1d_params &p, hipStream_t stream);

}  // namespace hipconv
