/*
 * Naive conv3d (hipconv/conv3d.h): the reference-shaped forward, one thread per output
 * element; any geometry, groups, strides, padding, dilation and initial frames.
 *
 *   in   x [batch, cin, in[0..2]] by x_stride, w [cout, cin_g, kernel[0..2]] by w_stride,
 *        bias [cout] or NULL, initial_frames [batch, cin, pad[0], in[1], in[2]] or NULL
 *   out  y [batch, cout, out[0..2]] by y_stride
 *        y[n, co, o] = act(bias[co] + sum_{ci, k} w[co, ci, k] * x[n, g*cin_g + ci, o*stride - pad + k*dilation])
 *
 * Launch: 256 threads, grid-stride (64-bit) over batch*cout*out[0]*out[1]*out[2] outputs in
 * y's own order: output channel fastest where y's channel stride is 1 (NDHWC), else width
 * fastest (NCDHW), so the writes of a wave are contiguous. Each thread sums its
 * cin_g*kernel taps in fp32 (padding and initial frames through conv3d::input_at).
 */
#include "activation.h"
#include "compat.h"
#include "element.h"
#include "geometry.h"
#include "hipconv/conv3d.h"
#include "launch.h"

namespace hipconv {

namespace {

constexpr int kNaiveThreads = 256;

template <typename T>
__global__ void __launch_bounds__(kNaiveThreads) conv3d_naive_kernel(hipconv_conv3d_params p, bool channel_fastest) {
    const T *w = static_cast<const T *>(p.w);
    const T *bias = static_cast<const T *>(p.bias);
    T *y = static_cast<T *>(p.y);
    const int cin_g = p.cin / p.groups, cout_g = p.cout / p.groups;
    const int64_t spatial = (int64_t)p.out[0] * p.out[1] * p.out[2];
    const int64_t total = conv3d::output_positions(p) * p.cout;
    const bool silu = p.silu != 0;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < total; i += (int64_t)gridDim.x * blockDim.x) {
        int co;
        conv3d::OutputPosition o;
        if (channel_fastest) {  // (n, od, oh, ow, co)
            const QuotientRemainder r = divide(i, p.cout);
            co = (int)r.remainder;
            o = conv3d::output_position(p, r.quotient);
        } else {  // (n, co, od, oh, ow)
            const QuotientRemainder r = divide(i, spatial);
            const QuotientRemainder s = divide(r.quotient, p.cout);
            co = (int)s.remainder;
            o = conv3d::output_position(p, s.quotient * spatial + r.remainder);
        }
        const int c0 = (co / cout_g) * cin_g;
        const int id0 = o.od * p.stride[0] - p.pad[0];
        const int ih0 = o.oh * p.stride[1] - p.pad[1];
        const int iw0 = o.ow * p.stride[2] - p.pad[2];
        float acc = bias != nullptr ? to_float(bias[co]) : 0.f;
        for (int ci = 0; ci < cin_g; ++ci) {
            for (int kd = 0; kd < p.kernel[0]; ++kd) {
                const int id = id0 + kd * p.dilation[0];
                for (int kh = 0; kh < p.kernel[1]; ++kh) {
                    const int ih = ih0 + kh * p.dilation[1];
                    for (int kw = 0; kw < p.kernel[2]; ++kw) {
                        const T *at = conv3d::input_at<T>(p, o.n, c0 + ci, id, ih, iw0 + kw * p.dilation[2]);
                        if (at == nullptr) continue;
                        acc += to_float(w[conv3d::offset(p.w_stride, co, ci, kd, kh, kw)]) * to_float(*at);
                    }
                }
            }
        }
        y[conv3d::offset(p.y_stride, o.n, co, o.od, o.oh, o.ow)] = from_float<T>(activate_fast(acc, silu));
    }
}

}  // namespace

template <typename T> hipconv_status_t launch_conv3d_naive(const hipconv_conv3d_params &p, hipStream_t stream) {
    if (!conv3d::valid_params(p)) return (hipconv_status_t)hipErrorInvalidValue;
    const int64_t total = conv3d::output_positions(p) * p.cout;
    const bool channel_fastest = p.y_stride[1] == 1 && p.y_stride[4] != 1;
    hipLaunchKernelGGL(conv3d_naive_kernel<T>, dim3(grid_blocks(ceil_div(total, kNaiveThreads))), dim3(kNaiveThreads), 0,
                       stream, p, channel_fastest);
    return last_launch_status();
}

#define HIPCONV_INSTANTIATE(T) template hipconv_status_t launch_conv3d_naive<T>(const hipconv_conv3d_params &, hipStream_t);
HIPCONV_INSTANTIATE(__half)
HIPCONV_INSTANTIATE(hipconv_bf16)
HIPCONV_INSTANTIATE(float)
#undef HIPCONV_INSTANTIATE

}  // namespace hipconv

HIPCONV_EXPORT_PER_DTYPE(conv3d_naive, hipconv_conv3d_params)
