// Dev bench of conv3d's ImplicitGemm launcher alone (hip/conv3d/implicit_gemm*.hip), for
// comparing builds of it without the library build: the bench's U-Net 32ch rows (2·64³,
// 3x3x3, padding 1, f16, channels-last x) timed as examples/bench times them (graph of K
// forwards over K rotating (x, y) sets past the L2, 3 warm-up replays, median of 30 timed / K),
// and a check of every case against a host double reference on the inputs as rounded
// (relative norm error under 1e-3 for f16 and 1e-2 for bf16, NaN-poisoned outputs; the
// reference runs on the host's cores, OpenMP). The cases cover the halo-tile kernel's edges:
// partial tiles along every axis, causal frames, dilation, 1x3x3 / 3x1x1 / 5x5x5 kernels,
// cout below 32, NCDHW y, bias and SiLU; and the wgmma kernel's load paths (A by TMA
// im2col boxes where cin is a multiple of 64, with stride, dilation, padding 0-2 and other
// kernels; A copied where it is not, or where initial frames are given); and the row-reuse
// kernel's (cin 96: partial tiles, padding 0-2, causal, frames, NCDHW y; HIPCONV_CONV3D_ROWS=0 in the
// environment sends its cases to the wgmma kernel).
// Build here, one binary per variant (SRC: a folder holding the hip/ tree to measure), and run
// on the GPU:
//   nvcc -std=c++17 -O3 -DHIPCONV_PLATFORM_NVIDIA -DHIPCONV_SM90A_SASS \
//     -gencode arch=compute_90a,code=sm_90a -I$SRC/hip/include -I$SRC/hip/common \
//     -x cu scripts/dev/implicit_bench.cu $(for f in $SRC/hip/conv3d/implicit_gemm*.hip; do echo -x cu $f; done) \
//     -o implicit_bench -Xcompiler -fopenmp -L$(dirname $(which nvcc))/../lib -cudart static
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "case_buffers.h"
#include "hipconv/conv3d.h"

struct Case {
    const char *name;
    int n, cin, cout, d, h, w, k[3], pad[3], dil[3];
    bool ncdhw_y, frames, bias, silu, bf16, time;
    bool causal = false;  // time padded at the front only (pad[0] ignored), frames or zeros
    int sample = 1;       // the reference checks every sample-th output position
    int stride = 1;       // along every axis (not with causal)
};

// NDHWC strides of [n, c, d, h, w] (channel stride 1), or NCDHW.
static void strides(bool ncdhw, int c, int d, int h, int w, int64_t (&s)[5]) {
    if (ncdhw) {
        s[4] = 1, s[3] = w, s[2] = (int64_t)h * w, s[1] = (int64_t)d * h * w, s[0] = (int64_t)c * d * h * w;
    } else {
        s[1] = 1, s[4] = c, s[3] = (int64_t)w * c, s[2] = (int64_t)h * w * c, s[0] = (int64_t)d * h * w * c;
    }
}

static double run_case(const Case &k, double *us) {
    hipconv_conv3d_params p{};
    p.batch = k.n, p.cin = k.cin, p.cout = k.cout, p.groups = 1;
    p.in[0] = k.d, p.in[1] = k.h, p.in[2] = k.w;
    for (int a = 0; a < 3; ++a)
        p.kernel[a] = k.k[a], p.stride[a] = k.stride, p.dilation[a] = k.dil[a], p.pad[a] = k.pad[a];
    const int span0 = (k.k[0] - 1) * k.dil[0];
    const bool causal = k.frames || k.causal;
    p.out[0] = causal ? k.d : (k.d + 2 * k.pad[0] - span0 - 1) / k.stride + 1;
    if (causal) p.pad[0] = span0;  // the front padding only
    p.out[1] = (k.h + 2 * k.pad[1] - (k.k[1] - 1) * k.dil[1] - 1) / k.stride + 1;
    p.out[2] = (k.w + 2 * k.pad[2] - (k.k[2] - 1) * k.dil[2] - 1) / k.stride + 1;
    strides(false, k.cin, k.d, k.h, k.w, p.x_stride);
    strides(k.ncdhw_y, k.cout, p.out[0], p.out[1], p.out[2], p.y_stride);
    strides(false, k.cin, p.pad[0], k.h, k.w, p.initial_stride);
    const int taps = k.k[0] * k.k[1] * k.k[2];
    // w [co, kd, kh, kw, ci]
    p.w_stride[1] = 1, p.w_stride[4] = k.cin, p.w_stride[3] = (int64_t)k.k[2] * k.cin,
    p.w_stride[2] = (int64_t)k.k[1] * k.k[2] * k.cin, p.w_stride[0] = (int64_t)taps * k.cin;
    p.silu = k.silu;
    const size_t xn = (size_t)k.n * k.cin * k.d * k.h * k.w;
    const size_t yn = (size_t)k.n * k.cout * p.out[0] * p.out[1] * p.out[2];
    const size_t wn = (size_t)k.cout * taps * k.cin, fn = k.frames ? (size_t)k.n * k.cin * p.pad[0] * k.h * k.w : 0;
    std::vector<uint16_t> hx(xn), hw(wn), hb(k.cout), hf(fn), hy(yn);
    for (auto &v : hx) v = bits_of(frand(), k.bf16);
    for (auto &v : hw) v = bits_of(frand() * 0.1f, k.bf16);
    for (auto &v : hb) v = bits_of(frand(), k.bf16);
    for (auto &v : hf) v = bits_of(frand(), k.bf16);
    const int sets = k.time ? std::max(3, (int)(150e6 / ((xn + yn) * 2))) : 1;
    CaseBuffers buffers(sets, hx.data(), xn * 2, yn * 2);
    buffers.w = upload(hw.data(), wn * 2);
    if (k.bias) buffers.bias = upload(hb.data(), k.cout * 2);
    if (k.frames) buffers.frames = upload(hf.data(), fn * 2);
    p.w = buffers.w, p.bias = buffers.bias, p.initial_frames = buffers.frames;
    auto forward = [&](cudaStream_t s) {
        return k.bf16 ? hipconv_conv3d_implicit_gemm_bf16(&p, (hipconv_stream_t)s)
                      : hipconv_conv3d_implicit_gemm_f16(&p, (hipconv_stream_t)s);
    };
    cudaStream_t stream;
    CK(cudaStreamCreate(&stream));
    p.x = buffers.xs[0], p.y = buffers.ys[0];
    CK((cudaError_t)forward(stream));
    CK(cudaStreamSynchronize(stream));
    CK(cudaMemcpy(hy.data(), buffers.ys[0], yn * 2, cudaMemcpyDeviceToHost));
    auto at = [](const int64_t (&s)[5], int n, int c, int d, int h, int w) {
        return n * s[0] + c * s[1] + d * s[2] + h * s[3] + w * s[4];
    };
    // NOCHECK=1 in the environment: no reference (timing runs; reported as unchecked).
    const int checked_batches = getenv("NOCHECK") != nullptr ? 0 : k.n;
    double num = 0, den = 0;
#pragma omp parallel for collapse(3) reduction(+ : num, den) schedule(dynamic)
    for (int n = 0; n < checked_batches; ++n)
        for (int z = 0; z < p.out[0]; ++z)
            for (int yy = 0; yy < p.out[1]; ++yy)
                for (int xx = 0; xx < p.out[2]; ++xx)
                    for (int co = 0; co < k.cout; ++co) {
                        if (((((int64_t)n * p.out[0] + z) * p.out[1] + yy) * p.out[2] + xx) % k.sample != 0) continue;
                        double acc = k.bias ? value_of(hb[co], k.bf16) : 0.0;
                        for (int a = 0; a < k.k[0]; ++a)
                            for (int bb = 0; bb < k.k[1]; ++bb)
                                for (int cc = 0; cc < k.k[2]; ++cc) {
                                    const int id = z * k.stride - p.pad[0] + a * k.dil[0],
                                              ih = yy * k.stride - p.pad[1] + bb * k.dil[1],
                                              iw = xx * k.stride - p.pad[2] + cc * k.dil[2];
                                    if (ih < 0 || ih >= k.h || iw < 0 || iw >= k.w || id >= k.d) continue;
                                    const uint16_t *src;
                                    if (id >= 0) {
                                        src = &hx[at(p.x_stride, n, 0, id, ih, iw)];
                                    } else {
                                        if (!k.frames || id < -p.pad[0]) continue;
                                        src = &hf[at(p.initial_stride, n, 0, p.pad[0] + id, ih, iw)];
                                    }
                                    const uint16_t *wr = &hw[(size_t)co * taps * k.cin +
                                                             ((a * k.k[1] + bb) * k.k[2] + cc) * k.cin];
                                    for (int ci = 0; ci < k.cin; ++ci)
                                        acc += (double)value_of(src[ci], k.bf16) * value_of(wr[ci], k.bf16);
                                }
                        if (k.silu) acc = acc / (1.0 + std::exp(-acc));
                        const double got = value_of(hy[at(p.y_stride, n, co, z, yy, xx)], k.bf16);
                        num += std::isnan(got) ? INFINITY : (got - acc) * (got - acc);
                        den += acc * acc;
                    }
    const double err = checked_batches > 0 ? std::sqrt(num / den) : -1.0;
    if (k.time) {
        *us = graph_median_us(stream, sets, 30, [&](int s) {
            p.x = buffers.xs[s], p.y = buffers.ys[s];
            CK((cudaError_t)forward(stream));
        });
    }
    CK(cudaStreamDestroy(stream));
    return err;
}

int main(int argc, char **argv) {
    // name, n, cin, cout, d, h, w, kernel, pad, dilation, ncdhw_y, frames, bias, silu, bf16, time
    const Case cases[] = {
        {"unet32 ndhwc f16", 2, 32, 32, 64, 64, 64, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, false, false, false, false, false, true},
        {"unet32 ndhwc bf16 bias silu", 2, 32, 32, 64, 64, 64, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, false, false, true, true, true, true},
        {"unet32 ncdhw-y f16", 2, 32, 32, 64, 64, 64, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, true, false, false, false, false, true},
        {"odd edges", 1, 32, 32, 5, 11, 19, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, false, false, true, false, false, false},
        {"odd edges bf16 silu", 2, 32, 32, 3, 9, 33, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, false, false, false, true, true, false},
        {"cout 24 ncdhw y", 1, 32, 24, 4, 10, 17, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, true, false, true, true, false, false},
        {"cout 8", 1, 32, 8, 3, 8, 16, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, false, false, true, false, false, false},
        {"causal frames", 2, 32, 32, 5, 9, 20, {3, 3, 3}, {2, 1, 1}, {1, 1, 1}, false, true, true, false, false, false},
        {"causal no frames", 1, 32, 32, 5, 9, 20, {3, 3, 3}, {2, 1, 1}, {1, 1, 1}, false, false, false, false, true, false},
        {"dilation 2", 1, 32, 32, 6, 12, 21, {3, 3, 3}, {2, 2, 2}, {2, 2, 2}, false, false, true, false, false, false},
        {"valid", 1, 32, 32, 6, 12, 21, {3, 3, 3}, {0, 0, 0}, {1, 1, 1}, false, false, false, false, false, false},
        {"1x3x3", 1, 32, 32, 3, 12, 21, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, false, false, true, false, false, false},
        {"3x1x1", 1, 32, 32, 6, 5, 21, {3, 1, 1}, {1, 0, 0}, {1, 1, 1}, false, false, true, false, true, false},
        {"5x5x5 (other kernel)", 1, 32, 32, 6, 7, 9, {5, 5, 5}, {2, 2, 2}, {1, 1, 1}, false, false, true, false, false, false},
        {"one position", 1, 32, 32, 1, 1, 1, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, false, false, true, true, false, false},
        // the wgmma kernel (cin 64 and more): partial m tiles, co tiles past cout, frames, NCDHW y
        {"wgmma cin64 cout40 odd", 1, 64, 40, 3, 7, 37, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, false, false, true, true, false,
         false},
        {"wgmma cin96 cout72 frames bf16", 2, 96, 72, 4, 6, 45, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, false, true, true, false,
         true, false},
        {"wgmma cin64 cout136 silu", 1, 64, 136, 3, 9, 30, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, false, false, false, true,
         false, false},
        {"wgmma cin128 ncdhw-y bias", 1, 128, 64, 3, 8, 21, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, true, false, true, false,
         true, false},
        {"wgmma cin64 cout384 bf16", 1, 64, 384, 2, 5, 27, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, false, false, true, true,
         true, false},
        // A by im2col TMA boxes (cin a multiple of 64, no frames): padding, dilation, strides,
        // kernels other than 3^3, batches, causal time, m tiles across rows, planes and batches
        {"tma-a cin64 dilation 2 batch 2", 2, 64, 64, 6, 12, 21, {3, 3, 3}, {2, 2, 2}, {2, 2, 2}, false, false, true,
         false, false, false},
        {"tma-a cin128 valid bf16", 1, 128, 96, 5, 9, 30, {3, 3, 3}, {0, 0, 0}, {1, 1, 1}, false, false, false, true,
         true, false},
        {"tma-a cin64 1x3x3", 2, 64, 32, 3, 11, 19, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, false, false, true, false, false,
         false},
        {"tma-a cin64 3x1x1", 1, 64, 64, 7, 5, 23, {3, 1, 1}, {1, 0, 0}, {1, 1, 1}, false, false, true, false, true,
         false},
        {"tma-a cin64 5x5x5", 1, 64, 40, 6, 7, 9, {5, 5, 5}, {2, 2, 2}, {1, 1, 1}, false, false, true, true, false,
         false},
        {"tma-a cin64 causal bf16", 2, 64, 64, 5, 9, 20, {3, 3, 3}, {2, 1, 1}, {1, 1, 1}, false, false, true, false,
         true, false, true},
        {"tma-a cin64 stride 2", 2, 64, 64, 7, 13, 22, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, false, false, true, false,
         false, false, false, 1, 2},
        {"tma-a cin128 stride 2 pad 0 ncdhw-y", 1, 128, 136, 6, 11, 17, {3, 3, 3}, {0, 0, 0}, {1, 1, 1}, true, false,
         false, true, true, false, false, 1, 2},
        // cin_g a multiple of 32 but not of 64: k-tiles straddling taps (A copied; the v45
        // halves patch loaded them as two 32-channel boxes)
        {"straddling cin96 cout72 causal bf16", 2, 96, 72, 4, 6, 45, {3, 3, 3}, {2, 1, 1}, {1, 1, 1}, false, false, true,
         false, true, false, true},
        {"straddling cin32 cout64 dil 2 stride 2", 2, 32, 64, 6, 12, 21, {3, 3, 3}, {2, 2, 2}, {2, 2, 2}, false, false,
         true, true, false, false, false, 1, 2},
        {"straddling cin160 cout40 valid ncdhw-y", 1, 160, 40, 5, 9, 30, {3, 3, 3}, {0, 0, 0}, {1, 1, 1}, true, false,
         false, false, false, false},
        {"cin64 causal frames (copies)", 1, 64, 64, 5, 9, 20, {3, 3, 3}, {2, 1, 1}, {1, 1, 1}, false, true, true, false,
         false, false},
        {"tma-a cin192 cout192 silu", 1, 192, 192, 3, 8, 50, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, false, false, true, true,
         false, false},
        // the wgmma kernel's TMA paths with 3 to 4 tiles to a block's SM: one k-tile a tile (fewer
        // than the boxes ahead), two, and the shared-memory epilogue (NCDHW y)
        {"tma-a cin64 1x1x1 one k-tile", 2, 64, 48, 4, 90, 141, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, false, false, true,
         false, false, false},
        {"tma-a halves cin32 cout64 1x1x1", 2, 32, 64, 4, 90, 141, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, false, false,
         false, true, true, false},
        {"tma-a halves cin96 1x1x1 two k-tiles", 2, 96, 40, 4, 90, 141, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, false, false,
         true, true, true, false},
        {"tma-a cin64 1x1x1 ncdhw-y", 2, 64, 24, 4, 90, 141, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, true, false, true, false,
         false, false},
        {"tma-a cin64 3x3x3 tiles a block", 1, 64, 64, 3, 100, 130, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, false, false, true,
         true, true, false, false, 13},
        // the row-reuse kernel (implicit_gemm_rows.hip: 3x3x3, cin 96, cout 65-96, stride 1):
        // partial tiles along oh and ow, padding 0 and 2, one position, a tall causal case
        {"rows cin96 odd edges f16 bias silu", 2, 96, 96, 3, 7, 70, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, false, false, true,
         true, false, false},
        {"rows cin96 cout80 valid bf16 bias", 1, 96, 80, 5, 10, 131, {3, 3, 3}, {0, 0, 0}, {1, 1, 1}, false, false,
         true, false, true, false},
        {"rows cin96 cout88 pad 2 f16 silu", 1, 96, 88, 3, 6, 61, {3, 3, 3}, {2, 2, 2}, {1, 1, 1}, false, false, false,
         true, false, false},
        {"rows cin96 one position bf16", 1, 96, 96, 1, 1, 1, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, false, false, true, true,
         true, false},
        {"rows cin96 tall causal bf16 silu", 2, 96, 96, 3, 65, 200, {3, 3, 3}, {0, 1, 1}, {1, 1, 1}, false, false,
         true, true, true, false, true, 3},
        {"rows cin96 ncdhw-y odd edges bf16 bias silu", 2, 96, 96, 3, 7, 70, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, true,
         false, true, true, true, false},
        {"rows cin96 cout72 ncdhw-y pad 0 f16", 1, 96, 72, 4, 9, 133, {3, 3, 3}, {0, 0, 0}, {1, 1, 1}, true, false,
         false, false, false, false},
        {"rows cin96 frames ncdhw-y f16 silu", 1, 96, 96, 5, 9, 70, {3, 3, 3}, {2, 1, 1}, {1, 1, 1}, true, true, false,
         true, false, false},
        {"rows cin96 cout88 frames bf16 bias", 2, 96, 88, 3, 6, 61, {3, 3, 3}, {2, 1, 1}, {1, 1, 1}, false, true, true,
         false, true, false},
        // cout 70: y's positions not 16-byte aligned, so NDHWC y goes through shared memory too
        {"rows cin96 cout70 unaligned y f16 bias silu", 1, 96, 70, 2, 5, 67, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, false,
         false, true, true, false, false},
        {"rows cin96 cout70 ncdhw-y bf16", 1, 96, 70, 2, 5, 67, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, true, false, false,
         false, true, false},
        // the wgmma kernel's bench rows (every 61st / 7th / 17th position checked)
        {"VAE 96ch ndhwc bf16 causal", 1, 96, 96, 4, 480, 832, {3, 3, 3}, {0, 1, 1}, {1, 1, 1}, false, false, false,
         false, true, true, true, 61},
        {"VAE 96ch ncdhw-y bf16 causal", 1, 96, 96, 4, 480, 832, {3, 3, 3}, {0, 1, 1}, {1, 1, 1}, true, false, false,
         false, true, true, true, 61},
        // probe: the VAE 96ch row's N = 96 with 64-channel boxes (cin 128: kTmaAB, 54 k-tiles a
        // tile against 41 half-box k-tiles at cin 96); same k-tile work, half the im2col rows
        {"VAE cin128 cout96 probe bf16", 1, 128, 96, 4, 480, 832, {3, 3, 3}, {0, 1, 1}, {1, 1, 1}, false, false, false,
         false, true, true, true, 61},
        {"unet128 ndhwc f16", 2, 128, 128, 32, 32, 32, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, false, false, false, false,
         false, true, false, 7},
        {"384ch ndhwc bf16 causal", 1, 384, 384, 4, 120, 208, {3, 3, 3}, {0, 1, 1}, {1, 1, 1}, false, false, false,
         false, true, true, true, 17},
    };
    return run_16bit_cases(argc, argv, cases, run_case);
}
