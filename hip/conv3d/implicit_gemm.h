/*
 * What conv3d's implicit-GEMM kernels share (implicit_gemm.hip: the portable kernels and
 * the NVIDIA tap-run kernel; implicit_gemm_sm90.hip: the Hopper wgmma kernel;
 * implicit_gemm_rows.hip: the Hopper row-reuse kernel):
 *   IgGeometry     the host-computed sizes of one launch (m, k, tiles);
 *   RowInfo        an output position's first tap in x (row_info);
 *   async_copy16   one 16-byte cp.async with zero fill;
 *   TapWalk        the walk of a half k-tile over (tap, channel run) by pointer adds, with
 *                  the host-computed FastSteps: no division in the main loop;
 *   a_row_source   where an A row's channel run of the walk's tap lives (x, initial
 *                  frames, or nullptr in the padding).
 * The GEMM is C[m, co] = sum_k A[m, k] * W[co, k] per group, m = (n, od, oh, ow) and k =
 * (kd, kh, kw, ci) with ci innermost (implicit_gemm.hip's header has the full contract).
 */
#pragma once

#include <initializer_list>
#include <optional>

#include "compat.h"
#include "geometry.h"
#include "hipconv/conv3d.h"
#include "launch.h"
#include "output_tile.h"

namespace hipconv {
namespace conv3d {

constexpr int kIgThreads = 256;

// Host-computed sizes of one launch.
struct IgGeometry {
    int32_t m;
    int32_t cin_g;
    int32_t cout_g;
    int32_t k_g;
    int32_t k_tiles;
    int32_t ci_inner;  // k order (kd, kh, kw, ci); else (ci, kd, kh, kw)
    int64_t n_tiles;
    int64_t tiles;
};

// An output position's first tap (n < 0: past m, reads zero).
struct RowInfo {
    int64_t base;  // x offset of (n, g*cin_g, id0, ih0, iw0)
    int32_t n, id0, ih0, iw0;
};

__device__ inline RowInfo row_info(const hipconv_conv3d_params &p, const IgGeometry &geo, int64_t m, int g) {
    RowInfo r{0, -1, 0, 0, 0};
    if (m >= geo.m) return r;
    const OutputPosition o = output_position(p, m);
    r.n = o.n;
    r.id0 = o.od * p.stride[0] - p.pad[0];
    r.ih0 = o.oh * p.stride[1] - p.pad[1];
    r.iw0 = o.ow * p.stride[2] - p.pad[2];
    r.base = offset(p.x_stride, o.n, (int64_t)g * geo.cin_g, r.id0, r.ih0, r.iw0);
    return r;
}

#if defined(HIPCONV_PLATFORM_NVIDIA)
// 16 bytes from src (nullptr: zeros; `any` is then the readable address cp.async wants).
__device__ inline void async_copy16(void *dst, const void *src, const void *any) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    const unsigned to = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(to), "l"(src != nullptr ? src : any),
                 "r"(src != nullptr ? 16 : 0)
                 : "memory");
#endif
}

// Host-computed offset steps of the tap walk (x and w channel stride 1): moving from the
// last channel run of a tap to the first of the next, when kw advances (w_), when kw wraps
// and kh advances (h_), when kh wraps and kd advances (d_); each includes the undone parts.
struct FastSteps {
    int64_t x_w, x_h, x_d;
    int64_t w_w, w_h, w_d;
};

inline FastSteps fast_steps(const hipconv_conv3d_params &p, int cin_g) {
    FastSteps s;
    const int64_t xw = (int64_t)p.dilation[2] * p.x_stride[4], xh = (int64_t)p.dilation[1] * p.x_stride[3],
                  xd = (int64_t)p.dilation[0] * p.x_stride[2];
    s.x_w = xw - cin_g;
    s.x_h = xh - xw * p.kernel[2];
    s.x_d = xd - xh * p.kernel[1];
    s.w_w = p.w_stride[4] - cin_g;
    s.w_h = p.w_stride[3] - p.w_stride[4] * p.kernel[2];
    s.w_d = p.w_stride[2] - p.w_stride[3] * p.kernel[1];
    return s;
}

// One thread's position in k: channels ci .. of tap (kd, kh, kw), whose displacements are
// (dd, dh, dw), at offsets xoff (from an A row's base) and woff (from an output channel's
// row of w). Past the last tap: kd == kernel[0] (reads zero).
struct TapWalk {
    int ci, kw, kh, kd, dd, dh, dw;
    int64_t xoff, woff;

    __device__ void start(int ci0, const hipconv_conv3d_params &p, int cin_g, const FastSteps &steps) {
        ci = ci0;
        kw = kh = kd = dd = dh = dw = 0;
        xoff = woff = ci0;
        settle(p, cin_g, steps);
    }
    // k on by `k` channels (k-tiles hold whole channel runs of cin_g's divisors).
    __device__ void advance(int k, const hipconv_conv3d_params &p, int cin_g, const FastSteps &steps) {
        ci += k;
        xoff += k;
        woff += k;
        settle(p, cin_g, steps);
    }
    __device__ bool inside(const hipconv_conv3d_params &p) const { return kd < p.kernel[0]; }

    // Past cin_g: on to the tap that holds channel ci.
    __device__ void settle(const hipconv_conv3d_params &p, int cin_g, const FastSteps &steps) {
        while (ci >= cin_g && kd < p.kernel[0]) {
            ci -= cin_g;
            xoff += steps.x_w;
            woff += steps.w_w;
            dw += p.dilation[2];
            if (++kw == p.kernel[2]) {
                kw = 0;
                dw = 0;
                xoff += steps.x_h;
                woff += steps.w_h;
                dh += p.dilation[1];
                if (++kh == p.kernel[1]) {
                    kh = 0;
                    dh = 0;
                    xoff += steps.x_d;
                    woff += steps.w_d;
                    dd += p.dilation[0];
                    ++kd;
                }
            }
        }
    }
};

// An A row as the tap-run kernels keep it: the x offset of its first tap plus the thread's
// channel offset, and its first-tap position (past m: ih0 far below 0, so it reads zero).
struct ARow {
    int64_t base;
    int n, id0, ih0, iw0;
};

__device__ inline ARow a_row(const hipconv_conv3d_params &p, const IgGeometry &geo, int64_t m, int g, int channel) {
    const RowInfo r = row_info(p, geo, m, g);
    return ARow{r.base + channel, r.n, r.id0, r.n < 0 ? INT32_MIN / 2 : r.ih0, r.iw0};
}

// The 16 bytes of row `a` at the walk's position (channel ci + `channel`): x, the initial
// frames before depth 0, or nullptr (zeros) in the padding and past the taps.
template <typename T>
__device__ inline const T *a_row_source(const hipconv_conv3d_params &p, const ARow &a, const TapWalk &walk, int g,
                                        int cin_g, int channel) {
    const int id = a.id0 + walk.dd, ih = a.ih0 + walk.dh, iw = a.iw0 + walk.dw;
    if (!walk.inside(p) || (unsigned)ih >= (unsigned)p.in[1] || (unsigned)iw >= (unsigned)p.in[2] || id >= p.in[0])
        return nullptr;
    if (id >= 0) return static_cast<const T *>(p.x) + (a.base + walk.xoff);
    return input_at<T>(p, a.n, g * cin_g + walk.ci + channel, id, ih, iw);  // frames or 0
}

// Whether the current device runs this build's sm_90a kernels (wgmma): a compute capability
// 9.0 device, and sm_90a code in the build (build.rs defines HIPCONV_SM90A_SASS).
bool device_runs_sm90a();

// Whether conv3d's Hopper kernels may use TMA (the default): HIPCONV_CONV3D_TMA=0 in the
// environment makes the wgmma kernel copy A and B by every thread, the halo-tile kernel
// and Depthwise's NCDHW kernel copy their halos and planes by every thread, and leaves
// Depthwise's diagonal-operand kernel out, for comparison. Read once per process.
bool tma_allowed();

// Whether w's rows are dense along k = (kd, kh, kw, ci) (channel stride 1, taps in order):
// then a k-tile's B is a box of the 2-D view w[cout][k_g].
inline bool weights_dense_along_k(const hipconv_conv3d_params &p, int64_t cin_g) {
    return p.w_stride[1] == 1 && p.w_stride[4] == cin_g && p.w_stride[3] == p.kernel[2] * cin_g &&
           p.w_stride[2] == (int64_t)p.kernel[1] * p.kernel[2] * cin_g;
}

// The Hopper kernel (implicit_gemm_sm90.hip), T __half or hipconv_bf16: x and w with
// channel stride 1 and 16-byte chunks (vector_loads_ok), cin_g a multiple of 32, a device
// that runs sm_90a code. geo: m, cin_g, cout_g and k_g set.
template <typename T>
hipconv_status_t launch_implicit_wgmma(const hipconv_conv3d_params &p, IgGeometry geo, hipStream_t stream);

// The Hopper row-reuse kernel (implicit_gemm_rows.hip), T __half or hipconv_bf16: launched
// where it takes p (rows_kernel_takes there: 3x3x3, stride and dilation 1, groups 1, cin 96,
// cout 65-96, x, w and initial frames channels-last for TMA, y in any layout, an sm_90a
// device), with the launch's status; nullopt where it does not.
template <typename T>
std::optional<hipconv_status_t> try_launch_implicit_rows(const hipconv_conv3d_params &p, hipStream_t stream);
#endif

// x, w (and initial_frames) allow 16-byte chunks of 16 / sizeof(T) channels.
template <typename T> bool vector_loads_ok(const hipconv_conv3d_params &p) {
    constexpr int kVec = 16 / sizeof(T);
    auto chunked = [](const void *base, const int64_t(&s)[kTensorAxes]) {
        for (int a = 0; a < kTensorAxes; ++a)
            if (a != 1 && s[a] % kVec != 0) return false;
        return (reinterpret_cast<uintptr_t>(base) & 15) == 0 && s[1] == 1;  // axis 1: channels
    };
    const int cin_g = p.cin / p.groups;
    return cin_g % kVec == 0 && chunked(p.x, p.x_stride) && chunked(p.w, p.w_stride) &&
           (p.initial_frames == nullptr || chunked(p.initial_frames, p.initial_stride));
}

// The halo-tile kernel (implicit_gemm_halo.hip), T __half or hipconv_bf16: launched where it
// takes p (groups 1, cin 32, cout <= 32, stride 1, vector_loads_ok, its shared memory within
// the device's), with the launch's status; nullopt where it does not.
template <typename T>
std::optional<hipconv_status_t> try_launch_implicit_halo(const hipconv_conv3d_params &p, hipStream_t stream);

// The co tile of `candidates` (widest first) up to `widest` that pads cout_g the least
// (ties: the wider).
inline int least_padding_tile(int cout_g, int widest, std::initializer_list<int> candidates) {
    int best = 0;
    for (int candidate : candidates) {
        if (candidate > widest) continue;
        if (best == 0 || ceil_div(cout_g, candidate) * candidate < ceil_div(cout_g, best) * best) best = candidate;
    }
    return best;
}

}  // namespace conv3d
}  // namespace hipconv
