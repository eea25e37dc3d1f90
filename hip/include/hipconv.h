/*
 * hipconv C ABI: the only interface between the HIP kernels and Rust, and what bindgen
 * reads. One header per op family under hipconv/, each self-contained:
 *
 *   hipconv/runtime.h   shared by every family: status code, stream / event / graph
 *                       handles, devices, memory, streams, events, graphs, the device
 *                       status word, the dtype list (HIPCONV_DECLARE_PER_DTYPE)
 *   hipconv/gemm.h      the shared tiled GEMM's tile configuration
 *   hipconv/conv1d.h    causal depthwise conv1d: params, status codes, entry points
 *   hipconv/conv3d.h    3-D convolution: params, entry points
 *
 * Params: one struct per kind of kernel within a family (conv1d's forwards share one; the
 * boundary passes and the decode update embed it and add their own fields; each stage of
 * the explicit pipeline has its own). Exported kernel launchers are named
 * hipconv_<family>_<op>_<dtype>, dtype f16, bf16 or f32.
 */
#ifndef HIPCONV_H
#define HIPCONV_H

#include "hipconv/runtime.h"
#include "hipconv/gemm.h"
#include "hipconv/conv1d.h"
#include "hipconv/conv3d.h"

#endif /* HIPCONV_H */
