// Reads alone in the NCDHW depthwise kernel's pattern, by plain 16-byte loads: 3072 blocks of
// 128 threads, block = (n, c, row tile of 28 rows), depth fastest within a block: planes
// 0 .. 15 (the kernel takes no box for the padding planes), each plane's rows oh0 - 1 .. oh0 + 28 (30 rows of 112
// bytes, clamped) as 210 16-byte vectors, AHEAD planes in flight a thread; dynamic shared
// memory SMEM bytes a block sets the blocks an SM (39,408: five, as the kernel; 0: sixteen).
// Sixty-first session: the calibration of the reads-only pipelines' 46.7 us. ITEMS: consecutive
// items a block walks, its loads running on from one to the next (call 12).
#include <algorithm>
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>
constexpr int N = 8, C = 192, D = 16, H = 56, W = 56, ROWS = 28;
template <int kAhead, int kItems>
__global__ void __launch_bounds__(128) pattern(const uint4 *__restrict__ x, unsigned *out) {
    extern __shared__ unsigned char smem[];
    unsigned acc = 0;
    for (int q = 0; q < kItems; ++q) {
    const int item = blockIdx.x * kItems + q, tile = item % 2, c = item / 2 % C, n = item / 2 / C;
    const uint4 *channel = x + ((size_t)(n * C + c) * D * H * W) / 8;
    const int r0 = tile * ROWS - 1;
    for (int p0 = 0; p0 < D; p0 += kAhead) {
        uint4 v[kAhead][2];
#pragma unroll
        for (int a = 0; a < kAhead; ++a) {
            const int d = min(p0 + a, D - 1);
#pragma unroll
            for (int k = 0; k < 2; ++k) {
                const int i = threadIdx.x + 128 * k;  // vector i of the plane's 30 rows x 7 vectors
                const int r = min(max(r0 + min(i, 209) / 7, 0), H - 1), col = min(i, 209) % 7;
                v[a][k] = i < 210 && p0 + a < D ? channel[(size_t)d * H * W / 8 + r * 7 + col] : make_uint4(0, 0, 0, 0);
            }
        }
#pragma unroll
        for (int a = 0; a < kAhead; ++a)
#pragma unroll
            for (int k = 0; k < 2; ++k) acc ^= v[a][k].x ^ v[a][k].y ^ v[a][k].z ^ v[a][k].w;
    }
    }
    if (acc == 0x12345678u) { smem[0] = 1; out[blockIdx.x] = acc + smem[0]; }
}
template <int kAhead, int kItems> void run(uint4 **x, unsigned *out, int smem) {
    cudaFuncSetAttribute(pattern<kAhead, kItems>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
    cudaEvent_t a, b;
    cudaEventCreate(&a), cudaEventCreate(&b);
    std::vector<float> t;
    int k = 0;
    for (int r = 0; r < 33; ++r) {
        cudaEventRecord(a);
        for (int i = 0; i < 4; ++i, ++k) pattern<kAhead, kItems><<<N * C * 2 / kItems, 128, smem>>>(x[k % 4], out);
        cudaEventRecord(b);
        cudaEventSynchronize(b);
        float ms = 0;
        cudaEventElapsedTime(&ms, a, b);
        if (r >= 3) t.push_back(ms / 4);
    }
    std::sort(t.begin(), t.end());
    printf("pattern reads, %d planes ahead, %d items a block, %d bytes of shared memory a block: %.2f us (%s)\n", kAhead, kItems, smem,
           t[t.size() / 2] * 1e3, cudaGetErrorString(cudaGetLastError()));
}
int main() {
    const size_t bytes = (size_t)N * C * D * H * W * 2;
    uint4 *x[4];
    unsigned *out;
    for (int s = 0; s < 4; ++s) {
        if (cudaMalloc(&x[s], bytes)) return 1;
        cudaMemset(x[s], 1, bytes);
    }
    if (cudaMalloc(&out, N * C * 2 * sizeof(unsigned))) return 1;
    for (int smem : {39408, 0}) {
        run<4, 1>(x, out, smem);
        run<4, 2>(x, out, smem);
        run<4, 4>(x, out, smem);
    }
    return cudaDeviceSynchronize() != cudaSuccess;
}
