/*
 * The streaming kernels behind Direct for widths 1 .. kMaxStreamWidth, two per layout;
 * direct.hip picks one when it fits and falls back to its tiled kernel.
 *   direct_channel_first.hip:      widths 1 .. kNarrowMaxWidth, contiguous channel-first
 *                                  x and y, as one flat array (history from the next lane)
 *   direct_channel_last.hip:       widths 1 .. kNarrowMaxWidth, channel-last x and y
 *   direct_wide_channel_first.hip: widths kNarrowMaxWidth+1 .. kMaxStreamWidth (compiled
 *                                  as 8, 16, 32, 64 taps), the flat array staged in shared
 *                                  memory
 *   direct_toeplitz_channel_first.hip: the same widths and layout in f16/bf16 with seqlen
 *                                  >= its tile (128 or 256), each tile's multiply-adds as a
 *                                  Toeplitz product on the matrix cores
 *   direct_window_channel_last.hip: widths kNarrowMaxWidth+1 .. kWindowMaxWidth (compiled
 *                                  as 8 and 16 taps), channel-last, each thread sliding
 *                                  a window along time in registers
 *   direct_wide_channel_last.hip:  widths past kWindowMaxWidth, channel-last, time tiles
 *                                  staged in shared memory
 *   direct_toeplitz_rows_channel_last.hip: (NVIDIA) widths kRowsChannelLastFromWidth .. 64,
 *                                  channel-last f16/bf16 with channels in 16-byte vectors,
 *                                  rows staged as they lie and each channel's window
 *                                  operand assembled in registers for Toeplitz products
 *   direct_toeplitz_channel_last.hip: (AMD) widths kToeplitzChannelLastFromWidth .. 64,
 *                                  the same layout, tiles transposed in shared memory and
 *                                  computed as Toeplitz products
 */
#pragma once

#include "compat.h"
#include "hipconv/conv1d.h"

namespace hipconv {

constexpr int kNarrowMaxWidth = 4;
constexpr int kMaxStreamWidth = HIPCONV_STREAM_MAX_WIDTH;
// Channel-last f16/bf16 runs the matrix-core kernel from this width on (it loses to the
// FMA kernel below it: docs/PERFORMANCE.md, "Wide kernels").
constexpr int kToeplitzChannelLastFromWidth = 33;
// Channel-last widths up to this one run the register-window kernel.
constexpr int kWindowMaxWidth = 16;
// Channel-last f16/bf16 on NVIDIA runs direct_toeplitz_rows_channel_last.hip from this
// width on (below it the register-window kernel is faster: docs/PERFORMANCE.md), except
// with SiLU from kRowsOneStepMaxWidth + 1 to kWindowMaxWidth.
constexpr int kRowsChannelLastFromWidth = 9;
constexpr int kRowsOneStepMaxWidth = 9;  // widths of one 16-deep step: P + width - 1 <= 16

template <typename T> bool direct_channel_first_fits(const hipconv_conv1d_params &p);
template <typename T> hipconv_status_t launch_direct_channel_first(const hipconv_conv1d_params &p, hipStream_t stream);
template <typename T> bool direct_channel_last_fits(const hipconv_conv1d_params &p);
template <typename T> hipconv_status_t launch_direct_channel_last(const hipconv_conv1d_params &p, hipStream_t stream);
template <typename T> bool direct_wide_channel_first_fits(const hipconv_conv1d_params &p);
template <typename T>
hipconv_status_t launch_direct_wide_channel_first(const hipconv_conv1d_params &p, hipStream_t stream);
template <typename T> bool direct_toeplitz_channel_first_fits(const hipconv_conv1d_params &p);
template <typename T>
hipconv_status_t launch_direct_toeplitz_channel_first(const hipconv_conv1d_params &p, hipStream_t stream);
template <typename T> bool direct_toeplitz_rows_channel_last_fits(const hipconv_conv1d_params &p);
template <typename T>
hipconv_status_t launch_direct_toeplitz_rows_channel_last(const hipconv_conv1d_params &p, hipStream_t stream);
template <typename T> bool direct_toeplitz_channel_last_fits(const hipconv_conv1d_params &p);
template <typename T>
hipconv_status_t launch_direct_toeplitz_channel_last(const hipconv_conv1d_params &p, hipStream_t stream);
template <typename T> bool direct_window_channel_last_fits(const hipconv_conv1d_params &p);
template <typename T>
hipconv_status_t launch_direct_window_channel_last(const hipconv_conv1d_params &p, hipStream_t stream);
template <typename T> bool direct_wide_channel_last_fits(const hipconv_conv1d_params &p);
template <typename T>
hipconv_status_t launch_direct_wide_channel_last(const hipconv_conv1d_params &p, hipStream_t stream);

}  // namespace hipconv
