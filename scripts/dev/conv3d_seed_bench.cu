// Dev bench of conv3d's Tiled launcher alone (hip/conv3d/tiled.hip and what it calls), for
// comparing builds of it without the library build: the seed's example (1·3→8·16·64·64,
// 3x3x3, padding 1, f32) in NCDHW and NDHWC as examples/bench times it (graph of K forwards
// over K rotating (x, y) sets past the L2, 3 warm-up replays, median of 50 timed / K), and
// a check of every case against a host double reference (relative norm error, NaN-poisoned
// outputs; the NCDHW cases with few slabs run Tiled's register-slab kernel, direct_slabs.hip,
// the NDHWC ones its staged-strip kernel, direct_staged.hip, and those with initial frames
// its ping-pong direct kernel). Cases whose name starts with "seed" are timed; a second
// argument runs only the cases whose name contains it (for ncu). The library's bench is the number of record; this
// compares variants within one device call. Build here, one binary per variant (SRC: a folder holding the hip/ tree to
// measure), and run on the GPU:
//   nvcc -std=c++17 -O3 -DHIPCONV_PLATFORM_NVIDIA -gencode arch=compute_90a,code=sm_90a \
//     -I$SRC/hip/include -I$SRC/hip/common -I$SRC/hip/conv3d -x cu scripts/dev/conv3d_seed_bench.cu \
//     -x cu $SRC/hip/conv3d/tiled.hip -x cu $SRC/hip/conv3d/naive.hip -x cu $SRC/hip/conv3d/direct_slabs.hip \
//     -x cu $SRC/hip/conv3d/direct_staged.hip -o seed_bench -L$(dirname $(which nvcc))/../lib -cudart static
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
    int n, cin, cout, d, h, w, kd, groups, pad[3];
    bool ndhwc, frames, bias, silu;
};

// Strides of a [a0, c, d, h, w] tensor, NCDHW or NDHWC.
static void strides(bool ndhwc, int c, int d, int h, int w, int64_t (&s)[5]) {
    if (ndhwc) {
        s[1] = 1, s[4] = c, s[3] = (int64_t)w * c, s[2] = (int64_t)h * w * c, s[0] = (int64_t)d * h * w * c;
    } else {
        s[4] = 1, s[3] = w, s[2] = (int64_t)h * w, s[1] = (int64_t)d * h * w, s[0] = (int64_t)c * d * h * w;
    }
}

// Returns the relative norm error of one forward against a double reference; times it if `time`.
static double run_case(const Case &k, bool time, double *us) {
    hipconv_conv3d_params p{};
    const int od = k.d + 2 * k.pad[0] - (k.kd - 1) - (k.frames ? k.pad[0] : 0);
    const int oh = k.h + 2 * k.pad[1] - 2, ow = k.w + 2 * k.pad[2] - 2;
    const int cin_g = k.cin / k.groups, cout_g = k.cout / k.groups;
    p.batch = k.n, p.cin = k.cin, p.cout = k.cout, p.groups = k.groups;
    p.in[0] = k.d, p.in[1] = k.h, p.in[2] = k.w;
    p.out[0] = od, p.out[1] = oh, p.out[2] = ow;
    p.kernel[0] = k.kd, p.kernel[1] = 3, p.kernel[2] = 3;
    for (int a = 0; a < 3; ++a) p.stride[a] = 1, p.dilation[a] = 1, p.pad[a] = k.pad[a];
    if (k.frames) p.out[0] = k.d + k.pad[0] - (k.kd - 1);  // causal: front padding only
    strides(k.ndhwc, k.cin, k.d, k.h, k.w, p.x_stride);
    strides(k.ndhwc, k.cout, p.out[0], oh, ow, p.y_stride);
    strides(k.ndhwc, k.pad[0] > 0 ? k.cin : 1, k.pad[0], k.h, k.w, p.initial_stride);
    if (k.ndhwc) {  // w [co, kd, kh, kw, ci]
        p.w_stride[1] = 1, p.w_stride[4] = cin_g, p.w_stride[3] = 3 * cin_g, p.w_stride[2] = 9 * cin_g,
        p.w_stride[0] = 9 * k.kd * cin_g;
    } else {
        p.w_stride[4] = 1, p.w_stride[3] = 3, p.w_stride[2] = 9, p.w_stride[1] = 9 * k.kd, p.w_stride[0] = 9 * k.kd * cin_g;
    }
    p.silu = k.silu;
    const size_t xn = (size_t)k.n * k.cin * k.d * k.h * k.w, yn = (size_t)k.n * k.cout * p.out[0] * oh * ow;
    const size_t wn = (size_t)k.cout * cin_g * k.kd * 9, fn = (size_t)k.n * k.cin * k.pad[0] * k.h * k.w;
    std::vector<float> hx(xn), hw(wn), hb(k.cout), hf(fn), hy(yn);
    for (auto &v : hx) v = frand();
    for (auto &v : hw) v = frand() * 0.2f;
    for (auto &v : hb) v = frand();
    for (auto &v : hf) v = frand();
    const int sets = time ? std::max(3, (int)(150e6 / ((xn + yn) * 4))) : 1;
    CaseBuffers buffers(sets, hx.data(), xn * 4, yn * 4);
    buffers.w = upload(hw.data(), wn * 4);
    if (k.bias) buffers.bias = upload(hb.data(), k.cout * 4);
    if (k.frames) buffers.frames = upload(hf.data(), fn * 4);
    p.w = buffers.w, p.bias = buffers.bias, p.initial_frames = buffers.frames;
    cudaStream_t stream;
    CK(cudaStreamCreate(&stream));
    p.x = buffers.xs[0], p.y = buffers.ys[0];
    CK((cudaError_t)hipconv_conv3d_tiled_f32(&p, (hipconv_stream_t)stream));
    CK(cudaStreamSynchronize(stream));
    CK(cudaMemcpy(hy.data(), buffers.ys[0], yn * 4, cudaMemcpyDeviceToHost));
    // Reference.
    double num = 0, den = 0;
    for (int n = 0; n < k.n; ++n)
        for (int co = 0; co < k.cout; ++co)
            for (int z = 0; z < p.out[0]; ++z)
                for (int yy = 0; yy < oh; ++yy)
                    for (int xx = 0; xx < ow; ++xx) {
                        const int g = co / cout_g;
                        double acc = k.bias ? hb[co] : 0.0;
                        for (int ci = 0; ci < cin_g; ++ci)
                            for (int a = 0; a < k.kd; ++a)
                                for (int bb = 0; bb < 3; ++bb)
                                    for (int c = 0; c < 3; ++c) {
                                        const int id = z - k.pad[0] + a, ih = yy - k.pad[1] + bb, iw = xx - k.pad[2] + c;
                                        if (ih < 0 || ih >= k.h || iw < 0 || iw >= k.w || id >= k.d) continue;
                                        double xv;
                                        const int cc = g * cin_g + ci;
                                        if (id >= 0) {
                                            xv = hx[n * p.x_stride[0] + cc * p.x_stride[1] + id * p.x_stride[2] +
                                                    ih * p.x_stride[3] + iw * p.x_stride[4]];
                                        } else {
                                            if (!k.frames || id < -k.pad[0]) continue;
                                            xv = hf[n * p.initial_stride[0] + cc * p.initial_stride[1] +
                                                    (k.pad[0] + id) * p.initial_stride[2] + ih * p.initial_stride[3] +
                                                    iw * p.initial_stride[4]];
                                        }
                                        acc += xv * hw[co * p.w_stride[0] + ci * p.w_stride[1] + a * p.w_stride[2] +
                                                       bb * p.w_stride[3] + c * p.w_stride[4]];
                                    }
                        if (k.silu) acc = acc / (1.0 + std::exp(-acc));
                        const double got = hy[n * p.y_stride[0] + co * p.y_stride[1] + z * p.y_stride[2] +
                                              yy * p.y_stride[3] + xx * p.y_stride[4]];
                        num += (got - acc) * (got - acc);
                        den += acc * acc;
                        if (std::isnan(got)) num = INFINITY;
                    }
    const double err = std::sqrt(num / den);
    if (time) {
        *us = graph_median_us(stream, sets, 50, [&](int s) {
            p.x = buffers.xs[s], p.y = buffers.ys[s];
            hipconv_conv3d_tiled_f32(&p, (hipconv_stream_t)stream);
        });
    }
    CK(cudaStreamDestroy(stream));
    return err;
}

int main(int argc, char **argv) {
    const char *label = argc > 1 ? argv[1] : "variant";
    const char *only = argc > 2 ? argv[2] : nullptr;  // run only the cases whose name contains it (for ncu)
    const Case cases[] = {
        {"seed ncdhw", 1, 3, 8, 16, 64, 64, 3, 1, {1, 1, 1}, false, false, false, false},
        {"seed ndhwc", 1, 3, 8, 16, 64, 64, 3, 1, {1, 1, 1}, true, false, false, false},
        {"seed-like ndhwc 16 ch 112^2", 2, 3, 16, 8, 112, 112, 3, 1, {1, 1, 1}, true, false, true, true},
        {"seed-like ncdhw 16 ch 112^2", 2, 3, 16, 8, 112, 112, 3, 1, {1, 1, 1}, false, false, true, true},
        {"odd ncdhw bias silu", 2, 3, 7, 5, 9, 13, 3, 1, {1, 1, 1}, false, false, true, true},
        {"odd ndhwc groups", 1, 4, 12, 6, 7, 19, 3, 2, {1, 0, 1}, true, false, true, false},
        {"causal frames ncdhw", 1, 2, 16, 5, 11, 17, 3, 1, {2, 1, 1}, false, true, false, false},
        {"ndhwc kd1 bias silu", 2, 5, 9, 4, 6, 23, 1, 1, {0, 1, 1}, true, false, true, true},
        {"causal frames cin 3 ncdhw", 2, 3, 8, 5, 11, 17, 3, 1, {2, 1, 1}, false, true, true, true},
        {"causal frames cin 3 ndhwc", 1, 6, 16, 4, 9, 13, 3, 2, {2, 1, 0}, true, true, true, false},
        {"ncdhw groups pad 0", 1, 4, 12, 6, 7, 19, 3, 2, {1, 0, 1}, false, false, true, false},
        {"ncdhw cin 1 cout 3", 2, 1, 3, 7, 10, 33, 3, 1, {1, 1, 1}, false, false, true, true},
        {"ncdhw kd 1 cin 9", 1, 9, 16, 3, 5, 40, 1, 1, {0, 1, 1}, false, false, true, false},
        {"ncdhw pad 2", 1, 2, 5, 4, 6, 9, 3, 1, {2, 2, 2}, false, false, true, true},
        {"ndhwc pad 2", 1, 2, 5, 4, 6, 9, 3, 1, {2, 2, 2}, true, false, false, false},
        {"ndhwc cout 16 w 70", 1, 3, 16, 5, 20, 70, 3, 1, {1, 1, 1}, true, false, true, false},
        {"ncdhw cout 16 w 70", 1, 3, 16, 5, 20, 70, 3, 1, {1, 1, 1}, false, false, true, true},
        {"ndhwc cout 3 h 17 silu", 2, 2, 3, 4, 17, 33, 3, 1, {1, 1, 1}, true, false, true, true},
        {"ndhwc cin 9 kd 1 h 33", 1, 9, 8, 2, 33, 31, 1, 1, {0, 1, 1}, true, false, false, true},
    };
    bool ok = true;
    for (const Case &k : cases) {
        if (only != nullptr && strstr(k.name, only) == nullptr) continue;
        const bool time = strncmp(k.name, "seed", 4) == 0;
        double us = 0;
        const double err = run_case(k, time, &us);
        ok = ok && err < 1e-5;
        if (time)
            printf("%-10s %-26s err %.2e  %7.3f us\n", label, k.name, err, us);
        else
            printf("%-10s %-26s err %.2e\n", label, k.name, err);
    }
    printf("%s: %s\n", label, ok ? "all checks passed" : "CHECK FAILED");
    return ok ? 0 : 1;
}
