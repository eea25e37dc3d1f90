// Probe: wgmma A descriptors starting 0..7 rows into a swizzled tile (TMA-written), with
// each base-offset value; prints which (swizzle, shift, base_offset) give the right product.
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>
#include <cuda_fp16.h>
#include "wgmma.h"
using namespace hipconv;

#if HIPCONV_HAS_WGMMA
__device__ uint64_t desc32(const void *tile) {
    const uint32_t address = (uint32_t)__cvta_generic_to_shared(tile);
    uint64_t d = (uint64_t)((address & 0x3FFFF) >> 4);
    d |= (uint64_t)1 << 16;
    d |= (uint64_t)((8 * 32) >> 4) << 32;
    d |= (uint64_t)3 << 62;
    return d;
}
#endif
__global__ void probe(const __grid_constant__ CUtensorMap map128, const __grid_constant__ CUtensorMap map64, const __grid_constant__ CUtensorMap map32,
                      const __half *w, float *out) {
#if HIPCONV_HAS_WGMMA
    extern __shared__ __align__(1024) unsigned char raw[];
    unsigned char *base = (unsigned char *)(((uintptr_t)raw + 1023) & ~(uintptr_t)1023);
    unsigned char *a128 = base;              // 72 rows x 128 B  = 9216
    unsigned char *a64 = base + 9216;        // 72 rows x 64 B = 4608 (9216 is 1024-aligned)
    unsigned char *b128 = base + 9216 + 5120; // 32 rows x 128 B (1024-aligned: 14336)
    unsigned char *b64 = b128 + 4096;         // 32 rows x 64 B
    unsigned char *a32 = b64 + 2048;          // 72 rows x 32 B = 2304 (aligned 1024: 14336+6144=20480)
    unsigned char *b32 = a32 + 3072;          // 32 rows x 32 B
    __shared__ uint64_t bar;
    const int t = threadIdx.x;
    // B: w[32][64] -> b128 (k 0..63 swizzled 128) and k 0..31 into b64 (64B swizzle)
    for (int i = t; i < 32 * 8; i += 128) {
        int r = i / 8, c = i % 8;
        *(uint4 *)(b128 + wgmma::swizzled(r, c)) = *(const uint4 *)(w + r * 64 + c * 8);
    }
    for (int i = t; i < 32 * 4; i += 128) {
        int r = i / 4, c = i % 4;
        // 64B swizzle: chunk c of row r at c ^ ((r/2)%4), rows 64 B
        *(uint4 *)(b64 + r * 64 + ((c ^ ((r / 2) & 3)) << 4)) = *(const uint4 *)(w + r * 64 + c * 8);
    }
    for (int i = t; i < 32 * 2; i += 128) {
        int r = i / 2, c = i % 2;
        *(uint4 *)(b32 + r * 32 + ((c ^ ((r / 4) & 1)) << 4)) = *(const uint4 *)(w + r * 64 + c * 8);
    }
    if (t == 0) { tma::init_barrier(&bar, 1); tma::fence_barrier_init(); }
    __syncthreads();
    if (t == 0) {
        tma::arrive_expect_bytes(&bar, 72 * 128 + 72 * 64 + 72 * 32);
        tma::load_tile5(tma::shared_address(a32), &map32, 0, 0, 0, 0, 0, tma::shared_address(&bar));
        tma::load_tile5(tma::shared_address(a128), &map128, 0, 0, 0, 0, 0, tma::shared_address(&bar));
        tma::load_tile5(tma::shared_address(a64), &map64, 0, 0, 0, 0, 0, tma::shared_address(&bar));
    }
    tma::fence_shared_for_async();
    tma::wait_barrier(&bar, 0);
    __syncthreads();
    const int warp = t / 32, lane = t % 32, g = lane / 4, q = lane % 4;
    for (int mode = 0; mode < 3; ++mode)
        for (int s = 0; s < 8; ++s)
            for (int bo = 0; bo < 8; ++bo) {
                float d[16];
                for (int i = 0; i < 16; ++i) d[i] = 0.f;
                wgmma::fence_operands(d);
                wgmma::fence();
                const int steps = mode == 0 ? 4 : mode == 1 ? 2 : 1;
                for (int k = 0; k < steps; ++k) {
                    uint64_t da, db;
                    if (mode == 0) {
                        da = wgmma::descriptor<128>(a128 + s * 128, k * 32);
                        db = wgmma::descriptor<128>(b128, k * 32);
                    } else if (mode == 1) {
                        da = wgmma::descriptor<64>(a64 + s * 64, k * 32);
                        db = wgmma::descriptor<64>(b64, k * 32);
                    } else {
                        da = desc32(a32 + s * 32);
                        db = desc32(b32);
                    }
                    da |= (uint64_t)bo << 49;
                    wgmma::m64k16<32>::run<__half>(d, da, db);
                }
                wgmma::commit();
                wgmma::wait<0>();
                wgmma::fence_operands(d);
                float *o = out + ((mode * 8 + s) * 8 + bo) * 64 * 32;
                for (int j = 0; j < 4; ++j)
                    for (int r = 0; r < 4; ++r)
                        o[(16 * warp + g + 8 * (r / 2)) * 32 + 8 * j + 2 * q + r % 2] = d[4 * j + r];
            }
#endif
}

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); exit(1);} } while (0)
int main() {
    std::vector<__half> x(72 * 96), w(32 * 64);
    std::vector<float> xf(72 * 96), wf(32 * 64);
    srand(1);
    for (size_t i = 0; i < x.size(); ++i) { xf[i] = (rand() % 17 - 8) / 8.f; x[i] = __float2half(xf[i]); }
    for (size_t i = 0; i < w.size(); ++i) { wf[i] = (rand() % 17 - 8) / 8.f; w[i] = __float2half(wf[i]); }
    __half *dx, *dw; float *dout;
    const size_t outn = 3 * 8 * 8 * 64 * 32;
    CK(cudaMalloc(&dx, x.size() * 2)); CK(cudaMalloc(&dw, w.size() * 2)); CK(cudaMalloc(&dout, outn * 4));
    CK(cudaMemcpy(dx, x.data(), x.size() * 2, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dw, w.data(), w.size() * 2, cudaMemcpyHostToDevice));
    CK(cudaMemset(dout, 0xff, outn * 4));
    // x as [n=1][d=1][h=1][w=72][c=96]
    CUtensorMap m128, m64, m32;
    int dhw[3] = {1, 1, 72};
    int64_t stride[5] = {72 * 96, 1, 72 * 96, 72 * 96, 96};
    if (!tma::encode_channels_last_map(&m128, dx, false, 1, 96, dhw, stride, {64, 72, 1, 1}, CU_TENSOR_MAP_SWIZZLE_128B)) { printf("map128 failed\n"); return 1; }
    // channels 64..95: base offset by 64 elements
    if (!tma::encode_channels_last_map(&m64, dx + 64, false, 1, 32, dhw, stride, {32, 72, 1, 1}, CU_TENSOR_MAP_SWIZZLE_64B)) { printf("map64 failed\n"); return 1; }
    if (!tma::encode_channels_last_map(&m32, dx + 64, false, 1, 16, dhw, stride, {16, 72, 1, 1}, CU_TENSOR_MAP_SWIZZLE_32B)) { printf("map32 failed\n"); return 1; }
    CK(cudaFuncSetAttribute(probe, cudaFuncAttributeMaxDynamicSharedMemorySize, 40000));
    probe<<<1, 128, 40000>>>(m128, m64, m32, dw, dout);
    CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
    std::vector<float> out(outn);
    CK(cudaMemcpy(out.data(), dout, outn * 4, cudaMemcpyDeviceToHost));
    for (int mode = 0; mode < 3; ++mode) {
        printf("%s swizzle: rows = shift, cols = base_offset 0..7 (max abs error)\n", mode == 0 ? "128B" : mode == 1 ? "64B" : "32B");
        for (int s = 0; s < 8; ++s) {
            printf("  shift %d:", s);
            for (int bo = 0; bo < 8; ++bo) {
                double err = 0;
                const float *o = out.data() + ((mode * 8 + s) * 8 + bo) * 64 * 32;
                for (int m = 0; m < 64; ++m) for (int n = 0; n < 32; ++n) {
                    double ref = 0;
                    const int k0 = mode == 0 ? 0 : 64, kn = mode == 0 ? 64 : mode == 1 ? 32 : 16;
                    for (int k = 0; k < kn; ++k) ref += (double)xf[(m + s) * 96 + k0 + k] * wf[n * 64 + k];
                    double e = fabs(ref - o[m * 32 + n]); if (!(e <= err)) err = e;
                }
                printf(" %8.2g", err);
            }
            printf("\n");
        }
    }
    return 0;
}
