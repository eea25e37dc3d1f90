/*
 * final_frames (hipconv/conv3d.h): the last pad[0] frames of initial_frames ++ x along depth,
 * which the next chunk of a causal video reads as its initial_frames.
 *
 *   in   x [batch, cin, in[0], in[1], in[2]] by x_stride,
 *        initial_frames [batch, cin, pad[0], in[1], in[2]] by initial_stride, or NULL (zeros)
 *   out  final_frames [batch, cin, pad[0], in[1], in[2]] by final_stride
 *        final[n, c, j, h, w] = xx[n, c, in[0] - pad[0] + j, h, w],  j < pad[0]
 *        xx[.., i, ..] = x[.., i, ..] for i >= 0, initial_frames[.., pad[0] + i, ..] for i < 0
 *
 * An exact copy of the element bits (f16 and bf16 share one kernel). Launch: 256 threads,
 * grid-stride over batch*cin*pad[0]*in[1]*in[2] elements, 64-bit; the element order follows
 * final_frames' layout (channel fastest where its channel stride is 1, else width fastest)
 * so that the writes are coalesced. pad[0] == 0 launches nothing.
 */
#include "compat.h"
#include "element.h"
#include "geometry.h"
#include "hipconv/conv3d.h"
#include "launch.h"

namespace hipconv {

namespace {

constexpr int kFramesThreads = 256;

template <typename Bits>
__global__ void __launch_bounds__(kFramesThreads) conv3d_final_frames_kernel(hipconv_conv3d_frames_params q,
                                                                             bool channel_fastest) {
    const hipconv_conv3d_params &p = q.conv;
    const Bits *x = static_cast<const Bits *>(p.x);
    const Bits *initial = static_cast<const Bits *>(p.initial_frames);
    Bits *final_frames = static_cast<Bits *>(q.final_frames);
    const int frames = p.pad[0];
    const int64_t total = (int64_t)p.batch * p.cin * frames * p.in[1] * p.in[2];
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < total; i += (int64_t)gridDim.x * blockDim.x) {
        int n, c, j, h, w;
        QuotientRemainder r;
        if (channel_fastest) {  // (n, j, h, w, c)
            r = divide(i, p.cin);
            c = (int)r.remainder;
            r = divide(r.quotient, p.in[2]);
            w = (int)r.remainder;
            r = divide(r.quotient, p.in[1]);
            h = (int)r.remainder;
            r = divide(r.quotient, frames);
            j = (int)r.remainder;
            n = (int)r.quotient;
        } else {  // (n, c, j, h, w)
            r = divide(i, p.in[2]);
            w = (int)r.remainder;
            r = divide(r.quotient, p.in[1]);
            h = (int)r.remainder;
            r = divide(r.quotient, frames);
            j = (int)r.remainder;
            r = divide(r.quotient, p.cin);
            c = (int)r.remainder;
            n = (int)r.quotient;
        }
        // index >= in[0] - pad[0] >= 1 - pad[0]: an initial frame index pad[0] + index >= 1.
        const int index = p.in[0] - frames + j;
        Bits v = 0;
        if (index >= 0)
            v = x[conv3d::offset(p.x_stride, n, c, index, h, w)];
        else if (initial != nullptr)
            v = initial[conv3d::offset(p.initial_stride, n, c, frames + index, h, w)];
        final_frames[conv3d::offset(q.final_stride, n, c, j, h, w)] = v;
    }
}

}  // namespace

template <typename T>
hipconv_status_t launch_conv3d_final_frames(const hipconv_conv3d_frames_params &q, hipStream_t stream) {
    const hipconv_conv3d_params &p = q.conv;
    // conv.w, conv.bias and conv.y are not read: only x (and final_frames) must be present.
    if (p.x == nullptr || !conv3d::valid_shape(p)) return (hipconv_status_t)hipErrorInvalidValue;
    if (p.pad[0] == 0) return (hipconv_status_t)hipSuccess;  // no frames to keep
    if (q.final_frames == nullptr) return (hipconv_status_t)hipErrorInvalidValue;
    const int64_t total = (int64_t)p.batch * p.cin * p.pad[0] * p.in[1] * p.in[2];
    const bool channel_fastest = q.final_stride[1] == 1 && q.final_stride[4] != 1;
    hipLaunchKernelGGL(conv3d_final_frames_kernel<element_bits_t<T>>, dim3(grid_blocks(ceil_div(total, kFramesThreads))),
                       dim3(kFramesThreads), 0, stream, q, channel_fastest);
    return last_launch_status();
}

}  // namespace hipconv

HIPCONV_EXPORT_PER_DTYPE(conv3d_final_frames, hipconv_conv3d_frames_params)
