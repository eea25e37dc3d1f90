// Dev bench of hip/conv1d/direct_toeplitz_rows_channel_last.hip against the channel-last
// kernels Direct ran before it for f16/bf16 widths 9-64 (direct_window_channel_last.hip to
// 16, direct_wide_channel_last.hip to 32, direct_toeplitz_channel_last.hip past), each built
// from the library's sources as its own object. First every case against a host double
// reference (relative norm error; "BAD" past 1e-3 f16 / 1e-2 bf16; y NaN-poisoned; dims
// 8-2048 in channel tiles full and partial, seqlens shorter than the history, ending
// mid-tile, row pitches past dim, bias + SiLU), then (4,2048,4096,W) channel-last per path:
// 30 launches per round over 3 rotating (x, y) sets (3 x 67 MB, past the 50 MB L2), the
// median of 8 rounds, as % of a 1 GiB device-to-device copy timed in the same process.
// `rows_bench profile W SILU` launches only the rows kernel (for ncu). The library's bench
// (examples/bench) is the number of record. Build here (each .hip its
// own object: their anonymous namespaces share names), run on the GPU:
//   for f in direct_toeplitz_rows_channel_last direct_window_channel_last \
//            direct_wide_channel_last direct_toeplitz_channel_last; do
//     nvcc -std=c++17 -O3 -x cu -DHIPCONV_PLATFORM_NVIDIA -gencode arch=compute_90a,code=sm_90a \
//       -Ihip/include -Ihip/common -Ihip/conv1d -c hip/conv1d/$f.hip -o $f.o; done
//   nvcc -std=c++17 -O3 -DHIPCONV_PLATFORM_NVIDIA -gencode arch=compute_90a,code=sm_90a \
//     -Ihip/include -Ihip/common -Ihip/conv1d scripts/dev/rows_bench.cu *.o -o rows_bench \
//     -L$(dirname $(which nvcc))/../lib -cudart static
#include <algorithm>
#include <string>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "direct_paths.h"
#include "graph_timing.h"  // CK, device_copy_gbps
using namespace hipconv;

template <typename T> float h2f(T v);
template <> float h2f<__half>(__half v) { return __half2float(v); }
template <> float h2f<__nv_bfloat16>(__nv_bfloat16 v) { return __bfloat162float(v); }
template <typename T> T f2h(float v);
template <> __half f2h<__half>(float v) { return __float2half(v); }
template <> __nv_bfloat16 f2h<__nv_bfloat16>(float v) { return __float2bfloat16(v); }

// The path Direct took before for channel-last 16-bit rows (direct.hip's order).
template <typename T> hipconv_status_t launch_before(const hipconv_conv1d_params &p, hipStream_t s) {
    if (direct_toeplitz_channel_last_fits<T>(p)) return launch_direct_toeplitz_channel_last<T>(p, s);
    if (direct_window_channel_last_fits<T>(p)) return launch_direct_window_channel_last<T>(p, s);
    return launch_direct_wide_channel_last<T>(p, s);
}
// The rows kernel where Direct takes it (not with SiLU at widths 10-16); -1 elsewhere.
template <typename T> hipconv_status_t launch_rows(const hipconv_conv1d_params &p, hipStream_t s) {
    if (!direct_toeplitz_rows_channel_last_fits<T>(p)) return (hipconv_status_t)-1;
    return launch_direct_toeplitz_rows_channel_last<T>(p, s);
}

// Channel-last x and y of rows `pitch` elements apart (x, y set by the caller); SiLU with a bias.
hipconv_conv1d_params channel_last_params(int B, int D, int L, int Wd, int pitch, const void *w, const void *bias) {
    hipconv_conv1d_params p{};
    p.w = w;
    p.bias = bias;
    p.silu = bias != nullptr;
    p.batch = B;
    p.dim = D;
    p.seqlen = L;
    p.width = Wd;
    p.x_batch_stride = p.y_batch_stride = (int64_t)L * pitch;
    p.x_dim_stride = p.y_dim_stride = 1;
    p.x_seq_stride = p.y_seq_stride = pitch;
    return p;
}

template <typename T> double check(int B, int D, int L, int Wd, bool silu, int pitch_extra) {
    const int pitch = D + pitch_extra;
    std::vector<T> x((size_t)B * L * pitch), w((size_t)D * Wd), bias(D), y((size_t)B * L * pitch);
    for (auto &v : x) v = f2h<T>((rand() % 2001) / 1000.f - 1.f);
    for (auto &v : w) v = f2h<T>((rand() % 2001) / 1000.f - 1.f);
    for (auto &v : bias) v = f2h<T>((rand() % 2001) / 1000.f - 1.f);
    T *dx, *dw, *db, *dy;
    CK(cudaMalloc(&dx, x.size() * sizeof(T)));
    CK(cudaMalloc(&dw, w.size() * sizeof(T)));
    CK(cudaMalloc(&db, bias.size() * sizeof(T)));
    CK(cudaMalloc(&dy, y.size() * sizeof(T)));
    CK(cudaMemcpy(dx, x.data(), x.size() * sizeof(T), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dw, w.data(), w.size() * sizeof(T), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(db, bias.data(), bias.size() * sizeof(T), cudaMemcpyHostToDevice));
    CK(cudaMemset(dy, 0xff, y.size() * sizeof(T)));
    hipconv_conv1d_params p = channel_last_params(B, D, L, Wd, pitch, dw, silu ? db : nullptr);
    p.x = dx;
    p.y = dy;
    if (launch_rows<T>(p, 0) == (hipconv_status_t)-1) return 0;  // not this kernel's case
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(y.data(), dy, y.size() * sizeof(T), cudaMemcpyDeviceToHost));
    double num = 0, den = 0;
    for (int b = 0; b < B; ++b)
        for (int t = 0; t < L; ++t)
            for (int c = 0; c < D; ++c) {
                double acc = silu ? h2f(bias[c]) : 0.0;
                for (int k = 0; k < Wd; ++k) {
                    const int tt = t - (Wd - 1) + k;
                    if (tt >= 0) acc += (double)h2f(w[(size_t)c * Wd + k]) * h2f(x[((size_t)b * L + tt) * pitch + c]);
                }
                if (silu) acc = acc / (1 + exp(-acc));
                double got = h2f(y[((size_t)b * L + t) * pitch + c]);
                if (std::isnan(got)) got = 1e30;
                num += (got - acc) * (got - acc);
                den += acc * acc;
            }
    cudaFree(dx);
    cudaFree(dw);
    cudaFree(db);
    cudaFree(dy);
    return sqrt(num / den);
}

constexpr int kB = 4, kD = 2048, kL = 4096;
template <typename T, typename Launch> double median_us(const Launch &launch) {
    const int R = 3;
    const size_t n = (size_t)kB * kD * kL;
    std::vector<T *> xs(R), ys(R);
    for (int r = 0; r < R; ++r) {
        CK(cudaMalloc(&xs[r], n * sizeof(T)));
        CK(cudaMalloc(&ys[r], n * sizeof(T)));
        CK(cudaMemset(xs[r], 0, n * sizeof(T)));
    }
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    std::vector<float> ts;
    for (int round = 0; round < 9; ++round) {
        const int reps = 30;
        CK(cudaEventRecord(a));
        for (int i = 0; i < reps; ++i) launch(xs[i % R], ys[i % R]);
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        CK(cudaGetLastError());
        float ms;
        CK(cudaEventElapsedTime(&ms, a, b));
        if (round) ts.push_back(ms * 1000 / reps);
    }
    std::sort(ts.begin(), ts.end());
    for (int r = 0; r < R; ++r) {
        cudaFree(xs[r]);
        cudaFree(ys[r]);
    }
    return ts[ts.size() / 2];
}

template <typename T> void bench(const char *name, int Wd, bool silu, double copy_gbps) {
    T *dw, *db;
    CK(cudaMalloc(&dw, (size_t)kD * Wd * sizeof(T)));
    CK(cudaMemset(dw, 0, (size_t)kD * Wd * sizeof(T)));
    CK(cudaMalloc(&db, (size_t)kD * sizeof(T)));
    CK(cudaMemset(db, 0, (size_t)kD * sizeof(T)));
    hipconv_conv1d_params p = channel_last_params(kB, kD, kL, Wd, kD, dw, silu ? db : nullptr);
    const double bytes = 2.0 * kB * kD * kL * sizeof(T) + (double)kD * Wd * sizeof(T);
    const double before = median_us<T>([&](T *x, T *y) {
        p.x = x;
        p.y = y;
        CK((cudaError_t)launch_before<T>(p, 0));
    });
    const bool fits = direct_toeplitz_rows_channel_last_fits<T>(p);
    const double rows = !fits ? 0.0 : median_us<T>([&](T *x, T *y) {
        p.x = x;
        p.y = y;
        CK((cudaError_t)launch_rows<T>(p, 0));
    });
    if (!fits) {
        printf("bench %-5s W=%2d silu=%d  before %8.2f us %6.1f%%   (Direct keeps the kernel before)\n", name, Wd,
               silu, before, bytes / before / 1e3 / copy_gbps * 100);
        cudaFree(dw);
        cudaFree(db);
        return;
    }
    printf("bench %-5s W=%2d silu=%d  before %8.2f us %6.1f%%   rows %8.2f us %6.1f%% of copy\n", name, Wd, silu,
           before, bytes / before / 1e3 / copy_gbps * 100, rows, bytes / rows / 1e3 / copy_gbps * 100);
    cudaFree(dw);
    cudaFree(db);
}

// `rows_bench profile W SILU`: one launch of the rows kernel at (4,2048,4096,W) f16 after a
// warm-up launch, for ncu (--launch-skip 1 --launch-count 1).
int profile(int Wd, bool silu) {
    const size_t n = (size_t)kB * kD * kL;
    __half *x, *y, *w, *b;
    CK(cudaMalloc(&x, n * 2));
    CK(cudaMalloc(&y, n * 2));
    CK(cudaMalloc(&w, (size_t)kD * Wd * 2));
    CK(cudaMalloc(&b, (size_t)kD * 2));
    CK(cudaMemset(x, 0, n * 2));
    CK(cudaMemset(w, 0, (size_t)kD * Wd * 2));
    CK(cudaMemset(b, 0, (size_t)kD * 2));
    hipconv_conv1d_params p = channel_last_params(kB, kD, kL, Wd, kD, w, silu ? b : nullptr);
    p.x = x;
    p.y = y;
    for (int i = 0; i < 2; ++i) CK((cudaError_t)launch_rows<__half>(p, 0));
    CK(cudaDeviceSynchronize());
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 4 && std::string(argv[1]) == "profile") return profile(atoi(argv[2]), atoi(argv[3]) != 0);
    srand(11);
    double worst[2] = {0, 0};
    const int shapes[][4] = {{2, 136, 1000, 0}, {1, 64, 129, 8}, {3, 72, 255, 0}, {1, 8, 20, 0},
                             {2, 200, 2051, 16}, {1, 16, 7, 0}, {2, 2048, 300, 0}};
    for (auto &s : shapes)
        for (int Wd : {9, 10, 12, 16, 24, 25, 26, 32, 33, 40, 41, 42, 57, 58, 64})
            for (int silu = 0; silu < 2; ++silu) {
                const double e0 = check<__half>(s[0], s[1], s[2], Wd, silu, s[3]);
                const double e1 = check<__nv_bfloat16>(s[0], s[1], s[2], Wd, silu, s[3]);
                worst[0] = std::max(worst[0], e0);
                worst[1] = std::max(worst[1], e1);
                if (!(e0 <= 1e-3) || !(e1 <= 1e-2))
                    printf("BAD (%d,%d,%d) pitch+%d W=%d silu=%d: %g %g\n", s[0], s[1], s[2], s[3], Wd, silu, e0, e1);
            }
    printf("worst rel err f16 %.3g bf16 %.3g\n", worst[0], worst[1]);
    const double gbps = device_copy_gbps();
    printf("copy %.0f GB/s\n", gbps);
    for (int Wd : {9, 12, 16, 24, 32, 48, 64}) {
        bench<__half>("f16", Wd, false, gbps);
        bench<__nv_bfloat16>("bf16", Wd, false, gbps);
    }
    for (int Wd : {9, 12, 16, 24, 32}) bench<__half>("f16", Wd, true, gbps);
}
