// copy_ceiling: what "% of copy" can mean for a problem of a given size. For each total size
// (MB read + written) it times, graph-replayed over rotating buffers that together exceed
// 3 x 50 MiB (as the bench does), a device-to-device cudaMemcpyAsync and a 16-byte-per-thread
// copy kernel, and prints us and GB/s. The bench's "% of copy" divides by a 2 GiB copy; at
// the decode update's 16.8 MB a bare copy kernel reaches about 75% of that (docs/PERFORMANCE.md).
//
//   nvcc -O3 -std=c++17 -arch=sm_90 scripts/dev/copy_ceiling.cu -o copy_ceiling
//   ./copy_ceiling 16.8 29.4 33.6 58.8 2000
#include <cuda_runtime.h>

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

// Median microseconds per copy of `half` bytes over `sets` rotating (src, dst) pairs: a graph
// of one copy per set, replayed 3 times untimed and 30 times timed.
static double time_copies(cudaStream_t stream, const std::vector<void *> &src, const std::vector<void *> &dst,
                          size_t half, bool kernel) {
    const int sets = (int)src.size();
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    for (int i = 0; i < sets; ++i) {
        if (kernel) {
            const size_t n = half / 16;
            copy16<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>((const uint4 *)src[i], (uint4 *)dst[i], n);
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
        for (int kernel = 0; kernel < 2; ++kernel) {
            const double us = time_copies(stream, src, dst, half, kernel != 0);
            printf("copy %-7s %8.2f MB moved: %9.3f us %8.1f GB/s (sets %d)\n", kernel ? "kernel" : "memcpy",
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
