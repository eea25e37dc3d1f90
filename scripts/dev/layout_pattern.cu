// layout_pattern: what DRAM gives the channel-last backward's access pattern alone. The
// same kernel computes y = a + b over f32 [batch][seqlen][dim] (two reads and a write, the
// backward's traffic), with two address patterns for the same block and thread work:
//
//   rows   the channel-last tiles: block (b, run, group) walks rows t of its run, a warp
//          reading 512 bytes (128 channels) of a row, rows dim·4 bytes apart
//   flat   the same blocks and loops, each block on a contiguous span of the same size
//          (the channel-first backward's long runs)
//
// A warp takes one row piece of 512 bytes (a float4 a lane); a block of 4 warps walks its
// run 4·kUnroll rows at a time, all loads issued before any store. Runs of `run` rows (the
// tiled kernel's runs: 2048 = whole rows at (8,4096,2048), or shorter). Graph-replayed over
// two rotating sets (1.6 GB), median of 30 replays; y checked against a + b everywhere.
// Runs of seqlen, 256, 64 and 32 rows.
//
//   nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -Iscripts/dev \
//     scripts/dev/layout_pattern.cu -o layout_pattern -L$(dirname $(which nvcc))/../lib -cudart static
//   ./layout_pattern 8 4096 2048      (batch dim seqlen)
//   ONLY_RUN=32 ./layout_pattern 8 4096 2048   runs of 32 rows alone, two plain launches of
//                                              each kernel and no graph (for ncu)
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "graph_timing.h"  // CK, graph_median_us

constexpr int kWarps = 4;
constexpr int kUnroll = 8;
constexpr int kPiece = 32;  // float4 a row piece: 128 channels

template <bool kFlat>
__global__ void __launch_bounds__(kWarps * 32) sum_pattern(const float4 *__restrict__ a, const float4 *__restrict__ b,
                                                           float4 *__restrict__ y, int dim, int seqlen, int run) {
    const int groups = dim / (4 * kPiece), runs = seqlen / run;
    const int block = blockIdx.x, group = block % groups, r = (block / groups) % runs, batch = block / groups / runs;
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    for (int t0 = r * run + warp; t0 < (r + 1) * run; t0 += kWarps * kUnroll) {
        size_t at[kUnroll];
        float4 u[kUnroll], v[kUnroll];
#pragma unroll
        for (int k = 0; k < kUnroll; ++k) {
            const int t = t0 + kWarps * k;
            at[k] = kFlat ? ((size_t)block * run + (t - r * run)) * kPiece + lane
                          : (((size_t)batch * seqlen + t) * dim) / 4 + (size_t)group * kPiece + lane;
            u[k] = a[at[k]];
            v[k] = b[at[k]];
        }
#pragma unroll
        for (int k = 0; k < kUnroll; ++k) y[at[k]] = make_float4(u[k].x + v[k].x, u[k].y + v[k].y, u[k].z + v[k].z,
                                                                 u[k].w + v[k].w);
    }
}

__global__ void fill(float *p, size_t n, float scale) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        p[i] = scale * (float)(i % 1013);
}

int main(int argc, char **argv) {
    const bool given = argc > 3;
    const int B = given ? atoi(argv[1]) : 8, D = given ? atoi(argv[2]) : 4096, L = given ? atoi(argv[3]) : 2048;
    if (D % 128 != 0 || L % (kWarps * kUnroll) != 0) return printf("dim %% 128 and seqlen %% 32 must be 0\n"), 1;
    const size_t n = (size_t)B * D * L;
    constexpr int kSets = 2;
    float *buf[kSets][3];
    for (auto &set : buf)
        for (int i = 0; i < 3; ++i) {
            CK(cudaMalloc(&set[i], n * 4));
            fill<<<1024, 256>>>(set[i], n, i == 0 ? 1.f : i == 1 ? 0.5f : 0.f);
        }
    CK(cudaDeviceSynchronize());
    cudaStream_t stream;
    CK(cudaStreamCreate(&stream));
    std::vector<float> got(n);
    printf("(%d,%d,%d) f32, y = a + b, %.1f MB a launch\n", B, D, L, 3.0 * n * 4 / 1e6);
    const int only = getenv("ONLY_RUN") ? atoi(getenv("ONLY_RUN")) : 0;
    for (int run : {L, 256, 64, 32}) {
        if (L % run != 0 || (only && run != only)) continue;
        const int blocks = B * (L / run) * (D / 128);
        for (int flat = 0; flat < 2; ++flat) {
            auto launch = [&](int s) {
                const auto *a = reinterpret_cast<const float4 *>(buf[s][0]);
                const auto *b = reinterpret_cast<const float4 *>(buf[s][1]);
                auto *y = reinterpret_cast<float4 *>(buf[s][2]);
                if (flat) sum_pattern<true><<<blocks, kWarps * 32, 0, stream>>>(a, b, y, D, L, run);
                else sum_pattern<false><<<blocks, kWarps * 32, 0, stream>>>(a, b, y, D, L, run);
                CK(cudaGetLastError());
            };
            CK(cudaMemset(buf[0][2], 0xff, n * 4));  // NaN: every element must be written
            launch(0);
            CK(cudaStreamSynchronize(stream));
            CK(cudaMemcpy(got.data(), buf[0][2], n * 4, cudaMemcpyDeviceToHost));
            size_t bad = 0;
            for (size_t i = 0; i < n; ++i) bad += got[i] != 1.5f * (float)(i % 1013);
            if (only) {  // profiling: two plain launches, no graph
                launch(1);
                CK(cudaStreamSynchronize(stream));
                printf("%s run %d profiled\n", flat ? "flat" : "rows", run);
                continue;
            }
            const double us = graph_median_us(stream, kSets, 30, launch);
            printf("%-4s run %4d (%6d blocks): %8.2f us  %7.1f GB/s  %s\n", flat ? "flat" : "rows", run, blocks, us,
                   3.0 * n * 4 / (us * 1e3), bad ? "WRONG" : "checked");
        }
    }
    return 0;
}
