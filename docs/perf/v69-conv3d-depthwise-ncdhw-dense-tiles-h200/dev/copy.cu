// A 16-byte grid-stride copy of the bench row's bytes (8*192*16*56*56 f16 = 154 MB each way),
// for ncu's L2 counters against the depthwise kernels' (dev, sixtieth session).
#include <cstdio>
#include <cuda_runtime.h>
__global__ void copy16(const uint4 *__restrict__ x, uint4 *__restrict__ y, size_t n) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) y[i] = x[i];
}
int main() {
    const size_t bytes = 8ull * 192 * 16 * 56 * 56 * 2, n = bytes / 16;
    uint4 *x, *y;
    if (cudaMalloc(&x, bytes) || cudaMalloc(&y, bytes)) return 1;
    cudaMemset(x, 1, bytes);
    cudaEvent_t a, b;
    cudaEventCreate(&a), cudaEventCreate(&b);
    for (int r = 0; r < 6; ++r) {
        cudaEventRecord(a);
        copy16<<<132 * 8, 256>>>(x, y, n);
        cudaEventRecord(b);
        cudaEventSynchronize(b);
        float ms = 0;
        cudaEventElapsedTime(&ms, a, b);
        printf("copy %.2f us, %.1f GB/s\n", ms * 1e3, 2.0 * bytes / (ms * 1e-3) / 1e9);
    }
    return cudaDeviceSynchronize() != cudaSuccess;
}
