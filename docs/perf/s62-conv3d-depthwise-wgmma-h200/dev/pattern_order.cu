// Reads alone in the NCDHW depthwise kernel's pattern (pattern_items.cu's loads, one item a
// block, five blocks an SM by 39,408 bytes of shared memory) with the planes' order varied:
// ORDER 0 planes 0..15 in every block (the kernel); 1 each (n, c) starting at plane
// (n*C + c) % 16 and wrapping; 2 odd (n, c) walking 15..0; 3 the (n, c) of block b scattered
// (b times an odd constant mod the items). Sixty-second session: whether the concurrent
// blocks' common plane offset is what holds the reads at 42 us.
#include "graph_timing.h"
constexpr int N = 8, C = 192, D = 16, H = 56, W = 56, ROWS = 28, ITEMS = N * C * 2;
template <int kOrder>
__global__ void __launch_bounds__(128) pattern(const uint4 *__restrict__ x, unsigned *out) {
    extern __shared__ unsigned char smem[];
    unsigned acc = 0;
    int item = blockIdx.x;
    if (kOrder == 3) item = (int)(((long long)(item / 2) * 1237) % (ITEMS / 2)) * 2 + item % 2;
    const int tile = item % 2, nc = item / 2;
    const uint4 *channel = x + ((size_t)nc * D * H * W) / 8;
    const int r0 = tile * ROWS - 1;
    for (int p0 = 0; p0 < D; p0 += 4) {
        uint4 v[4][2];
#pragma unroll
        for (int a = 0; a < 4; ++a) {
            int d = p0 + a;
            if (kOrder == 1) d = (d + nc) % D;
            if (kOrder == 2 && (nc & 1)) d = D - 1 - d;
#pragma unroll
            for (int k = 0; k < 2; ++k) {
                const int i = threadIdx.x + 128 * k;  // vector i of the plane's 30 rows x 7 vectors
                const int r = min(max(r0 + min(i, 209) / 7, 0), H - 1), col = min(i, 209) % 7;
                v[a][k] = i < 210 ? channel[(size_t)d * H * W / 8 + r * 7 + col] : make_uint4(0, 0, 0, 0);
            }
        }
#pragma unroll
        for (int a = 0; a < 4; ++a)
#pragma unroll
            for (int k = 0; k < 2; ++k) acc ^= v[a][k].x ^ v[a][k].y ^ v[a][k].z ^ v[a][k].w;
    }
    if (acc == 0x12345678u) { smem[0] = 1; out[blockIdx.x] = acc + smem[0]; }
}
template <int kOrder> void run(uint4 **x, unsigned *out, cudaStream_t s, int smem) {
    CK(cudaFuncSetAttribute(pattern<kOrder>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    const double us = graph_median_us(s, 4, 21, [&](int k) { pattern<kOrder><<<ITEMS, 128, smem, s>>>(x[k], out); });
    CK(cudaGetLastError());
    printf("pattern reads, order %d, %d bytes of shared memory a block: %.2f us\n", kOrder, smem, us);
}
int main() {
    const size_t bytes = (size_t)N * C * D * H * W * 2;
    uint4 *x[4];
    unsigned *out;
    for (int s = 0; s < 4; ++s) {
        CK(cudaMalloc(&x[s], bytes));
        CK(cudaMemset(x[s], 1, bytes));
    }
    CK(cudaMalloc(&out, ITEMS * sizeof(unsigned)));
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    for (int rep = 0; rep < 2; ++rep)
        for (int smem : {39408, 0}) {
            run<0>(x, out, s, smem);
            run<1>(x, out, s, smem);
            run<2>(x, out, s, smem);
            run<3>(x, out, s, smem);
        }
    return 0;
}
