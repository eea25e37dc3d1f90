// A 16-byte grid-stride copy of the bench row's bytes (8*192*16*56*56 f16 = 154 MB each way)
// over 4 rotating buffer pairs, looped for SOAK_MS ms, then timed (median of 30): the clocks
// and power a sustained copy settles at, beside nvidia-smi (sixty-first session).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>
__global__ void copy16(const uint4 *__restrict__ x, uint4 *__restrict__ y, size_t n) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) y[i] = x[i];
}
int main() {
    const size_t bytes = 8ull * 192 * 16 * 56 * 56 * 2, n = bytes / 16;
    uint4 *x[4], *y[4];
    for (int s = 0; s < 4; ++s) {
        if (cudaMalloc(&x[s], bytes) || cudaMalloc(&y[s], bytes)) return 1;
        cudaMemset(x[s], 1, bytes);
    }
    const double soak = getenv("SOAK_MS") ? atof(getenv("SOAK_MS")) : 0;
    const auto start = std::chrono::steady_clock::now();
    int k = 0;
    while (std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() < soak) {
        for (int i = 0; i < 8; ++i, ++k) copy16<<<132 * 8, 256>>>(x[k % 4], y[k % 4], n);
        if (cudaDeviceSynchronize() != cudaSuccess) return 1;
    }
    cudaEvent_t a, b;
    cudaEventCreate(&a), cudaEventCreate(&b);
    std::vector<float> t;
    for (int r = 0; r < 30; ++r) {
        cudaEventRecord(a);
        for (int i = 0; i < 4; ++i, ++k) copy16<<<132 * 8, 256>>>(x[k % 4], y[k % 4], n);
        cudaEventRecord(b);
        cudaEventSynchronize(b);
        float ms = 0;
        cudaEventElapsedTime(&ms, a, b);
        t.push_back(ms / 4);
    }
    std::sort(t.begin(), t.end());
    printf("copy16 %.2f us, %.1f GB/s (median of 30, after %.0f ms of soak)\n", t[15] * 1e3, 2.0 * bytes / (t[15] * 1e-3) / 1e9, soak);
    return cudaDeviceSynchronize() != cudaSuccess;
}
