// copy_designs: the fastest way this device moves a given number of bytes, as a bound for
// the rows whose targets lie near or below what copy_ceiling.cu's one-vector copy reaches
// (decode update, (4,2048,2048,4) 16-bit, the backward's channel-last f32). copy_ceiling
// timed a copy of one 16-byte vector a thread launched plainly; our update and forward
// kernels are chained launches (hip/common/dependent_launch.h), and a design with more bytes
// in flight may beat that copy at small sizes. Each design here runs plain and chained
// (programmatic stream serialisation; every block waits for the kernel before it, then lets
// the next one launch, as begin_chained_kernel() does), graph-replayed over rotating buffers
// past 3 x 50 MiB, median of 30 replays, twice:
//
//   vec1    one 16-byte vector a thread, 256 threads a block (copy_ceiling's kernel)
//   vec4    four vectors a thread, all loaded before any is stored (64 bytes in flight)
//   bulk    TMA bulk copies: one thread a block moves 8 KB chunks global -> shared -> global
//           through 5 stages (cp.async.bulk, mbarrier completion), chunk i of the grid's
//           blocks in turn; grid = min(chunks, 4 blocks an SM)
//   sum1/sum4  y = a + b over f32 vectors (two reads, one write: the backward's traffic),
//           one or four vectors a thread; MB is then the three buffers' total
//
//   nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -Iscripts/dev \
//     scripts/dev/copy_designs.cu -o copy_designs -L$(dirname $(which nvcc))/../lib -cudart static
//   ./copy_designs 16.8 29.4 33.6 58.8 67.1 134.2 2000      (MB read + written)
#include <cuda_runtime.h>
#include <cstdint>
#include <cstring>

#include "graph_timing.h"  // CK, graph_median_us

constexpr int kThreads = 256;
constexpr int kChunk = 8192;  // bulk: bytes a stage
constexpr int kStages = 5;    // bulk: stages a block (40 KB of shared memory)
constexpr int kBulkBlocksPerSm = 4;

__device__ __forceinline__ void chain_start() {
    asm volatile("griddepcontrol.wait;" ::: "memory");
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
}

template <int kVectors>
__global__ void copy_vectors(const uint4 *__restrict__ src, uint4 *__restrict__ dst, size_t n) {
    chain_start();
    const size_t base = blockIdx.x * (size_t)kThreads * kVectors + threadIdx.x;
    uint4 v[kVectors];
#pragma unroll
    for (int k = 0; k < kVectors; ++k)
        if (base + k * kThreads < n) v[k] = src[base + k * kThreads];
#pragma unroll
    for (int k = 0; k < kVectors; ++k)
        if (base + k * kThreads < n) dst[base + k * kThreads] = v[k];
}

template <int kVectors>
__global__ void sum_vectors(const float4 *__restrict__ a, const float4 *__restrict__ b, float4 *__restrict__ y,
                            size_t n) {
    chain_start();
    const size_t base = blockIdx.x * (size_t)kThreads * kVectors + threadIdx.x;
    float4 u[kVectors], v[kVectors];
#pragma unroll
    for (int k = 0; k < kVectors; ++k)
        if (base + k * kThreads < n) {
            u[k] = a[base + k * kThreads];
            v[k] = b[base + k * kThreads];
        }
#pragma unroll
    for (int k = 0; k < kVectors; ++k)
        if (base + k * kThreads < n)
            y[base + k * kThreads] = make_float4(u[k].x + v[k].x, u[k].y + v[k].y, u[k].z + v[k].z, u[k].w + v[k].w);
}

__host__ __device__ __forceinline__ size_t min_size(size_t a, size_t b) { return a < b ? a : b; }

__global__ void fill(float *p, size_t n, uint32_t seed) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        p[i] = (float)((i * 2654435761u + seed) % 1000) * 0.5f;
}

__device__ __forceinline__ uint32_t smem_address(const void *p) {
    return (uint32_t)__cvta_generic_to_shared(p);
}

// One thread a block: chunk c = blockIdx.x + k * gridDim.x takes stage k % kStages.
__global__ void copy_bulk(const char *__restrict__ src, char *__restrict__ dst, size_t bytes) {
    __shared__ alignas(128) char stage[kStages][kChunk];
    __shared__ alignas(8) uint64_t full[kStages];
    chain_start();
    if (threadIdx.x != 0) return;
    const size_t chunks = (bytes + kChunk - 1) / kChunk;
    const size_t mine = blockIdx.x < chunks ? (chunks - 1 - blockIdx.x) / gridDim.x + 1 : 0;
    for (int s = 0; s < kStages; ++s)
        asm volatile("mbarrier.init.shared.b64 [%0], 1;" ::"r"(smem_address(&full[s])));
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    auto load = [&](size_t k) {
        const int s = (int)(k % kStages);
        const size_t c = blockIdx.x + k * gridDim.x;
        const uint32_t n = (uint32_t)min_size(kChunk, bytes - c * kChunk);
        asm volatile("mbarrier.arrive.expect_tx.shared.b64 _, [%0], %1;" ::"r"(smem_address(&full[s])), "r"(n)
                     : "memory");
        asm volatile(
            "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                smem_address(stage[s])),
            "l"(src + c * kChunk), "r"(n), "r"(smem_address(&full[s]))
            : "memory");
    };
    for (size_t k = 0; k < min_size(mine, kStages); ++k) load(k);
    for (size_t k = 0; k < mine; ++k) {
        const int s = (int)(k % kStages);
        const uint32_t parity = (uint32_t)((k / kStages) & 1);
        asm volatile(
            "{\n\t.reg .pred done;\n\twait_%=:\n\t"
            "mbarrier.try_wait.parity.shared.b64 done, [%0], %1;\n\t@!done bra wait_%=;\n\t}" ::"r"(
                smem_address(&full[s])),
            "r"(parity)
            : "memory");
        const size_t c = blockIdx.x + k * gridDim.x;
        const uint32_t n = (uint32_t)min_size(kChunk, bytes - c * kChunk);
        asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst + c * kChunk),
                     "r"(smem_address(stage[s])), "r"(n)
                     : "memory");
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
        if (k + kStages < mine) {
            asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
            load(k + kStages);
        }
    }
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}

enum Design { kVec1, kVec4, kBulk, kSum1, kSum4, kDesigns };
const char *kNames[] = {"vec1", "vec4", "bulk", "sum1", "sum4"};

static void launch(Design design, bool chained, cudaStream_t stream, void *const *buffers, size_t each, int sms) {
    cudaLaunchConfig_t config{};
    cudaLaunchAttribute attribute{};
    attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attribute.val.programmaticStreamSerializationAllowed = 1;
    config.stream = stream;
    config.attrs = chained ? &attribute : nullptr;
    config.numAttrs = chained ? 1 : 0;
    config.blockDim = dim3(kThreads);
    const size_t n = each / 16;
    switch (design) {
    case kVec1:
    case kVec4: {
        const int k = design == kVec1 ? 1 : 4;
        config.gridDim = dim3((unsigned)((n + kThreads * k - 1) / (kThreads * k)));
        const uint4 *s = (const uint4 *)buffers[0];
        uint4 *d = (uint4 *)buffers[1];
        CK(k == 1 ? cudaLaunchKernelEx(&config, copy_vectors<1>, s, d, n)
                     : cudaLaunchKernelEx(&config, copy_vectors<4>, s, d, n));
        break;
    }
    case kBulk: {
        const size_t chunks = (each + kChunk - 1) / kChunk;
        config.gridDim = dim3((unsigned)std::min<size_t>(chunks, (size_t)sms * kBulkBlocksPerSm));
        config.blockDim = dim3(32);
        CK(cudaLaunchKernelEx(&config, copy_bulk, (const char *)buffers[0], (char *)buffers[1], each));
        break;
    }
    default: {
        const int k = design == kSum1 ? 1 : 4;
        config.gridDim = dim3((unsigned)((n + kThreads * k - 1) / (kThreads * k)));
        const float4 *a = (const float4 *)buffers[0], *b = (const float4 *)buffers[1];
        float4 *y = (float4 *)buffers[2];
        CK(k == 1 ? cudaLaunchKernelEx(&config, sum_vectors<1>, a, b, y, n)
                     : cudaLaunchKernelEx(&config, sum_vectors<4>, a, b, y, n));
    }
    }
}

// Median microseconds a launch: a graph of one launch per set (graph_timing.h: 3 untimed
// replays, the median of 30).
static double time_design(Design design, bool chained, cudaStream_t stream, const std::vector<void *> &buffers,
                          int per_set, size_t each, int sms) {
    const int sets = (int)buffers.size() / per_set;
    return graph_median_us(stream, sets, 30,
                           [&](int i) { launch(design, chained, stream, &buffers[i * per_set], each, sms); });
}

// Every design must move the right bytes: checked once a size on the first set.
static void check(Design design, cudaStream_t stream, const std::vector<void *> &buffers, size_t each, int sms) {
    const int per_set = design >= kSum1 ? 3 : 2;
    void *out = buffers[per_set - 1];
    CK(cudaMemsetAsync(out, 0xff, each, stream));
    launch(design, false, stream, buffers.data(), each, sms);
    std::vector<uint8_t> got(each), a(each), b(each);
    CK(cudaMemcpyAsync(got.data(), out, each, cudaMemcpyDeviceToHost, stream));
    CK(cudaMemcpyAsync(a.data(), buffers[0], each, cudaMemcpyDeviceToHost, stream));
    CK(cudaMemcpyAsync(b.data(), buffers[1], each, cudaMemcpyDeviceToHost, stream));
    CK(cudaStreamSynchronize(stream));
    size_t bad = 0;
    for (size_t i = 0; i < each; i += 4) {
        float want;
        if (per_set == 2) {
            if (memcmp(&got[i], &a[i], 4) != 0) ++bad;
            continue;
        }
        float x, y, g;
        memcpy(&x, &a[i], 4);
        memcpy(&y, &b[i], 4);
        memcpy(&g, &got[i], 4);
        want = x + y;
        if (g != want) ++bad;
    }
    if (bad) printf("CHECK FAILED: %s, %zu of %zu words wrong\n", kNames[design], bad, each / 4);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        printf("usage: copy_designs MB [MB ...]   (MB read + written a launch)\n");
        return 1;
    }
    cudaStream_t stream;
    CK(cudaStreamCreate(&stream));
    int sms = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    for (int arg = 1; arg < argc; ++arg) {
        const double total = atof(argv[arg]) * 1e6;
        for (int family = 0; family < 2; ++family) {  // 0: copies (2 buffers), 1: sums (3)
            const int per_set = family ? 3 : 2;
            const size_t each = (size_t)(total / per_set) / 4096 * 4096;
            if (each == 0) continue;
            const size_t rotation = 3ull * (50ull << 20);
            const int sets = (int)std::min<size_t>(256, std::max<size_t>(3, rotation / (per_set * each) + 1));
            std::vector<void *> buffers(sets * per_set);
            for (size_t i = 0; i < buffers.size(); ++i) {
                CK(cudaMalloc(&buffers[i], each));
                fill<<<1024, 256, 0, stream>>>((float *)buffers[i], each / 4, (uint32_t)i);
                CK(cudaGetLastError());
            }
            const Design first = family ? kSum1 : kVec1, last = family ? kSum4 : kBulk;
            for (int d = first; d <= last; ++d) check((Design)d, stream, buffers, each, sms);
            for (int round = 0; round < 2; ++round)
                for (int d = first; d <= last; ++d)
                    for (int chained = 0; chained < 2; ++chained) {
                        const double us = time_design((Design)d, chained, stream, buffers, per_set, each, sms);
                        printf("%-5s %-7s %9.2f MB moved: %9.3f us %8.1f GB/s (sets %d)\n", kNames[d],
                               chained ? "chained" : "plain", per_set * each / 1e6, us, per_set * each / us / 1e3,
                               sets);
                    }
            for (void *b : buffers) CK(cudaFree(b));
        }
    }
    CK(cudaStreamDestroy(stream));
    return 0;
}
