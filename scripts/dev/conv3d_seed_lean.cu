// Prototype, not library code (scripts/dev; nothing builds it but the command below): the
// seed example's conv3d (1·3→8·16·64·64, 3x3x3, padding 1, NCDHW, f32) with a short per-warp
// instruction chain, as a replacement of hipconv_conv3d_tiled_f32 for
// scripts/dev/conv3d_seed_bench.cu (every other case falls back to the naive kernel):
//   nvcc -std=c++17 -O3 -DHIPCONV_PLATFORM_NVIDIA -gencode arch=compute_90a,code=sm_90a \
//     -Ihip/include -Ihip/common -Ihip/conv3d -x cu scripts/dev/conv3d_seed_bench.cu \
//     -x cu scripts/dev/conv3d_seed_lean.cu -x cu hip/conv3d/naive.hip -o seed_lean \
//     -L$(dirname $(which nvcc))/../lib -cudart static
// A thread computes LEAN_ROWS (2) output rows at one (od, ow) for all 8 output channels and
// issues all 108 of its input loads (3 channels x 3 planes x 4 rows x 3 columns) before its
// first multiply-add; the taps are staged [t][8] in shared memory (two 16-byte broadcast
// reads per tap, shared by both rows). Rows and planes outside the input read zero through
// predicated loads, columns through a select. On an H100 (nineteenth session,
// docs/PERFORMANCE.md "The seed example"): 5.27-5.32 us against Tiled's 8.05-8.11 in the
// same calls; 2.36 M warp instructions (Tiled 3.25 M), 160 registers. One row per thread
// 6.73-6.77 us, four rows 7.40-7.43, four channels per thread 5.57, a separate branch for
// warps wholly inside the input 5.36-5.64; with the w and channel strides read at run time
// (any layout) 6.13 us NCDHW and 9.6 us NDHWC.
#include "compat.h"
#include "element.h"
#include "hipconv/conv3d.h"
#include "launch.h"

namespace hipconv {
template <typename T> hipconv_status_t launch_conv3d_naive(const hipconv_conv3d_params &p, hipStream_t stream);

template <int kCin, int kRows>
__global__ void __launch_bounds__(128) lean_kernel(hipconv_conv3d_params p) {
    constexpr int kTaps = kCin * 27;
    __shared__ float4 taps4[kTaps * 2 + 2];  // [t][8] then bias[8]
    float *taps = reinterpret_cast<float *>(taps4);
    const float *w = static_cast<const float *>(p.w);
    const float *x = static_cast<const float *>(p.x);
    float *y = static_cast<float *>(p.y);
    const int tid = threadIdx.x;
    for (int e = tid; e < kTaps * 8; e += 128) {
        const int co = e / kTaps, t = e - co * kTaps;  // w contiguous [co][t]
        taps[t * 8 + co] = w[co * p.w_stride[0] + t];
    }
    if (tid < 8) taps[kTaps * 8 + tid] = p.bias ? static_cast<const float *>(p.bias)[tid] : 0.f;
    // Position: (od, oh-group, ow) with ow fastest; W = out[2] multiple of 32 (prototype).
    const int W = p.out[2], H = p.out[1];
    const int gid = blockIdx.x * 128 + tid;
    const int ow = gid % W;
    const int rest = gid / W;
    const int oh0 = (rest % (H / kRows)) * kRows;
    const int od = rest / (H / kRows);
    const int xs3 = (int)p.x_stride[3], xs2 = (int)p.x_stride[2], xs1 = (int)p.x_stride[1];
    const int offm = ow > 0 ? -1 : 0, offp = ow < p.in[2] - 1 ? 1 : 0;
    const bool cm = ow > 0, cp = ow < p.in[2] - 1;
    float acc[kRows][8];
    // All inputs first (3 x 3 x (kRows+2) rows of 3), every load in flight at once.
    float v[kCin * 3][kRows + 2][3];
#pragma unroll
    for (int s = 0; s < kCin * 3; ++s) {
        const int ci = s / 3, kd = s % 3;
        const int id = od - 1 + kd;
        const bool plane_in = id >= 0 && id < p.in[0];
        const float *plane = x + ci * xs1 + (plane_in ? id : 0) * xs2 + ow;
#pragma unroll
        for (int rr = 0; rr < kRows + 2; ++rr) {
            const int ih = oh0 - 1 + rr;
            const bool in = plane_in && ih >= 0 && ih < p.in[1];
            const float *row = plane + (in ? ih : 0) * xs3;
            v[s][rr][0] = in && cm ? row[offm] : 0.f;
            v[s][rr][1] = in ? row[0] : 0.f;
            v[s][rr][2] = in && cp ? row[offp] : 0.f;
        }
    }
    __syncthreads();
#pragma unroll
    for (int r = 0; r < kRows; ++r)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[r][j] = taps[kTaps * 8 + j];
#pragma unroll
    for (int s = 0; s < kCin * 3; ++s)
#pragma unroll
        for (int kh = 0; kh < 3; ++kh)
#pragma unroll
            for (int kw = 0; kw < 3; ++kw) {
                const float4 *tp = taps4 + (s * 9 + kh * 3 + kw) * 2;
                const float4 a = tp[0], b = tp[1];
#pragma unroll
                for (int r = 0; r < kRows; ++r) {
                    const float u = v[s][r + kh][kw];
                    acc[r][0] = fmaf(u, a.x, acc[r][0]);
                    acc[r][1] = fmaf(u, a.y, acc[r][1]);
                    acc[r][2] = fmaf(u, a.z, acc[r][2]);
                    acc[r][3] = fmaf(u, a.w, acc[r][3]);
                    acc[r][4] = fmaf(u, b.x, acc[r][4]);
                    acc[r][5] = fmaf(u, b.y, acc[r][5]);
                    acc[r][6] = fmaf(u, b.z, acc[r][6]);
                    acc[r][7] = fmaf(u, b.w, acc[r][7]);
                }
            }
#pragma unroll
    for (int r = 0; r < kRows; ++r)
#pragma unroll
        for (int j = 0; j < 8; ++j)
            y[j * p.y_stride[1] + od * p.y_stride[2] + (oh0 + r) * p.y_stride[3] + ow] = acc[r][j];
}
}  // namespace hipconv

#ifndef LEAN_ROWS
#define LEAN_ROWS 2
#endif

extern "C" hipconv_status_t hipconv_conv3d_tiled_f32(const hipconv_conv3d_params *pp, hipconv_stream_t s) {
    const hipconv_conv3d_params &p = *pp;
    const bool seed = p.batch == 1 && p.cin == 3 && p.cout == 8 && p.groups == 1 && p.kernel[0] == 3 &&
                      p.kernel[1] == 3 && p.kernel[2] == 3 && p.pad[0] == 1 && p.pad[1] == 1 && p.pad[2] == 1 &&
                      p.x_stride[4] == 1 && p.out[2] % 32 == 0 && p.out[1] % LEAN_ROWS == 0 && !p.initial_frames &&
                      p.w_stride[4] == 1 && p.w_stride[3] == 3 && p.w_stride[2] == 9 && p.w_stride[1] == 27 && !p.silu;
    if (!seed) return hipconv::launch_conv3d_naive<float>(p, (hipStream_t)s);
    const int threads = p.out[0] * (p.out[1] / LEAN_ROWS) * p.out[2];
    hipLaunchKernelGGL((hipconv::lean_kernel<3, LEAN_ROWS>), dim3(threads / 128), dim3(128), 0, (hipStream_t)s, p);
    return (hipconv_status_t)hipGetLastError();
}
