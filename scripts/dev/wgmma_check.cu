// Dev check of hip/conv3d/wgmma.h: C = A * B^T (A rows shift .. shift + 127 of [136][K],
// B [N][K], f16/bf16, K-major) through 128-byte-swizzled shared tiles and wgmma m64nNk16,
// one m64 half per warpgroup of a 256-thread block (the kernel runs two halves per
// warpgroup), against a host double reference; prints one line per case. Build for sm_90a and run on an H100/H200:
//   nvcc -std=c++17 -DHIPCONV_PLATFORM_NVIDIA -gencode arch=compute_90a,code=sm_90a \
//     -Ihip/common -Ihip/conv3d -Ihip/include scripts/dev/wgmma_check.cu -o wgmma_check \
//     -L$(dirname $(which nvcc))/../lib -cudart static
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "element.h"
#include "wgmma.h"

using namespace hipconv;

constexpr int kARows = 136;  // 128 rows of A and 8 more for the shifted starts

template <typename T, int N> __global__ void gemm(const T *a, const T *b, float *c, int K, int shift) {
#if HIPCONV_HAS_WGMMA
    __shared__ __align__(1024) unsigned char smem[(kARows + N) * 128];
    const int wg = threadIdx.x / 128, t = threadIdx.x % 128;
    float d[N / 2];
    for (int i = 0; i < N / 2; ++i) d[i] = 0.f;
    for (int k0 = 0; k0 < K; k0 += 64) {
        __syncthreads();
        for (int i = threadIdx.x; i < (kARows + N) * 8; i += blockDim.x) {
            const int r = i / 8, ch = i % 8;
            const T *src = r < kARows ? a + (size_t)r * K + k0 + ch * 8 : b + (size_t)(r - kARows) * K + k0 + ch * 8;
            *reinterpret_cast<uint4 *>(smem + wgmma::swizzled(r, ch)) = *reinterpret_cast<const uint4 *>(src);
        }
        wgmma::fence_shared_for_async();
        __syncthreads();
        wgmma::fence_operands(d);
        wgmma::fence();
        for (int kk = 0; kk < 4; ++kk)
            wgmma::m64k16<N>::template run<T>(d, wgmma::descriptor(smem + (wg * 64 + shift) * 128, kk * 32),
                                               wgmma::descriptor(smem + kARows * 128, kk * 32));
        wgmma::commit();
        wgmma::wait<0>();
        wgmma::fence_operands(d);
    }
    const int w = t / 32, l = t % 32, g = l / 4, q = l % 4;
    for (int j = 0; j < N / 8; ++j)
        for (int r = 0; r < 4; ++r)
            c[(size_t)(wg * 64 + 16 * w + g + 8 * (r / 2)) * N + 8 * j + 2 * q + r % 2] = d[4 * j + r];
#endif
}

template <typename T, int N> int check(const char *name, int shift = 0) {
    const int K = 256;
    std::vector<T> a(kARows * K), b(N * K);
    std::vector<float> af(a.size()), bf(b.size());
    for (size_t i = 0; i < a.size(); ++i) { af[i] = (rand() / (float)RAND_MAX - .5f); a[i] = T(af[i]); af[i] = float(a[i]); }
    for (size_t i = 0; i < b.size(); ++i) { bf[i] = (rand() / (float)RAND_MAX - .5f); b[i] = T(bf[i]); bf[i] = float(b[i]); }
    T *da, *db; float *dc;
    cudaMalloc(&da, a.size() * 2); cudaMalloc(&db, b.size() * 2); cudaMalloc(&dc, 128 * N * 4);
    cudaMemcpy(da, a.data(), a.size() * 2, cudaMemcpyHostToDevice);
    cudaMemcpy(db, b.data(), b.size() * 2, cudaMemcpyHostToDevice);
    cudaMemset(dc, 0xff, 128 * N * 4);
    gemm<T, N><<<1, 256>>>(da, db, dc, K, shift);
    cudaError_t e = cudaDeviceSynchronize();
    std::vector<float> c(128 * N);
    cudaMemcpy(c.data(), dc, c.size() * 4, cudaMemcpyDeviceToHost);
    double num = 0, den = 0;
    for (int m = 0; m < 128; ++m)
        for (int n = 0; n < N; ++n) {
            double ref = 0;
            for (int k = 0; k < K; ++k) ref += (double)af[(m + shift) * K + k] * bf[n * K + k];
            num += (c[m * N + n] - ref) * (c[m * N + n] - ref);
            den += ref * ref;
        }
    const double err = std::sqrt(num / den);
    printf("%-5s n%-3d A from row %d: %s rel err %.3e %s\n", name, N, shift, cudaGetErrorString(e), err,
           err < 1e-5 && e == 0 ? "ok" : "FAIL");
    cudaFree(da); cudaFree(db); cudaFree(dc);
    return err < 1e-5 && e == 0 ? 0 : 1;
}

int main() {
    int bad = 0;
    bad += check<__half, 32>("f16") + check<__half, 64>("f16") + check<__half, 96>("f16") + check<__half, 128>("f16");
    bad += check<__nv_bfloat16, 32>("bf16") + check<__nv_bfloat16, 96>("bf16") + check<__nv_bfloat16, 128>("bf16");
    // A descriptors that start 1, 3, 5 rows into the swizzled tile (not 1024-byte aligned,
    // base offset 0): the swizzle follows the absolute address (measured: H100, all ok).
    bad += check<__half, 64>("f16", 1) + check<__half, 64>("f16", 3) + check<__nv_bfloat16, 96>("bf16", 5);
    printf("%s\n", bad ? "FAILED" : "all ok");
    return bad;
}
