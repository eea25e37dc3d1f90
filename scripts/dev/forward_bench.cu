// Dev bench of the two streaming forward kernels of widths 1-4 (hip/conv1d/
// direct_channel_first.hip and direct_channel_last.hip), built from a source tree given at
// build time, so that variants of those files are measured side by side with HEAD's in one
// device call (one binary per tree; their entry points share names).
//   check: every dtype, layout, width 1-4, with and without bias + SiLU, on shapes at
//          vector and row edges ((b,d,l) = (1,1,1), (2,3,7), (1,37,9), (3,5,127), (2,520,33),
//          (1,64,2049), (2,8,4096): seqlens shorter than a vector, rows ending mid-vector),
//          against a host double reference (relative norm error; "BAD" past 1e-5 f32,
//          1e-3 f16, 1e-2 bf16; y NaN-poisoned);
//   bench: (8,4096,2048,4) and (4,5120,4096,4), each dtype and layout, with and without
//          bias + SiLU, graph-replayed over 3 rotating sets (past the 50 MB L2), median of
//          15 replays, inputs pseudo-random in [-1, 1), as % of a 1 GiB device-to-device
//          copy timed in the same process.
//   profile L D S: one launch (after a warm-up) of layout L (cf|cl), dtype D (f16|bf16|f32),
//          SiLU S (0|1) at (8,4096,2048,4), for ncu --launch-skip 1 --launch-count 1.
// Built with -DDEV_WIDE_TOEPLITZ (and direct_toeplitz_channel_first.o in place of the two
// objects above) it checks and benches channel-first f16/bf16 on the wide Toeplitz kernel
// alone (widths 5-32 in the checks; SHAPES with LAYOUTS=cf for the bench).
// `CASES=bench` or `CASES=check` runs only that part; `SHAPES="b,d,l,w ..."` benches those
// shapes instead, `LAYOUTS=cf` (or cl) one layout, `GAP_KB=n` puts n KiB between each
// set's x and y. The library's bench (examples/bench) is the number of record. Build
// here, run on the GPU (TREE = a copy of hip/):
//   for f in direct_channel_first direct_channel_last; do
//     nvcc -std=c++17 -O3 -x cu -DHIPCONV_PLATFORM_NVIDIA -gencode arch=compute_90a,code=sm_90a \
//       -I$TREE/include -I$TREE/common -I$TREE/conv1d -c $TREE/conv1d/$f.hip -o $f.o; done
//   nvcc -std=c++17 -O3 -DHIPCONV_PLATFORM_NVIDIA -gencode arch=compute_90a,code=sm_90a \
//     -I$TREE/include -I$TREE/common -I$TREE/conv1d -Iscripts/dev scripts/dev/forward_bench.cu \
//     direct_channel_first.o direct_channel_last.o -o forward_bench
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "direct_paths.h"
#include "graph_timing.h"  // CK, graph_median_us, device_copy_gbps
using namespace hipconv;

template <typename T> float h2f(T v) { return (float)v; }
template <> float h2f<__half>(__half v) { return __half2float(v); }
template <> float h2f<__nv_bfloat16>(__nv_bfloat16 v) { return __bfloat162float(v); }
template <typename T> __host__ __device__ T f2h(float v) { return (T)v; }
template <> __host__ __device__ __half f2h<__half>(float v) { return __float2half(v); }
template <> __host__ __device__ __nv_bfloat16 f2h<__nv_bfloat16>(float v) { return __float2bfloat16(v); }
template <typename T> const char *dtype_name();
template <> const char *dtype_name<__half>() { return "f16"; }
template <> const char *dtype_name<__nv_bfloat16>() { return "bf16"; }
template <> const char *dtype_name<float>() { return "f32"; }
template <typename T> double bar() { return sizeof(T) == 4 ? 1e-5 : std::is_same<T, __half>::value ? 1e-3 : 1e-2; }

// Contiguous x and y in one layout.
hipconv_conv1d_params params(bool channel_last, int B, int D, int L, int Wd, const void *w, const void *bias) {
    hipconv_conv1d_params p{};
    p.w = w;
    p.bias = bias;
    p.silu = bias != nullptr;
    p.batch = B;
    p.dim = D;
    p.seqlen = L;
    p.width = Wd;
    p.x_batch_stride = p.y_batch_stride = (int64_t)L * D;
    p.x_dim_stride = p.y_dim_stride = channel_last ? 1 : L;
    p.x_seq_stride = p.y_seq_stride = channel_last ? D : 1;
    return p;
}

template <typename T> hipconv_status_t launch(bool channel_last, const hipconv_conv1d_params &p, cudaStream_t s) {
#ifdef DEV_WIDE_TOEPLITZ  // channel-first f16/bf16 on direct_toeplitz_channel_first.hip alone
    if (channel_last || sizeof(T) == 4) return (hipconv_status_t)-1;
    return direct_toeplitz_channel_first_fits<T>(p) ? launch_direct_toeplitz_channel_first<T>(p, s)
                                                     : (hipconv_status_t)-1;
#endif
    if (channel_last) return direct_channel_last_fits<T>(p) ? launch_direct_channel_last<T>(p, s) : (hipconv_status_t)-1;
    return direct_channel_first_fits<T>(p) ? launch_direct_channel_first<T>(p, s) : (hipconv_status_t)-1;
}

template <typename T> double check(bool cl, int B, int D, int L, int Wd, bool silu) {
    const size_t n = (size_t)B * D * L;
    std::vector<T> x(n), w((size_t)D * Wd), bias(D), y(n);
    for (auto &v : x) v = f2h<T>((rand() % 2001) / 1000.f - 1.f);
    for (auto &v : w) v = f2h<T>((rand() % 2001) / 1000.f - 1.f);
    for (auto &v : bias) v = f2h<T>((rand() % 2001) / 1000.f - 1.f);
    T *dx, *dw, *db, *dy;
    CK(cudaMalloc(&dx, n * sizeof(T)));
    CK(cudaMalloc(&dw, w.size() * sizeof(T)));
    CK(cudaMalloc(&db, bias.size() * sizeof(T)));
    CK(cudaMalloc(&dy, n * sizeof(T)));
    CK(cudaMemcpy(dx, x.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dw, w.data(), w.size() * sizeof(T), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(db, bias.data(), bias.size() * sizeof(T), cudaMemcpyHostToDevice));
    CK(cudaMemset(dy, 0xff, n * sizeof(T)));  // NaN in every dtype
    hipconv_conv1d_params p = params(cl, B, D, L, Wd, dw, silu ? db : nullptr);
    p.x = dx;
    p.y = dy;
    const hipconv_status_t st = launch<T>(cl, p, 0);
    double err = -1;  // not this kernel's case
    if (st != (hipconv_status_t)-1) {
        CK((cudaError_t)st);
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(y.data(), dy, n * sizeof(T), cudaMemcpyDeviceToHost));
        auto at = [&](int b, int c, int t) { return cl ? ((size_t)b * L + t) * D + c : ((size_t)b * D + c) * L + t; };
        double num = 0, den = 0;
        for (int b = 0; b < B; ++b)
            for (int c = 0; c < D; ++c)
                for (int t = 0; t < L; ++t) {
                    double acc = silu ? h2f(bias[c]) : 0.0;
                    for (int k = 0; k < Wd; ++k) {
                        const int tt = t - (Wd - 1) + k;
                        if (tt >= 0) acc += (double)h2f(w[(size_t)c * Wd + k]) * h2f(x[at(b, c, tt)]);
                    }
                    if (silu) acc = acc / (1 + exp(-acc));
                    double got = h2f(y[at(b, c, t)]);
                    if (std::isnan(got)) got = 1e30;
                    num += (got - acc) * (got - acc);
                    den += acc * acc;
                }
        err = sqrt(num / den);
    }
    cudaFree(dx);
    cudaFree(dw);
    cudaFree(db);
    cudaFree(dy);
    return err;
}

template <typename T> void check_all(double &worst) {
#ifdef DEV_WIDE_TOEPLITZ
    const int shapes[][3] = {{1, 64, 2049}, {2, 8, 4096}, {3, 5, 1000}, {2, 33, 300}, {1, 3, 8192}};
    const int widths[] = {5, 8, 9, 16, 17, 32};
#else
    const int shapes[][3] = {{1, 1, 1}, {2, 3, 7}, {1, 37, 9}, {3, 5, 127}, {2, 520, 33}, {1, 64, 2049}, {2, 8, 4096}};
    const int widths[] = {1, 2, 3, 4};
#endif
    for (int cl = 0; cl < 2; ++cl)
        for (auto &s : shapes)
            for (int Wd : widths)
                for (int silu = 0; silu < 2; ++silu) {
                    const double e = check<T>(cl, s[0], s[1], s[2], Wd, silu);
                    if (e < 0) continue;
                    worst = std::max(worst, e);
                    if (!(e <= bar<T>()))
                        printf("BAD %s %s (%d,%d,%d,%d) silu=%d: %g\n", dtype_name<T>(), cl ? "cl" : "cf", s[0], s[1],
                               s[2], Wd, silu, e);
                }
}

// Fresh pseudo-random values in [-1, 1) (the library's bench draws random inputs too: with
// constant inputs the timings moved by up to 7% between dtypes of the same bytes).
template <typename T> __global__ void fill_random(T *x, size_t n, uint32_t seed) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        uint32_t h = (uint32_t)i * 2654435761u ^ seed;
        h ^= h >> 15;
        h *= 2246822519u;
        h ^= h >> 13;
        x[i] = f2h<T>((h & 0xffff) / 32768.f - 1.f);
    }
}

template <typename T> void bench(bool cl, int B, int D, int L, int Wd, bool silu, double copy_gbps) {
    const int sets = 3;
    const size_t n = (size_t)B * D * L;
    std::vector<T *> xs(sets), ys(sets);
    std::vector<void *> gaps(sets, nullptr);
    // GAP_KB: a spacer of that many KiB allocated between each set's x and y (where the
    // buffers lie against each other in the address space moves the rows' times).
    const char *gap_kb = getenv("GAP_KB");
    const size_t gap = gap_kb != nullptr ? (size_t)atol(gap_kb) * 1024 : 0;
    for (int s = 0; s < sets; ++s) {
        CK(cudaMalloc(&xs[s], n * sizeof(T)));
        if (gap > 0) CK(cudaMalloc(&gaps[s], gap));
        CK(cudaMalloc(&ys[s], n * sizeof(T)));
        fill_random<<<1024, 256>>>(xs[s], n, 17u + s);
    }
    T *dw, *db;
    CK(cudaMalloc(&dw, (size_t)D * Wd * sizeof(T)));
    CK(cudaMalloc(&db, (size_t)D * sizeof(T)));
    fill_random<<<64, 256>>>(dw, (size_t)D * Wd, 5u);
    fill_random<<<64, 256>>>(db, (size_t)D, 9u);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    cudaStream_t stream;
    CK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    hipconv_conv1d_params p = params(cl, B, D, L, Wd, dw, silu ? db : nullptr);
    const double us = graph_median_us(stream, sets, 15, [&](int s) {
        p.x = xs[s];
        p.y = ys[s];
        CK((cudaError_t)launch<T>(cl, p, stream));
    });
    const double bytes = 2.0 * n * sizeof(T);
    printf("bench (%d,%d,%d,%d) %-4s %s silu=%d %8.2f us %6.1f%% of copy\n", B, D, L, Wd, dtype_name<T>(),
           cl ? "channel_last " : "channel_first", silu, us, bytes / us / 1e3 / copy_gbps * 100);
    for (int s = 0; s < sets; ++s) {
        cudaFree(xs[s]);
        cudaFree(ys[s]);
        if (gaps[s] != nullptr) cudaFree(gaps[s]);
    }
    cudaFree(dw);
    cudaFree(db);
    CK(cudaStreamDestroy(stream));
}

template <typename T> int profile(bool cl, bool silu) {
    const int B = 8, D = 4096, L = 2048, Wd = 4;
    const size_t n = (size_t)B * D * L;
    T *x, *y, *w, *b;
    CK(cudaMalloc(&x, n * sizeof(T)));
    CK(cudaMalloc(&y, n * sizeof(T)));
    CK(cudaMalloc(&w, (size_t)D * Wd * sizeof(T)));
    CK(cudaMalloc(&b, (size_t)D * sizeof(T)));
    fill_random<<<1024, 256>>>(x, n, 17u);
    fill_random<<<64, 256>>>(w, (size_t)D * Wd, 5u);
    fill_random<<<64, 256>>>(b, (size_t)D, 9u);
    CK(cudaGetLastError());
    hipconv_conv1d_params p = params(cl, B, D, L, Wd, w, silu ? b : nullptr);
    p.x = x;
    p.y = y;
    for (int i = 0; i < 2; ++i) CK((cudaError_t)launch<T>(cl, p, 0));
    CK(cudaDeviceSynchronize());
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 5 && std::string(argv[1]) == "profile") {
        const bool cl = std::string(argv[2]) == "cl", silu = atoi(argv[4]) != 0;
        const std::string d = argv[3];
        return d == "f16" ? profile<__half>(cl, silu) : d == "bf16" ? profile<__nv_bfloat16>(cl, silu) : profile<float>(cl, silu);
    }
    const char *cases = getenv("CASES");
    const std::string only = cases ? cases : "";
    if (only != "bench") {
        srand(7);
        double worst[3] = {0, 0, 0};
        check_all<__half>(worst[0]);
        check_all<__nv_bfloat16>(worst[1]);
        check_all<float>(worst[2]);
        printf("worst rel err f16 %.3g bf16 %.3g f32 %.3g\n", worst[0], worst[1], worst[2]);
    }
    if (only == "check") return 0;
    const double gbps = device_copy_gbps();
    printf("copy %.0f GB/s\n", gbps);
    std::vector<std::array<int, 4>> shapes = {{8, 4096, 2048, 4}, {4, 5120, 4096, 4}};
    if (const char *list = getenv("SHAPES")) {  // "b,d,l,w b,d,l,w ..."
        shapes.clear();
        std::array<int, 4> s{};
        for (int used = 0; sscanf(list, " %d,%d,%d,%d%n", &s[0], &s[1], &s[2], &s[3], &used) == 4; list += used)
            shapes.push_back(s);
    }
    const char *layouts = getenv("LAYOUTS");  // "cf", "cl" or both (the default)
    for (auto &s : shapes)
        for (int cl = 0; cl < 2; ++cl)
            for (int silu = 0; silu < 2; ++silu) {
                if (layouts != nullptr && strstr(layouts, cl ? "cl" : "cf") == nullptr) continue;
                bench<__half>(cl, s[0], s[1], s[2], s[3], silu, gbps);
                bench<__nv_bfloat16>(cl, s[0], s[1], s[2], s[3], silu, gbps);
#ifndef DEV_WIDE_TOEPLITZ
                bench<float>(cl, s[0], s[1], s[2], s[3], silu, gbps);
#endif
            }
}
