// Dev bench of hip/conv1d/direct_window_channel_last.hip alone, for trying its tuning
// (blocks per SM, rows per group, chunk) without the library build: first every width the
// kernel takes, both vector paths (dims even and odd, row pitches even and odd) and bias +
// SiLU against a host double reference (relative norm error; "BAD" lines past 1e-3 f16,
// 1e-2 bf16, 1e-5 f32), then (4,2048,4096,W) channel-last for W = 8 and 16 in each dtype,
// 30 launches per round over 3 rotating buffer sets (3 x 67-134 MB, past the 50 MB L2),
// median of 8 rounds, as % of a 1 GiB device-to-device copy timed in the same process;
// last, the kernel's access pattern alone (pattern_copy_kernel: y = x, same grid and groups).
// The library's bench (examples/bench) is the number of record; this is for comparing
// variants within one device call. Build here and run on the GPU:
//   nvcc -std=c++17 -O3 -x cu -DHIPCONV_PLATFORM_NVIDIA -gencode arch=compute_90a,code=sm_90a \
//     -Ihip/include -Ihip/common -Ihip/conv1d scripts/dev/window_bench.cu -o window_bench \
//     -L$(dirname $(which nvcc))/../lib -cudart static
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "direct_window_channel_last.hip"
using namespace hipconv;
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA %s at %d\n", cudaGetErrorString(e_), __LINE__); exit(1);} } while (0)

template <typename T> float h2f(T v);
template <> float h2f<float>(float v) { return v; }
template <> float h2f<__half>(__half v) { return __half2float(v); }
template <> float h2f<__nv_bfloat16>(__nv_bfloat16 v) { return __bfloat162float(v); }
template <typename T> T f2h(float v);
template <> float f2h<float>(float v) { return v; }
template <> __half f2h<__half>(float v) { return __float2half(v); }
template <> __nv_bfloat16 f2h<__nv_bfloat16>(float v) { return __float2bfloat16(v); }

template <typename T> double check(int B, int D, int L, int Wd, bool silu, int pitch_extra) {
    const int pitch = D + pitch_extra;
    std::vector<T> x((size_t)B * L * pitch), w((size_t)D * Wd), bias(D), y((size_t)B * L * pitch);
    for (auto &v : x) v = f2h<T>((rand() % 2001) / 1000.f - 1.f);
    for (auto &v : w) v = f2h<T>((rand() % 2001) / 1000.f - 1.f);
    for (auto &v : bias) v = f2h<T>((rand() % 2001) / 1000.f - 1.f);
    T *dx, *dw, *db, *dy;
    CK(cudaMalloc(&dx, x.size() * sizeof(T))); CK(cudaMalloc(&dw, w.size() * sizeof(T)));
    CK(cudaMalloc(&db, bias.size() * sizeof(T))); CK(cudaMalloc(&dy, y.size() * sizeof(T)));
    CK(cudaMemcpy(dx, x.data(), x.size() * sizeof(T), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dw, w.data(), w.size() * sizeof(T), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(db, bias.data(), bias.size() * sizeof(T), cudaMemcpyHostToDevice));
    CK(cudaMemset(dy, 0xff, y.size() * sizeof(T)));
    hipconv_conv1d_params p{};
    p.x = dx; p.w = dw; p.bias = db; p.y = dy; p.batch = B; p.dim = D; p.seqlen = L; p.width = Wd;
    p.x_batch_stride = (int64_t)L * pitch; p.x_dim_stride = 1; p.x_seq_stride = pitch;
    p.y_batch_stride = (int64_t)L * pitch; p.y_dim_stride = 1; p.y_seq_stride = pitch; p.silu = silu;
    if (!direct_window_channel_last_fits<T>(p)) { printf("does not fit\n"); exit(1); }
    CK((cudaError_t)launch_direct_window_channel_last<T>(p, 0));
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(y.data(), dy, y.size() * sizeof(T), cudaMemcpyDeviceToHost));
    double num = 0, den = 0;
    for (int b = 0; b < B; ++b) for (int t = 0; t < L; ++t) for (int c = 0; c < D; ++c) {
        double acc = h2f(bias[c]);
        for (int k = 0; k < Wd; ++k) { int tt = t - (Wd - 1) + k; if (tt >= 0) acc += (double)h2f(w[(size_t)c * Wd + k]) * h2f(x[((size_t)b * L + tt) * pitch + c]); }
        if (silu) acc = acc / (1 + exp(-acc));
        double got = h2f(y[((size_t)b * L + t) * pitch + c]);
        if (std::isnan(got)) got = 1e30;
        num += (got - acc) * (got - acc); den += acc * acc;
    }
    cudaFree(dx); cudaFree(dw); cudaFree(db); cudaFree(dy);
    return sqrt(num / den);
}

// The timing both benches share, at (4,2048,4096) channel-last: R = 3 rotating (x, y) sets,
// 30 launches of launch(x, y) per round, the median over rounds 2-9 in us.
constexpr int kB = 4, kD = 2048, kL = 4096;
template <typename T, typename Launch> double median_us(const Launch &launch) {
    const int R = 3;
    const size_t n = (size_t)kB * kD * kL;
    std::vector<T *> xs(R), ys(R);
    for (int r = 0; r < R; ++r) { CK(cudaMalloc(&xs[r], n * sizeof(T))); CK(cudaMalloc(&ys[r], n * sizeof(T))); CK(cudaMemset(xs[r], 0, n * sizeof(T))); }
    cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
    std::vector<float> ts;
    for (int round = 0; round < 9; ++round) {
        const int reps = 30;
        cudaEventRecord(a);
        for (int i = 0; i < reps; ++i) launch(xs[i % R], ys[i % R]);
        cudaEventRecord(b); CK(cudaEventSynchronize(b)); CK(cudaGetLastError());
        float ms; cudaEventElapsedTime(&ms, a, b); if (round) ts.push_back(ms * 1000 / reps);
    }
    std::sort(ts.begin(), ts.end());
    for (int r = 0; r < R; ++r) { cudaFree(xs[r]); cudaFree(ys[r]); }
    return ts[ts.size() / 2];
}

template <typename T> void bench(const char *name, int Wd, double copy_gbps) {
    T *dw; CK(cudaMalloc(&dw, (size_t)kD * Wd * sizeof(T))); CK(cudaMemset(dw, 0, (size_t)kD * Wd * sizeof(T)));
    hipconv_conv1d_params p{};
    p.w = dw; p.batch = kB; p.dim = kD; p.seqlen = kL; p.width = Wd;
    p.x_batch_stride = (int64_t)kL * kD; p.x_dim_stride = 1; p.x_seq_stride = kD;
    p.y_batch_stride = (int64_t)kL * kD; p.y_dim_stride = 1; p.y_seq_stride = kD;
    const double us = median_us<T>([&](T *x, T *y) { p.x = x; p.y = y; CK((cudaError_t)launch_direct_window_channel_last<T>(p, 0)); });
    double bytes = 2.0 * kB * kD * kL * sizeof(T) + (double)kD * Wd * sizeof(T);
    printf("bench %-5s W=%2d  %8.2f us  %6.1f%% of copy\n", name, Wd, us, bytes / us / 1e3 / copy_gbps * 100);
    cudaFree(dw);
}

// The kernel's access pattern without its arithmetic: the same grid (span fastest, 4 warps
// of consecutive 128-row chunks per block), each lane a pair of channels, 16-row groups
// with the next group's loads in flight; y = x. What the pattern alone reaches.
template <typename T>
__global__ void __launch_bounds__(128, 4) pattern_copy_kernel(const T *x, T *y, int dim, int seqlen, int spans, int chunk_blocks) {
    using Word = typename std::conditional<sizeof(T) == 2, uint32_t, uint2>::type;
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    int64_t block = blockIdx.x;
    const int span = block % spans; block /= spans;
    const int chunk_block = block % chunk_blocks; const int64_t b = block / chunk_blocks;
    const int c = (span * 32 + lane) * 2;
    const int64_t t0 = ((int64_t)chunk_block * 4 + warp) * 128;
    const Word *xw = reinterpret_cast<const Word *>(x + b * (int64_t)seqlen * dim + c);
    Word *yw = reinterpret_cast<Word *>(y + b * (int64_t)seqlen * dim + c);
    const int64_t stride = dim / 2;
    Word cur[16], next[16];
#pragma unroll
    for (int s = 0; s < 16; ++s) cur[s] = xw[(t0 + s) * stride];
    for (int g = 0; g < 8; g += 2) {
        const int64_t tg = t0 + g * 16;
        if (g + 1 < 8) {
#pragma unroll
            for (int s = 0; s < 16; ++s) next[s] = xw[(tg + 16 + s) * stride];
        }
#pragma unroll
        for (int s = 0; s < 16; ++s) yw[(tg + s) * stride] = cur[s];
        if (g + 2 < 8) {
#pragma unroll
            for (int s = 0; s < 16; ++s) cur[s] = xw[(tg + 32 + s) * stride];
        }
#pragma unroll
        for (int s = 0; s < 16; ++s) yw[(tg + 16 + s) * stride] = next[s];
    }
}

template <typename T> void bench_pattern(const char *name, double copy_gbps) {
    const int spans = kD / 64, chunk_blocks = kL / 512;
    const double us = median_us<T>([&](T *x, T *y) {
        pattern_copy_kernel<T><<<spans * chunk_blocks * kB, 128>>>(x, y, kD, kL, spans, chunk_blocks);
    });
    printf("pattern copy %-5s  %8.2f us  %6.1f%% of copy\n", name, us, 2.0 * kB * kD * kL * sizeof(T) / us / 1e3 / copy_gbps * 100);
}

int main() {
    srand(7);
    double worst[3] = {0, 0, 0};
    int shapes[][3] = {{2, 136, 1000}, {1, 135, 300}, {3, 64, 129}, {2, 70, 4100}, {1, 8, 17}, {4, 2048, 300}};
    for (auto &s : shapes) for (int Wd : {5, 8, 9, 15, 16}) for (int silu = 0; silu < 2; ++silu) for (int pe = 0; pe < 2; ++pe) {
        double e0 = check<__half>(s[0], s[1], s[2], Wd, silu, pe);
        double e1 = check<__nv_bfloat16>(s[0], s[1], s[2], Wd, silu, pe);
        double e2 = check<float>(s[0], s[1], s[2], Wd, silu, pe);
        worst[0] = std::max(worst[0], e0); worst[1] = std::max(worst[1], e1); worst[2] = std::max(worst[2], e2);
        if (e0 > 1e-3 || e1 > 1e-2 || e2 > 1e-5) printf("BAD (%d,%d,%d) W=%d silu=%d pitch+%d: %g %g %g\n", s[0], s[1], s[2], Wd, silu, pe, e0, e1, e2);
    }
    printf("worst rel err f16 %.3g bf16 %.3g f32 %.3g\n", worst[0], worst[1], worst[2]);
    // copy
    size_t cb = 1ull << 30; void *c0, *c1; CK(cudaMalloc(&c0, cb)); CK(cudaMalloc(&c1, cb));
    cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
    std::vector<float> ts;
    for (int i = 0; i < 7; ++i) { cudaEventRecord(a); CK(cudaMemcpyAsync(c1, c0, cb, cudaMemcpyDeviceToDevice)); cudaEventRecord(b); cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms, a, b); ts.push_back(ms); }
    std::sort(ts.begin(), ts.end()); double gbps = 2.0 * cb / (ts[3] * 1e-3) / 1e9;
    printf("copy %.0f GB/s\n", gbps); cudaFree(c0); cudaFree(c1);
    for (int Wd : {8, 16}) { bench<__half>("f16", Wd, gbps); bench<__nv_bfloat16>("bf16", Wd, gbps); bench<float>("f32", Wd, gbps); }
    bench_pattern<__half>("16-bit", gbps);
    bench_pattern<float>("f32", gbps);
}
