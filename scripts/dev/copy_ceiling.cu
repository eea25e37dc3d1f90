// copy_ceiling: what "% of copy" can mean for a problem of a given size. For each total size
// (MB read + written) it times, graph-replayed over rotating buffers that together exceed
// 3 x 50 MiB (as the bench does), a device-to-device cudaMemcpyAsync, a 16-byte-per-thread
// copy kernel and that kernel with L2 hints on its loads and stores (a 256-byte L2 prefetch,
// an evict-first policy, the non-coherent path), twice each, and prints us and GB/s. The
// bench's "% of copy" divides by a 2 GiB copy; at the decode update's 16.8 MB a bare copy
// kernel reaches about 75% of that (docs/PERFORMANCE.md). The hints, which took conv3d's
// depthwise kernel from 78% to 81% of copy, leave this kernel within 1.5% either way (H100,
// 2026-11-26).
//
//   nvcc -O3 -std=c++17 -arch=sm_90 scripts/dev/copy_ceiling.cu -o copy_ceiling
//   ./copy_ceiling 16.8 29.4 33.6 58.8 2000
#include <cuda_runtime.h>
#include <cstdint>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                   \
    do {                                                                              \
        cudaError_t err_ = (call);                                                    \
        if (err_ != cudaSuccess) {                                                    \
            printf("CUDA error %s at line %d\n", cudaGetErrorString(err_), __LINE__); \
            exit(1);                                                                  \
        }                                                                             \
    } while (0)

__global__ void copy16(const uint4 *__restrict__ src, uint4 *__restrict__ dst, size_t n) {
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) dst[i] = src[i];
}

// The copy with L2 hints. kMode 1: loads with a 256-byte L2 prefetch; 2: and an evict-first
// policy; 3: and evict-first stores; 4: non-coherent loads (ld.global.nc), no L1
// allocation, 256-byte prefetch.
template <int kMode>
__global__ void copy16_hinted(const uint4 *__restrict__ src, uint4 *__restrict__ dst, size_t n) {
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint64_t policy;
    asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
    uint4 v;
    if (kMode == 1)
        asm volatile("ld.global.L2::256B.v4.u32 {%0,%1,%2,%3}, [%4];"
                     : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                     : "l"(src + i));
    else if (kMode == 2 || kMode == 3)
        asm volatile("ld.global.L2::cache_hint.L2::256B.v4.u32 {%0,%1,%2,%3}, [%4], %5;"
                     : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                     : "l"(src + i), "l"(policy));
    else
        asm volatile("ld.global.nc.L1::no_allocate.L2::256B.v4.u32 {%0,%1,%2,%3}, [%4];"
                     : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                     : "l"(src + i));
    if (kMode == 3)
        asm volatile("st.global.L2::cache_hint.v4.u32 [%0], {%1,%2,%3,%4}, %5;" ::"l"(dst + i), "r"(v.x), "r"(v.y),
                     "r"(v.z), "r"(v.w), "l"(policy)
                     : "memory");
    else
        dst[i] = v;
}

// Median microseconds per copy of `half` bytes over `sets` rotating (src, dst) pairs: a graph
// of one copy per set, replayed 3 times untimed and 30 times timed. `kernel`: 0
// cudaMemcpyAsync, 1 copy16, 2-5 copy16_hinted<1-4>.
static double time_copies(cudaStream_t stream, const std::vector<void *> &src, const std::vector<void *> &dst,
                          size_t half, int kernel) {
    const int sets = (int)src.size();
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    for (int i = 0; i < sets; ++i) {
        if (kernel) {
            const size_t n = half / 16;
            const unsigned b = (unsigned)((n + 255) / 256);
            const uint4 *s = (const uint4 *)src[i];
            uint4 *d = (uint4 *)dst[i];
            if (kernel == 1) copy16<<<b, 256, 0, stream>>>(s, d, n);
            if (kernel == 2) copy16_hinted<1><<<b, 256, 0, stream>>>(s, d, n);
            if (kernel == 3) copy16_hinted<2><<<b, 256, 0, stream>>>(s, d, n);
            if (kernel == 4) copy16_hinted<3><<<b, 256, 0, stream>>>(s, d, n);
            if (kernel == 5) copy16_hinted<4><<<b, 256, 0, stream>>>(s, d, n);
            CHECK(cudaGetLastError());
        } else {
            CHECK(cudaMemcpyAsync(dst[i], src[i], half, cudaMemcpyDeviceToDevice, stream));
        }
    }
    CHECK(cudaStreamEndCapture(stream, &graph));
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    for (int i = 0; i < 3; ++i) CHECK(cudaGraphLaunch(exec, stream));
    cudaEvent_t start, end;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&end));
    std::vector<float> ms(30);
    for (float &t : ms) {
        CHECK(cudaEventRecord(start, stream));
        CHECK(cudaGraphLaunch(exec, stream));
        CHECK(cudaEventRecord(end, stream));
        CHECK(cudaEventSynchronize(end));
        CHECK(cudaEventElapsedTime(&t, start, end));
    }
    std::sort(ms.begin(), ms.end());
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(end));
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
    return ms[ms.size() / 2] * 1e3 / sets;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        printf("usage: copy_ceiling MB [MB ...]   (MB read + written per copy)\n");
        return 1;
    }
    cudaStream_t stream;
    CHECK(cudaStreamCreate(&stream));
    for (int a = 1; a < argc; ++a) {
        const size_t half = (size_t)(atof(argv[a]) * 1e6) / 2 / 16 * 16;  // bytes each way
        if (half == 0) continue;
        const size_t rotation = 3ull * (50ull << 20);
        const int sets = (int)std::min<size_t>(256, std::max<size_t>(3, rotation / (2 * half) + 1));
        std::vector<void *> src(sets), dst(sets);
        for (int i = 0; i < sets; ++i) {
            CHECK(cudaMalloc(&src[i], half));
            CHECK(cudaMalloc(&dst[i], half));
            CHECK(cudaMemset(src[i], 1, half));
        }
        const char *names[] = {"memcpy", "kernel", "256B", "256B+ef", "256B+ef+st_ef", "nc 256B"};
        for (int round = 0; round < 2; ++round)
            for (int kernel = 0; kernel < 6; ++kernel) {
                const double us = time_copies(stream, src, dst, half, kernel);
                printf("copy %-14s %8.2f MB moved: %9.3f us %8.1f GB/s (sets %d)\n", names[kernel],
                       2.0 * half / 1e6, us, 2.0 * half / us / 1e3, sets);
            }
        for (int i = 0; i < sets; ++i) {
            CHECK(cudaFree(src[i]));
            CHECK(cudaFree(dst[i]));
        }
    }
    CHECK(cudaStreamDestroy(stream));
    return 0;
}
