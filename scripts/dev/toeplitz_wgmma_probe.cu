// Probe (dev only, sm_90a): can a wgmma A operand be a Toeplitz window, A(m, k) =
// window[8m + k] (rows of 16 elements overlapping by 8), through a no-swizzle K-major
// descriptor with a 16-byte step along k and 128 bytes along m? And how fast do m64n8k16 and
// m64n24k16 run against mma.sync m16n8k16 on the same work?
/*
 *   nvcc -std=c++17 -O3 -DHIPCONV_PLATFORM_NVIDIA -gencode arch=compute_90a,code=sm_90a \
 *     -Ihip/common -Ihip/conv3d -Ihip/include -Iscripts/dev scripts/dev/toeplitz_wgmma_probe.cu -o probe \
 *     -L$(dirname $(which nvcc))/../lib -cudart static
 * (The kernels' bodies exist in the sm_90a device pass only: wgmma.h's HIPCONV_HAS_WGMMA.)
 */
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "graph_timing.h"
#include "wgmma.h"

namespace wg = hipconv::wgmma;

// A no-swizzle descriptor (wgmma.h's descriptor() names swizzled tiles only): start, the
// leading byte offset (between core matrices along k) and the stride byte offset (along m/n).
__device__ inline uint64_t desc(const void *p, uint32_t lbo, uint32_t sbo) {
    const uint32_t a = (uint32_t)__cvta_generic_to_shared(p);
    return (uint64_t)((a & 0x3FFFF) >> 4) | (uint64_t)(lbo >> 4) << 16 | (uint64_t)(sbo >> 4) << 32;
}

__device__ inline void n8(float (&d)[4], uint64_t a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0, %1, %2, %3}, %4, %5, p, 1, 1, 0, 0;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "l"(a), "l"(b));
}
__device__ inline void n24(float (&d)[12], uint64_t a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n24k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, "
                 "%11}, %12, %13, p, 1, 1, 0, 0;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                   "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11])
                 : "l"(a), "l"(b));
}

// B (16 x N) as core matrices: n-group g (8 rows of n), k-half h: 8 x 8 at byte 256 g + 128 h.
__device__ inline int b_index(int k, int n) { return (n / 8) * 128 + (k / 8) * 64 + (n % 8) * 8 + k % 8; }

// Correctness: one warpgroup, window of 64 * 8 + 8 elements, B 16 x 24; out[m * 24 + n].
__global__ void check_kernel(const __half *x, const __half *b, float *out, int variant) {
#if HIPCONV_HAS_WGMMA
    __shared__ __align__(128) __half window[1024];
    __shared__ __align__(128) __half band[16 * 24];
    for (int i = threadIdx.x; i < 1024; i += 128) window[i] = x[i];
    for (int i = threadIdx.x; i < 16 * 24; i += 128) band[b_index(i / 24, i % 24)] = b[i];
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();
    const uint32_t lbo = variant == 0 ? 16 : 128, sbo = variant == 0 ? 128 : 16;
    const uint64_t a = desc(window, lbo, sbo), bd = desc(band, 128, 256);
    float d[12] = {};
    float e[4] = {};
    wg::fence();
    n24(d, a, bd);
    n8(e, a, desc(band + 128, 128, 256));  // n-group 1 alone (256 bytes in)
    wg::commit();
    wg::wait<0>();
    const int w = threadIdx.x / 32, l = threadIdx.x % 32, g = l / 4, q = l % 4;
    for (int i = 0; i < 12; ++i) {
        const int j = i / 4, r = i % 4;
        out[(16 * w + g + 8 * (r / 2)) * 24 + 8 * j + 2 * q + r % 2] = d[i];
    }
    for (int r = 0; r < 4; ++r) out[64 * 24 + (16 * w + g + 8 * (r / 2)) * 8 + 2 * q + r % 2] = e[r];
#else
    (void)x, (void)b, (void)out, (void)variant;
#endif
}

// Throughput: per iteration ("plane") 4 tiles x 3 kh of windows 512 elements apart;
// mode 0: m64n24k16 (12 a plane), 1: m64n8k16 x 3 (36), 2: mma.sync m16n8k16 (36 a warp).
template <int kMode> __global__ void __launch_bounds__(128) rate_kernel(int planes, float *sink, long long *cycles) {
#if HIPCONV_HAS_WGMMA
    __shared__ __align__(128) __half window[2048 + 512];
    __shared__ __align__(128) __half band[3 * 16 * 24];
    for (int i = threadIdx.x; i < 2560; i += 128) window[i] = __float2half((float)((i * 7) % 13) * 0.01f);
    for (int i = threadIdx.x; i < 3 * 384; i += 128) band[i] = __float2half((float)(i % 5) * 0.1f);
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();
    const long long t0 = clock64();
    float acc[4][12] = {};
    const int lane = threadIdx.x % 32, w = threadIdx.x / 32;
    uint32_t bfr[3][3][2];
    if (kMode == 2)
        for (int kh = 0; kh < 3; ++kh)
            for (int kd = 0; kd < 3; ++kd)
                for (int h = 0; h < 2; ++h)
                    bfr[kh][kd][h] = reinterpret_cast<const uint32_t *>(band)[(kh * 3 + kd) * 64 + h * 32 + lane];
    for (int j = 0; j < planes; ++j) {
        if (kMode == 0 || kMode == 1) {
            wg::fence();
#pragma unroll
            for (int kh = 0; kh < 3; ++kh)
#pragma unroll
                for (int t = 0; t < 4; ++t) {
                    const uint64_t a = desc(window + kh * 64 + t * 512, 16, 128);
                    if (kMode == 0) {
                        n24(acc[t], a, desc(band + kh * 384, 128, 256));
                    } else {
#pragma unroll
                        for (int kd = 0; kd < 3; ++kd)
                            n8(*reinterpret_cast<float(*)[4]>(&acc[t][4 * kd]), a,
                               desc(band + kh * 384 + kd * 128, 128, 256));
                    }
                }
            wg::commit();
            wg::wait<0>();
        } else {
#pragma unroll
            for (int kh = 0; kh < 3; ++kh)
#pragma unroll
                for (int t = 0; t < 4; ++t) {
                    uint32_t f[4];
                    const __half *row = window + kh * 64 + t * 512 + w * 128 + (lane % 16) * 8 + (lane / 16) * 8;
                    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                                 : "=r"(f[0]), "=r"(f[1]), "=r"(f[2]), "=r"(f[3])
                                 : "r"((uint32_t)__cvta_generic_to_shared(row)));
#pragma unroll
                    for (int kd = 0; kd < 3; ++kd) {
                        float *c = &acc[t][4 * kd];
                        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
                                     "{%8,%9}, {%0,%1,%2,%3};"
                                     : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                                     : "r"(f[0]), "r"(f[1]), "r"(f[2]), "r"(f[3]), "r"(bfr[kh][kd][0]),
                                       "r"(bfr[kh][kd][1]));
                    }
                }
        }
        // a plane's epilogue stand-in: nothing; the next plane depends on the accumulators.
    }
    const long long t1 = clock64();
    float s = 0.f;
    for (int t = 0; t < 4; ++t)
        for (int i = 0; i < 12; ++i) s += acc[t][i];
    if (s == 12345.f) sink[threadIdx.x] = s;
    if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
#else
    (void)planes, (void)sink, (void)cycles;
#endif
}

int main() {
    // correctness
    std::vector<__half> hx(1024), hb(16 * 24);
    std::vector<float> fx(1024), fb(16 * 24);
    srand(7);
    for (int i = 0; i < 1024; ++i) fx[i] = (float)(rand() % 17 - 8) / 8.f, hx[i] = __float2half(fx[i]);
    for (int i = 0; i < 384; ++i) fb[i] = (float)(rand() % 9 - 4) / 4.f, hb[i] = __float2half(fb[i]);
    __half *dx, *db;
    float *dout;
    CK(cudaMalloc(&dx, 1024 * 2));
    CK(cudaMalloc(&db, 384 * 2));
    CK(cudaMalloc(&dout, (64 * 24 + 64 * 8) * 4));
    CK(cudaMemcpy(dx, hx.data(), 2048, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(db, hb.data(), 768, cudaMemcpyHostToDevice));
    for (int variant = 0; variant < 2; ++variant) {
        check_kernel<<<1, 128>>>(dx, db, dout, variant);
        CK(cudaGetLastError());
        std::vector<float> out(64 * 32);
        CK(cudaMemcpy(out.data(), dout, out.size() * 4, cudaMemcpyDeviceToHost));
        int bad = 0, bad8 = 0;
        for (int m = 0; m < 64; ++m)
            for (int n = 0; n < 24; ++n) {
                double ref = 0;
                for (int k = 0; k < 16; ++k) ref += (double)fx[8 * m + k] * fb[k * 24 + n];
                if (std::fabs(ref - out[m * 24 + n]) > 1e-3) ++bad;
                if (n >= 8 && n < 16 && std::fabs(ref - out[64 * 24 + m * 8 + n - 8]) > 1e-3) ++bad8;
            }
        printf("variant %d (LBO %d, SBO %d): m64n24k16 %d of 1536 wrong, m64n8k16 %d of 512 wrong\n", variant,
               variant == 0 ? 16 : 128, variant == 0 ? 128 : 16, bad, bad8);
    }
    // throughput
    int sms = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    float *sink;
    long long *cyc;
    CK(cudaMalloc(&sink, 4096));
    const int planes = 4000;
    for (int per_sm : {4, 5, 6, 8}) {
        const int blocks = sms * per_sm;
        CK(cudaMalloc(&cyc, blocks * 8));
        for (int mode = 0; mode < 3; ++mode) {
            cudaEvent_t a, b;
            CK(cudaEventCreate(&a));
            CK(cudaEventCreate(&b));
            for (int rep = 0; rep < 2; ++rep) {
                CK(cudaEventRecord(a));
                if (mode == 0) rate_kernel<0><<<blocks, 128>>>(planes, sink, cyc);
                if (mode == 1) rate_kernel<1><<<blocks, 128>>>(planes, sink, cyc);
                if (mode == 2) rate_kernel<2><<<blocks, 128>>>(planes, sink, cyc);
                CK(cudaGetLastError());
                CK(cudaEventRecord(b));
                CK(cudaEventSynchronize(b));
            }
            float ms = 0;
            CK(cudaEventElapsedTime(&ms, a, b));
            std::vector<long long> c(blocks);
            CK(cudaMemcpy(c.data(), cyc, blocks * 8, cudaMemcpyDeviceToHost));
            double mean = 0;
            for (long long v : c) mean += (double)v / blocks;
            // Toeplitz MACs a plane a block: 4 tiles x 3 kh x 3 kd x 512 x 16 x 8 / 8 (m64 x k16 x n8)
            const double macs = (double)blocks * planes * 4 * 3 * 3 * 64 * 16 * 8;
            printf("%d blocks/SM mode %s: %.3f ms, %.1f TMAC/s, %.0f SM cycles a block-plane (%.1f a plane an SM)\n",
                   per_sm, mode == 0 ? "m64n24k16" : mode == 1 ? "m64n8k16 " : "mma.sync ", ms, macs / ms / 1e9,
                   mean / planes, mean / planes / per_sm);
        }
        CK(cudaFree(cyc));
    }
    return 0;
}
