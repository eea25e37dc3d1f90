// Dev bench of conv3d's Depthwise launcher alone (hip/conv3d/depthwise.hip and what it
// calls), for comparing builds of it without the library build: the bench's depthwise row
// (8·192·16·56·56, 3x3x3, padding 1, f16) in NCDHW and NDHWC as examples/bench times it
// (graph of K forwards over K rotating (x, y) sets past the L2, 3 warm-up replays, median of
// 30 timed / K), and a check of every case against a host double reference on the inputs
// as rounded (relative norm error under 1e-3 for f16 and 1e-2 for bf16, NaN-poisoned
// outputs; the reference runs on the host's cores, OpenMP). The cases cover both
// matrix-core kernels' edges (NCDHW and NDHWC): several row tiles, wide rows, odd widths,
// pad[2] 0, pad[1] 2, pad[0] 2, causal frames, depth chunks, bias and SiLU; the "generic" cases cover
// depthwise_generic.hip (other kernel sizes, strides and dilations, odd channel counts, with
// eight of them timed at the bench's shape). NAIVE=1 runs the naive kernel instead of the
// Depthwise launcher (the baseline of geometries that had no depthwise kernel). The
// library's bench is the number of record; this compares variants within one device call.
// Build here, one binary per variant (SRC: a folder holding the hip/ tree to measure; add
// depthwise_toeplitz.hip, depthwise_toeplitz_last.hip and depthwise_diagonal.hip where the
// tree has them; the last needs implicit_gemm_sm90.hip and HIPCONV_SM90A_SASS), and run on
// the GPU (HIPCONV_CONV3D_TMA=0 leaves the diagonal kernel out, for comparison):
//   nvcc -std=c++17 -O3 -DHIPCONV_PLATFORM_NVIDIA -DHIPCONV_SM90A_SASS \
//     -gencode arch=compute_90a,code=sm_90a -I$SRC/hip/include -I$SRC/hip/common \
//     -I$SRC/hip/conv3d -x cu scripts/dev/depthwise_bench.cu \
//     $(for f in depthwise depthwise_generic naive depthwise_toeplitz depthwise_toeplitz_last \
//       depthwise_diagonal implicit_gemm_sm90; do echo -x cu $SRC/hip/conv3d/$f.hip; done) \
//     -o depthwise_bench -Xcompiler -fopenmp -L$(dirname $(which nvcc))/../lib -cudart static
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
    int n, c, d, h, w, pad[3];
    bool ndhwc, frames, bias, silu, bf16, time;
    int stride = 1;  // on h and w
    int kernel[3] = {3, 3, 3};
    int depth_stride = 1;
    int dilation[3] = {1, 1, 1};
};

static void strides(bool ndhwc, int c, int d, int h, int w, int64_t (&s)[5]) {
    if (ndhwc) {
        s[1] = 1, s[4] = c, s[3] = (int64_t)w * c, s[2] = (int64_t)h * w * c, s[0] = (int64_t)d * h * w * c;
    } else {
        s[4] = 1, s[3] = w, s[2] = (int64_t)h * w, s[1] = (int64_t)d * h * w, s[0] = (int64_t)c * d * h * w;
    }
}

// NAIVE=1 in the environment: the naive kernel instead of the Depthwise launcher (the
// baseline of geometries that had no depthwise kernel).
static hipconv_status_t forward(const Case &k, const hipconv_conv3d_params &p, cudaStream_t s) {
    static const bool naive = getenv("NAIVE") != nullptr && strcmp(getenv("NAIVE"), "1") == 0;
    if (naive)
        return k.bf16 ? hipconv_conv3d_naive_bf16(&p, (hipconv_stream_t)s) : hipconv_conv3d_naive_f16(&p, (hipconv_stream_t)s);
    return k.bf16 ? hipconv_conv3d_depthwise_bf16(&p, (hipconv_stream_t)s)
                  : hipconv_conv3d_depthwise_f16(&p, (hipconv_stream_t)s);
}

// Returns the relative norm error of one forward against a double reference (infinite if
// any output is NaN); times it if k.time.
static double run_case(const Case &k, double *us) {
    hipconv_conv3d_params p{};
    p.batch = k.n, p.cin = k.c, p.cout = k.c, p.groups = k.c;
    p.in[0] = k.d, p.in[1] = k.h, p.in[2] = k.w;
    const int in[3] = {k.d, k.h, k.w};
    for (int a = 0; a < 3; ++a) {
        p.kernel[a] = k.kernel[a], p.stride[a] = a == 0 ? k.depth_stride : k.stride, p.dilation[a] = k.dilation[a];
        p.pad[a] = k.pad[a];
        const int padded = in[a] + (a == 0 && k.frames ? 1 : 2) * k.pad[a];  // causal: front padding only
        p.out[a] = (padded - k.dilation[a] * (k.kernel[a] - 1) - 1) / p.stride[a] + 1;
    }
    const int kk = k.kernel[0] * k.kernel[1] * k.kernel[2];
    strides(k.ndhwc, k.c, k.d, k.h, k.w, p.x_stride);
    strides(k.ndhwc, k.c, p.out[0], p.out[1], p.out[2], p.y_stride);
    strides(k.ndhwc, k.c, k.pad[0], k.h, k.w, p.initial_stride);
    // w [co, kd, kh, kw, 1] (NDHWC) or [co, 1, kd, kh, kw]: the same offsets at cin_g 1.
    p.w_stride[4] = 1, p.w_stride[3] = k.kernel[2], p.w_stride[2] = k.kernel[1] * k.kernel[2];
    p.w_stride[1] = k.ndhwc ? 1 : kk, p.w_stride[0] = kk;
    p.silu = k.silu;
    const size_t xn = (size_t)k.n * k.c * k.d * k.h * k.w;
    const size_t yn = (size_t)k.n * k.c * p.out[0] * p.out[1] * p.out[2];
    const size_t wn = (size_t)k.c * kk, fn = (size_t)k.n * k.c * k.pad[0] * k.h * k.w;
    std::vector<uint16_t> hx(xn), hw(wn), hb(k.c), hf(fn), hy(yn);
    for (auto &v : hx) v = bits_of(frand(), k.bf16);
    for (auto &v : hw) v = bits_of(frand() * 0.3f, k.bf16);
    for (auto &v : hb) v = bits_of(frand(), k.bf16);
    for (auto &v : hf) v = bits_of(frand(), k.bf16);
    const int sets = k.time ? std::max(3, (int)(150e6 / ((xn + yn) * 2))) : 1;
    CaseBuffers buffers(sets, hx.data(), xn * 2, yn * 2);
    buffers.w = upload(hw.data(), wn * 2);
    if (k.bias) buffers.bias = upload(hb.data(), k.c * 2);
    if (k.frames) buffers.frames = upload(hf.data(), fn * 2);
    p.w = buffers.w, p.bias = buffers.bias, p.initial_frames = buffers.frames;
    cudaStream_t stream;
    CK(cudaStreamCreate(&stream));
    p.x = buffers.xs[0], p.y = buffers.ys[0];
    CK((cudaError_t)forward(k, p, stream));
    CK(cudaStreamSynchronize(stream));
    CK(cudaMemcpy(hy.data(), buffers.ys[0], yn * 2, cudaMemcpyDeviceToHost));
    auto at = [](const int64_t (&s)[5], int n, int c, int d, int h, int w) {
        return n * s[0] + c * s[1] + d * s[2] + h * s[3] + w * s[4];
    };
    double num = 0, den = 0;
#pragma omp parallel for collapse(2) reduction(+ : num, den)
    for (int n = 0; n < k.n; ++n)
        for (int c = 0; c < k.c; ++c)
            for (int z = 0; z < p.out[0]; ++z)
                for (int yy = 0; yy < p.out[1]; ++yy)
                    for (int xx = 0; xx < p.out[2]; ++xx) {
                        double acc = k.bias ? value_of(hb[c], k.bf16) : 0.0;
                        for (int a = 0; a < k.kernel[0]; ++a)
                            for (int bb = 0; bb < k.kernel[1]; ++bb)
                                for (int cc = 0; cc < k.kernel[2]; ++cc) {
                                    const int id = z * k.depth_stride - k.pad[0] + a * k.dilation[0];
                                    const int ih = yy * k.stride - k.pad[1] + bb * k.dilation[1];
                                    const int iw = xx * k.stride - k.pad[2] + cc * k.dilation[2];
                                    if (ih < 0 || ih >= k.h || iw < 0 || iw >= k.w || id >= k.d) continue;
                                    double xv;
                                    if (id >= 0) {
                                        xv = value_of(hx[at(p.x_stride, n, c, id, ih, iw)], k.bf16);
                                    } else {
                                        if (!k.frames || id < -k.pad[0]) continue;
                                        xv = value_of(hf[at(p.initial_stride, n, c, k.pad[0] + id, ih, iw)], k.bf16);
                                    }
                                    acc += xv * value_of(hw[c * kk + (a * k.kernel[1] + bb) * k.kernel[2] + cc], k.bf16);
                                }
                        if (k.silu) acc = acc / (1.0 + std::exp(-acc));
                        const double got = value_of(hy[at(p.y_stride, n, c, z, yy, xx)], k.bf16);
                        num += std::isnan(got) ? INFINITY : (got - acc) * (got - acc);
                        den += acc * acc;
                    }
    const double err = std::sqrt(num / den);
    if (k.time) {
        *us = graph_median_us(stream, sets, 30, [&](int s) {
            p.x = buffers.xs[s], p.y = buffers.ys[s];
            CK((cudaError_t)forward(k, p, stream));
        });
    }
    CK(cudaStreamDestroy(stream));
    return err;
}

int main(int argc, char **argv) {
    // name, n, c, d, h, w, pad, ndhwc, frames, bias, silu, bf16, time
    const Case cases[] = {
        {"bench ncdhw f16", 8, 192, 16, 56, 56, {1, 1, 1}, false, false, false, false, false, true},
        {"bench ndhwc f16", 8, 192, 16, 56, 56, {1, 1, 1}, true, false, false, false, false, true},
        {"bench ncdhw bf16 bias silu", 8, 192, 16, 56, 56, {1, 1, 1}, false, false, true, true, true, true},
        // The bench row's channels scaled to whole waves of the NCDHW kernel's five blocks an SM
        // on 132 SMs (660 blocks; the bench row: 3072 blocks, 4.65 waves).
        {"waves ncdhw c165 4.0", 8, 165, 16, 56, 56, {1, 1, 1}, false, false, false, false, false, true},
        {"waves ncdhw c206 5.0", 8, 206, 16, 56, 56, {1, 1, 1}, false, false, false, false, false, true},
        {"small bias silu", 2, 5, 5, 7, 16, {1, 1, 1}, false, false, true, true, false, false},
        {"causal frames", 1, 3, 5, 9, 24, {2, 1, 1}, false, true, true, false, false, false},
        {"causal frames bf16", 2, 3, 6, 9, 24, {2, 1, 1}, false, true, false, true, true, false},
        {"pad w 0", 1, 4, 4, 6, 16, {1, 0, 0}, false, false, true, false, false, false},
        {"pad d 2", 2, 3, 5, 9, 24, {2, 1, 1}, false, false, true, true, false, false},
        // depth padding past the taps' reach (outputs of the bias alone at both ends) and one
        // frame: the NCDHW kernel's walk from the first plane with data (fifty-ninth session)
        {"pad d 4", 2, 3, 3, 6, 16, {4, 1, 1}, false, false, true, true, false, false},
        {"pad d 3 depth chunks", 1, 2, 37, 6, 8, {3, 1, 1}, false, false, true, false, false, false},
        {"one frame", 2, 3, 1, 7, 16, {1, 1, 1}, false, false, true, false, true, false},
        {"ndhwc pad d 4", 2, 16, 3, 6, 16, {4, 1, 1}, true, false, true, true, false, false},
        {"pad h 2", 1, 2, 4, 5, 8, {1, 2, 1}, false, false, false, true, true, false},
        {"two row tiles", 1, 2, 3, 70, 64, {1, 1, 1}, false, false, true, false, false, false},
        {"wide rows", 1, 2, 4, 30, 256, {1, 1, 1}, false, false, false, false, true, false},
        {"rows of 400", 1, 2, 3, 9, 400, {1, 1, 1}, false, false, true, true, false, false},
        // rows of 56, 24 and 8 (pitch 64, 32, 16; written for the dense-plane variants of the
        // fifty-eighth session, not landed): uneven row tiles, frames, two padding rows
        {"dense 57 rows", 1, 3, 5, 57, 56, {1, 1, 1}, false, false, true, false, false, false},
        {"dense 69 rows silu", 2, 3, 7, 69, 56, {1, 1, 1}, false, false, true, true, false, false},
        {"dense frames bf16 silu", 2, 4, 5, 30, 56, {2, 1, 1}, false, true, true, true, true, false},
        {"dense pad d 3", 1, 2, 5, 9, 56, {3, 1, 1}, false, false, true, false, false, false},
        {"dense w24 pad h 2", 1, 3, 4, 9, 24, {1, 2, 1}, false, false, false, true, false, false},
        {"dense w8 100 rows bf16", 1, 2, 6, 100, 8, {1, 1, 1}, false, false, true, false, true, false},
        {"valid depth", 2, 3, 6, 8, 32, {0, 1, 1}, false, false, true, true, false, false},
        {"depth chunks", 1, 2, 37, 6, 8, {1, 1, 1}, false, false, true, false, false, false},
        {"one row", 1, 2, 3, 1, 8, {1, 1, 1}, false, false, false, false, false, false},
        {"ndhwc bench bf16 bias silu", 8, 192, 16, 56, 56, {1, 1, 1}, true, false, true, true, true, true},
        {"ndhwc small bias silu", 2, 16, 5, 7, 16, {1, 1, 1}, true, false, true, true, false, false},
        {"ndhwc odd w", 1, 8, 4, 6, 13, {1, 1, 1}, true, false, true, false, false, false},
        {"ndhwc causal frames", 1, 24, 5, 9, 24, {2, 1, 1}, true, true, true, false, false, false},
        {"ndhwc frames bf16", 2, 8, 6, 9, 20, {2, 1, 1}, true, true, false, true, true, false},
        {"ndhwc pad w 0", 1, 16, 4, 6, 16, {1, 0, 0}, true, false, true, false, false, false},
        {"ndhwc pad d 2", 2, 24, 5, 9, 20, {2, 1, 1}, true, false, true, true, false, false},
        {"ndhwc pad h 2", 1, 8, 4, 5, 8, {1, 2, 1}, true, false, false, true, true, false},
        {"ndhwc row tiles", 1, 16, 3, 70, 30, {1, 1, 1}, true, false, true, false, false, false},
        {"ndhwc depth chunks", 1, 8, 37, 6, 8, {1, 1, 1}, true, false, true, false, false, false},
        {"ndhwc one row", 1, 8, 3, 1, 9, {1, 1, 1}, true, false, false, false, false, false},
        {"ndhwc wide rows", 1, 8, 3, 5, 300, {1, 1, 1}, true, false, false, true, false, false},
        {"ndhwc partial group", 3, 40, 7, 33, 57, {1, 1, 1}, true, false, true, true, false, false},
        {"ndhwc partial group bf16 pad w 0", 2, 104, 5, 9, 57, {1, 1, 0}, true, false, true, false, true, false},
        {"ndhwc rows of 255", 1, 32, 4, 5, 255, {1, 1, 1}, true, false, true, false, false, false},
        {"ndhwc rows of 200 frames", 1, 16, 5, 4, 200, {2, 1, 1}, true, true, true, true, false, false},
        {"ndhwc many groups", 1, 4352, 3, 2, 8, {1, 1, 1}, true, false, true, false, false, false},
        {"ndhwc many items", 9, 64, 19, 29, 31, {1, 1, 1}, true, false, true, true, true, false},
        {"ndhwc 72 ch pad 2", 2, 72, 5, 9, 11, {1, 2, 2}, true, false, true, true, false, false},
        {"ndhwc 7x7 frames bf16", 3, 136, 6, 7, 7, {2, 1, 1}, true, true, true, false, true, false},
        {"ndhwc valid", 2, 64, 6, 8, 32, {0, 0, 0}, true, false, false, false, false, false},
        {"ndhwc 17 rows 9 columns", 2, 32, 4, 17, 9, {1, 1, 1}, true, false, true, true, false, false},
        {"ndhwc 20x36 frames bf16", 1, 48, 5, 20, 36, {2, 1, 1}, true, true, true, false, true, false},
        {"ndhwc 28x28 192ch", 8, 192, 16, 28, 28, {1, 1, 1}, true, false, false, false, false, true},
        {"ndhwc stride 2", 2, 64, 5, 9, 11, {1, 1, 1}, true, false, true, true, false, false, 2},
        {"ndhwc stride 2 frames bf16", 1, 136, 6, 17, 20, {2, 1, 1}, true, true, true, false, true, false, 2},
        {"ndhwc stride 2 pad 0", 1, 72, 4, 8, 9, {1, 0, 0}, true, false, false, false, false, false, 2},
        {"ncdhw stride 2", 1, 8, 4, 9, 10, {1, 1, 1}, false, false, true, false, false, false, 2},
        {"ndhwc stride 2 bench", 8, 192, 16, 56, 56, {1, 1, 1}, true, false, false, false, false, true, 2},
        // depthwise_generic.hip (name, ..., time, stride, kernel, depth stride, dilation)
        {"generic ndhwc odd channels", 2, 12, 5, 7, 9, {1, 1, 1}, true, false, true, true, false, false, 2},
        {"generic ndhwc 2x3x4 frames", 2, 16, 6, 9, 11, {2, 1, 2}, true, true, true, false, false, false, 1, {2, 3, 4}, 1, {2, 1, 1}},
        {"generic ncdhw 2x3x4 frames bf16", 2, 5, 6, 9, 11, {2, 1, 2}, false, true, false, true, true, false, 1, {2, 3, 4}, 1, {2, 1, 1}},
        {"generic ndhwc strides dilation", 1, 24, 9, 13, 17, {1, 2, 0}, true, false, true, false, false, false, 3, {3, 3, 3}, 2, {1, 2, 1}},
        {"generic ncdhw 5x5x5 small", 1, 3, 7, 9, 10, {2, 2, 2}, false, false, true, true, false, false, 1, {5, 5, 5}},
        {"generic ndhwc 7x7x7 bf16", 1, 64, 8, 10, 12, {3, 3, 3}, true, false, true, false, true, false, 1, {7, 7, 7}},
        {"generic ndhwc 1x1x1", 2, 32, 3, 5, 7, {0, 0, 0}, true, false, true, true, false, false, 1, {1, 1, 1}},
        {"generic ndhwc partial tile", 1, 264, 4, 5, 6, {0, 1, 1}, true, false, true, true, false, false, 1, {1, 3, 3}},
        {"generic ndhwc columns frames bf16", 2, 12, 7, 4, 6, {4, 0, 0}, true, true, true, false, true, false, 1, {3, 1, 1}, 1, {2, 1, 1}},
        {"generic ndhwc 13^3 columns", 1, 8, 13, 13, 13, {6, 6, 6}, true, false, true, false, false, false, 1, {13, 13, 13}},
        {"generic ncdhw wide rows", 1, 2, 3, 4, 301, {1, 1, 1}, false, false, false, true, false, false, 2, {1, 3, 5}},
        {"generic ndhwc 5x5x5 bench", 8, 192, 16, 56, 56, {2, 2, 2}, true, false, false, false, false, true, 1, {5, 5, 5}},
        {"generic ncdhw 5x5x5 bench", 8, 192, 16, 56, 56, {2, 2, 2}, false, false, false, false, false, true, 1, {5, 5, 5}},
        {"generic ndhwc 3x1x1 bench", 8, 192, 16, 56, 56, {1, 0, 0}, true, false, false, false, false, true, 1, {3, 1, 1}},
        {"generic ncdhw 3x1x1 bench", 8, 192, 16, 56, 56, {1, 0, 0}, false, false, false, false, false, true, 1, {3, 1, 1}},
        {"generic ndhwc 1x3x3 bench", 8, 192, 16, 56, 56, {0, 1, 1}, true, false, false, false, false, true, 1, {1, 3, 3}},
        {"generic ncdhw 1x3x3 bench", 8, 192, 16, 56, 56, {0, 1, 1}, false, false, false, false, false, true, 1, {1, 3, 3}},
        {"generic ndhwc dilation 2 bench", 8, 192, 16, 56, 56, {2, 2, 2}, true, false, false, false, false, true, 1, {3, 3, 3}, 1, {2, 2, 2}},
        {"generic ncdhw stride 2 bench", 8, 192, 16, 56, 56, {1, 1, 1}, false, false, false, false, false, true, 2},
        {"generic ndhwc stride 2x2x2 bench", 8, 192, 16, 56, 56, {1, 1, 1}, true, false, false, false, false, true, 2, {3, 3, 3}, 2},
    };
    return run_16bit_cases(argc, argv, cases, run_case);
}
