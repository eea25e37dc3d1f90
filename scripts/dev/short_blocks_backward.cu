// short_blocks_backward: a prototype of the channel-last f32 backward (width 4, bias + SiLU,
// no states) made of short-lived blocks, timed beside the library's (HEAD's tiled TMA
// kernel) in one binary, and checked against it.
//
// A block owns 128 channels (a thread each) of R rows of one batch row:
//   x rows  t0-3 .. t0+R+2   (R+6: 3 before for z, 3 after for the next run's head dz)
//   dy rows t0   .. t0+R+2   (R+3)
// copied into shared memory by every thread's 16-byte cp.async (zeros outside the row), all
// in flight at once; then thread c walks its channel down the rows: dz(t) from z(t), dx(t-3)
// from dz(t-3 .. t) written over dy's row t-3 (read already), the sums of dweight and dbias
// over the block's own R rows. dx goes out in 16-byte stores after a barrier. The HW block
// scheduler balances the short blocks across SMs (the layout_pattern.cu finding: runs of 32
// rows move the backward's bytes 5% faster than walks of whole rows).
//
// The sums: one partial row a block (C = 1), or a cluster of C blocks (consecutive runs of
// one channel group) adds its C partials through distributed shared memory in rank order,
// into one partial row per cluster; a second kernel adds those rows in order.
// Deterministic: the order depends on the shape alone.
//
// Measured (H200, seventy-fifth session, docs/PERFORMANCE.md "Backward"): R = 32 with a
// partial a block 231 / 282 us graph-replayed at (8,4096,2048,4) / (4,5120,4096,4) against
// the library's 202 / 250 (206 against 194 cold under ncu, the L2 at 92%: the halo rows
// and the partials); clusters and other R slower. Not landed.
//
// Build (HEAD's backward objects as in backward_bench.cu's header, then):
//   nvcc -std=c++17 -O3 -gencode arch=compute_90a,code=sm_90a -Ihip/include -Ihip/common \
//     -Iscripts/dev -c scripts/dev/short_blocks_backward.cu -o short.o
//   nvcc -gencode arch=compute_90a,code=sm_90a short.o backward*.o -o short_blocks \
//     -L$(dirname $(which nvcc))/../lib -cudart static
//   ./short_blocks [B D L]...   (default: 8 4096 2048 and 4 5120 4096)
//   PROFILE=32,1 ./short_blocks 8 4096 2048   one variant (or "lib") launched twice, no
//                                             graph, for ncu
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "device_random.h"  // device_random, download, fnv
#include "graph_timing.h"   // CK, graph_median_us, device_copy_gbps
#include "hipconv/conv1d.h"

namespace cg = cooperative_groups;

constexpr int kCh = 128;  // channels of a block, one a thread
constexpr int kVec = kCh / 4;  // float4 vectors of a row piece

__device__ __forceinline__ void copy16(void *smem, const void *gmem, bool valid) {
    const unsigned dst = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(gmem), "r"(valid ? 16 : 0));
}

__device__ __forceinline__ float dz_silu(float dy, float z) {
    const float s = __fdividef(1.f, 1.f + __expf(-z));
    return dy * s * (1.f + z * (1.f - s));
}

template <int R> constexpr int stage_floats() { return ((R + 6) + (R + 3)) * kCh; }

// One block: (group, run, batch) = blockIdx; partial rows by cluster.
template <int R, int C>
__global__ void __launch_bounds__(kCh) short_backward(const float *__restrict__ x, const float *__restrict__ dy,
                                                     float *__restrict__ dx, const float *__restrict__ w,
                                                     const float *__restrict__ bias, float *__restrict__ partials,
                                                     int D, int L) {
    extern __shared__ __align__(16) float stage[];
    float *xs = stage, *ds = stage + (R + 6) * kCh;
    const int c = threadIdx.x, c0 = blockIdx.x * kCh, run = blockIdx.y, b = blockIdx.z, t0 = run * R;
    const size_t row0 = (size_t)b * L;
    for (int i = c; i < (R + 6) * kVec; i += kCh) {
        const int r = i / kVec, v = i % kVec, t = t0 - 3 + r;
        const bool ok = t >= 0 && t < L;
        copy16(xs + r * kCh + 4 * v, x + (row0 + (ok ? t : 0)) * D + c0 + 4 * v, ok);
    }
    for (int i = c; i < (R + 3) * kVec; i += kCh) {
        const int r = i / kVec, v = i % kVec, t = t0 + r;
        const bool ok = t < L;
        copy16(ds + r * kCh + 4 * v, dy + (row0 + (ok ? t : 0)) * D + c0 + 4 * v, ok);
    }
    asm volatile("cp.async.commit_group;\ncp.async.wait_group 0;\n" ::: "memory");
    const float4 taps = reinterpret_cast<const float4 *>(w)[c0 + c];
    const float bc = bias[c0 + c];
    __syncthreads();

    const float *xc = xs + c;
    float *dc = ds + c;
    float x0 = xc[0], x1 = xc[kCh], x2 = xc[2 * kCh];  // x(t-3), x(t-2), x(t-1)
    float g1 = 0.f, g2 = 0.f, g3 = 0.f;              // dz(t-1), dz(t-2), dz(t-3)
    float s0 = 0.f, s1 = 0.f, s2 = 0.f, s3 = 0.f, sb = 0.f;
#pragma unroll 8
    for (int i = 0; i < R + 3; ++i) {  // t = t0 + i
        const float xt = xc[(i + 3) * kCh];
        const float z = fmaf(taps.w, xt, fmaf(taps.z, x2, fmaf(taps.y, x1, fmaf(taps.x, x0, bc))));
        const float g = dz_silu(dc[i * kCh], z);
        if (i < R) {
            s0 = fmaf(g, x0, s0), s1 = fmaf(g, x1, s1), s2 = fmaf(g, x2, s2), s3 = fmaf(g, xt, s3);
            sb += g;
        }
        if (i >= 3) dc[(i - 3) * kCh] = fmaf(taps.x, g, fmaf(taps.y, g1, fmaf(taps.z, g2, taps.w * g3)));
        g3 = g2, g2 = g1, g1 = g;
        x0 = x1, x1 = x2, x2 = xt;
    }
    __syncthreads();
    const float4 *dsv = reinterpret_cast<const float4 *>(ds);
    for (int i = c; i < R * kVec; i += kCh) {
        const int r = i / kVec, v = i % kVec, t = t0 + r;
        if (t < L) reinterpret_cast<float4 *>(dx + (row0 + t) * D + c0)[v] = dsv[i];
    }
    // This block's sums into its shared memory (x's stage, read already), then the cluster's.
    float *sums = xs;
    sums[0 * kCh + c] = s0, sums[1 * kCh + c] = s1, sums[2 * kCh + c] = s2, sums[3 * kCh + c] = s3,
    sums[4 * kCh + c] = sb;
    const size_t prow = (size_t)b * (gridDim.y / C) + run / C;
    if constexpr (C == 1) {
        for (int k = 0; k < 5; ++k) partials[(prow * D + c0 + c) * 5 + k] = sums[k * kCh + c];
    } else {
        cg::cluster_group cluster = cg::this_cluster();
        cluster.sync();
        constexpr int kShare = 5 * kCh / C;  // values this rank adds
        const int rank = (int)cluster.block_rank();
        for (int i = c; i < kShare; i += kCh) {
            const int j = rank * kShare + i, k = j / kCh, ch = j % kCh;
            float s = 0.f;
#pragma unroll
            for (int q = 0; q < C; ++q) s += cluster.map_shared_rank(sums, q)[j];
            partials[(prow * D + c0 + ch) * 5 + k] = s;
        }
        cluster.sync();
    }
}

// dweight[c, k] and dbias[c] from `rows` partial rows, added in order.
__global__ void reduce_rows(const float *__restrict__ partials, int rows, int D, float *dweight, float *dbias) {
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= D * 5) return;
    float s = 0.f;
    for (int r = 0; r < rows; ++r) s += partials[(size_t)r * D * 5 + j];
    const int c = j / 5, k = j % 5;
    if (k < 4) dweight[c * 4 + k] = s;
    else dbias[c] = s;
}

double rel_err(const std::vector<float> &got, const std::vector<float> &want) {
    double num = 0, den = 0;
    for (size_t i = 0; i < got.size(); ++i) {
        const double e = (double)got[i] - want[i];
        num += std::isnan(got[i]) ? 1e30 : e * e, den += (double)want[i] * want[i];
    }
    return std::sqrt(num / den);
}

uint64_t fnv(const std::vector<float> &v) { return fnv(v.data(), v.size() * sizeof(float)); }

struct Problem {
    int B, D, L;
    static constexpr int kSets = 2;
    float *x[kSets], *dy[kSets], *dx[kSets], *w, *bias, *dweight, *dbias, *partials;
    void *workspace = nullptr;
    int64_t workspace_bytes = 0;

    Problem(int B_, int D_, int L_) : B(B_), D(D_), L(L_) {
        const size_t n = (size_t)B * D * L;
        for (int s = 0; s < kSets; ++s) {
            x[s] = device_random<float>(n, 100 + s, 1.f), dy[s] = device_random<float>(n, 200 + s, 1.f);
            CK(cudaMalloc(&dx[s], n * 4));
            CK(cudaMemset(dx[s], 0xff, n * 4));
        }
        w = device_random<float>((size_t)D * 4, 11, 0.5f), bias = device_random<float>(D, 12, 0.5f);
        CK(cudaMalloc(&dweight, (size_t)D * 4 * 4));
        CK(cudaMalloc(&dbias, (size_t)D * 4));
        CK(cudaMalloc(&partials, (size_t)B * (L / 16) * D * 5 * 4));  // rows for R = 16, C = 1
        hipconv_conv1d_backward_params p = params(0);
        CK((cudaError_t)hipconv_conv1d_backward_workspace_f32(&p, &workspace_bytes));
        if (workspace_bytes > 0) CK(cudaMalloc(&workspace, workspace_bytes));
        CK(cudaDeviceSynchronize());
    }

    hipconv_conv1d_backward_params params(int s) const {
        hipconv_conv1d_backward_params p{};
        p.conv.x = x[s], p.conv.w = w, p.conv.bias = bias, p.conv.silu = 1;
        p.conv.batch = B, p.conv.dim = D, p.conv.seqlen = L, p.conv.width = 4;
        p.conv.x_batch_stride = p.conv.y_batch_stride = (int64_t)D * L;
        p.conv.x_dim_stride = p.conv.y_dim_stride = 1;
        p.conv.x_seq_stride = p.conv.y_seq_stride = D;
        p.dy = dy[s], p.dx = dx[s];
        p.dweight = dweight, p.dbias = dbias, p.dweight_f32 = 1, p.dbias_f32 = 1;
        p.workspace = workspace, p.workspace_bytes = workspace_bytes;
        return p;
    }

    void release() {
        for (int s = 0; s < kSets; ++s)
            for (float *p : {x[s], dy[s], dx[s]}) CK(cudaFree(p));
        for (float *p : {w, bias, dweight, dbias, partials}) CK(cudaFree(p));
        if (workspace) CK(cudaFree(workspace));
    }

    void library(int s, cudaStream_t stream) const {
        const hipconv_conv1d_backward_params p = params(s);
        CK((cudaError_t)hipconv_conv1d_backward_f32(&p, (hipconv_stream_t)stream));
    }
};


double g_copy = 0;  // GB/s

// The prototype over set s: the blocks (clusters of C along the runs), then the rows' sum.
template <int R, int C> void launch(const Problem &pr, int s, cudaStream_t stream) {
    constexpr int bytes = stage_floats<R>() * 4;
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(pr.D / kCh, pr.L / R, pr.B);
    config.blockDim = dim3(kCh);
    config.dynamicSmemBytes = bytes;
    config.stream = stream;
    cudaLaunchAttribute cluster{};
    cluster.id = cudaLaunchAttributeClusterDimension;
    cluster.val.clusterDim.x = 1, cluster.val.clusterDim.y = C, cluster.val.clusterDim.z = 1;
    config.attrs = &cluster, config.numAttrs = C > 1 ? 1 : 0;
    CK(cudaLaunchKernelEx(&config, short_backward<R, C>, (const float *)pr.x[s], (const float *)pr.dy[s], pr.dx[s],
                          (const float *)pr.w, (const float *)pr.bias, pr.partials, pr.D, pr.L));
    const int rows = pr.B * (pr.L / R) / C;
    reduce_rows<<<(pr.D * 5 + 255) / 256, 256, 0, stream>>>(pr.partials, rows, pr.D, pr.dweight, pr.dbias);
    CK(cudaGetLastError());
}

template <int R, int C> void setup() {
    CK(cudaFuncSetAttribute(short_backward<R, C>, cudaFuncAttributeMaxDynamicSharedMemorySize, stage_floats<R>() * 4));
    if (C > 8) CK(cudaFuncSetAttribute(short_backward<R, C>, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
}

template <int R, int C>
void measure(Problem &pr, cudaStream_t stream, const std::vector<float> &want_dx, const std::vector<float> &want_dw,
             const std::vector<float> &want_db, double bytes) {
    const size_t n = (size_t)pr.B * pr.D * pr.L;
    if (pr.L % (R * C) != 0 || pr.D % kCh != 0) return;
    setup<R, C>();
    CK(cudaMemset(pr.dx[0], 0xff, n * 4));
    launch<R, C>(pr, 0, stream);
    CK(cudaStreamSynchronize(stream));
    const auto dx = download(pr.dx[0], n), dw = download(pr.dweight, (size_t)pr.D * 4), db = download(pr.dbias, pr.D);
    launch<R, C>(pr, 0, stream);
    CK(cudaStreamSynchronize(stream));
    const bool same = fnv(download(pr.dweight, (size_t)pr.D * 4)) == fnv(dw) && fnv(download(pr.dbias, pr.D)) == fnv(db) &&
                      fnv(download(pr.dx[0], n)) == fnv(dx);
    const double us = graph_median_us(stream, Problem::kSets, 20, [&](int s) { launch<R, C>(pr, s, stream); });
    printf("  R %2d C %2d: %8.2f us (%5.1f%% of copy)  vs library: dx %.1e dweight %.1e dbias %.1e  %s\n", R, C, us,
           bytes / us / 1e3 / g_copy * 100, rel_err(dx, want_dx), rel_err(dw, want_dw), rel_err(db, want_db),
           same ? "repeatable" : "NOT REPEATABLE");
}

int main(int argc, char **argv) {
    std::vector<int> shapes;
    for (int i = 1; i + 2 < argc; i += 3) shapes.insert(shapes.end(), {atoi(argv[i]), atoi(argv[i + 1]), atoi(argv[i + 2])});
    if (shapes.empty()) shapes = {8, 4096, 2048, 4, 5120, 4096};
    if (const char *only = getenv("PROFILE")) {
        // One variant ("R,C", or "lib") at the first shape, launched twice without a graph,
        // for ncu (--launch-skip / --launch-count select the second backward kernel).
        Problem pr(shapes[0], shapes[1], shapes[2]);
        const std::string v = only;
        for (int i = 0; i < 2; ++i) {
            if (v == "lib") pr.library(0, 0);
            else if (v == "16,1") setup<16, 1>(), launch<16, 1>(pr, 0, 0);
            else if (v == "32,1") setup<32, 1>(), launch<32, 1>(pr, 0, 0);
            else if (v == "32,8") setup<32, 8>(), launch<32, 8>(pr, 0, 0);
            else if (v == "64,1") setup<64, 1>(), launch<64, 1>(pr, 0, 0);
            else return printf("PROFILE: lib, 16,1, 32,1, 32,8 or 64,1\n"), 1;
        }
        CK(cudaDeviceSynchronize());
        return 0;
    }
    g_copy = device_copy_gbps();
    printf("copy %.0f GB/s\n", g_copy);
    cudaStream_t stream;
    CK(cudaStreamCreate(&stream));
    for (int round = 0; round < 2; ++round)
        for (size_t i = 0; i < shapes.size(); i += 3) {
            Problem pr(shapes[i], shapes[i + 1], shapes[i + 2]);
            const size_t n = (size_t)pr.B * pr.D * pr.L;
            const double bytes = 3.0 * n * 4;
            pr.library(0, stream);
            CK(cudaStreamSynchronize(stream));
            const auto dx = download(pr.dx[0], n), dw = download(pr.dweight, (size_t)pr.D * 4),
                       db = download(pr.dbias, pr.D);
            const double us = graph_median_us(stream, Problem::kSets, 20, [&](int s) { pr.library(s, stream); });
            printf("(%d,%d,%d,4) f32 channel-last, bias + SiLU, round %d\n  library: %8.2f us (%5.1f%% of copy)\n",
                   pr.B, pr.D, pr.L, round, us, bytes / us / 1e3 / g_copy * 100);
            measure<16, 1>(pr, stream, dx, dw, db, bytes);
            measure<16, 8>(pr, stream, dx, dw, db, bytes);
            measure<16, 16>(pr, stream, dx, dw, db, bytes);
            measure<32, 1>(pr, stream, dx, dw, db, bytes);
            measure<32, 4>(pr, stream, dx, dw, db, bytes);
            measure<32, 8>(pr, stream, dx, dw, db, bytes);
            measure<64, 4>(pr, stream, dx, dw, db, bytes);
            measure<64, 1>(pr, stream, dx, dw, db, bytes);
            pr.release();
        }
    return 0;
}
