// Shared by the dev benches (conv3d_seed_bench.cu, depthwise_bench.cu, forward_bench.cu,
// rows_bench.cu, ...): a checked CUDA call, the copy bandwidth their "% of copy" divides by,
// and the bench's timing of one forward: a graph of `sets` forwards (forward(s) enqueues
// the one over rotating set s), 3 warm-up replays, the median of `replays` timed with device
// events, divided by `sets`. SOAK_MS=N in the environment replays the graph for N ms of wall
// time before the warm-up (a sustained load, for reading the clocks and the power the GPU
// settles at under it: nvidia-smi beside the bench).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x)                                                                          \
    do {                                                                               \
        cudaError_t e_ = (x);                                                          \
        if (e_ != cudaSuccess) {                                                       \
            printf("CUDA %s at %d\n", cudaGetErrorString(e_), __LINE__);               \
            exit(1);                                                                   \
        }                                                                              \
    } while (0)

// Microseconds per forward.
// The median, in ms, of `reps` timings of enqueue() between two device events on `stream`.
template <typename Enqueue> double event_median_ms(cudaStream_t stream, int reps, const Enqueue &enqueue) {
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    std::vector<float> t;
    for (int i = 0; i < reps; ++i) {
        CK(cudaEventRecord(e0, stream));
        enqueue();
        CK(cudaEventRecord(e1, stream));
        CK(cudaEventSynchronize(e1));
        float ms;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        t.push_back(ms);
    }
    std::sort(t.begin(), t.end());
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
    return t[t.size() / 2];
}

// The graph of `sets` forwards (forward(s) enqueues the one over rotating set s), captured on
// `stream` and instantiated; the caller destroys both.
struct CapturedGraph {
    cudaGraph_t graph;
    cudaGraphExec_t exec;
};
template <typename Forward> CapturedGraph capture_graph(cudaStream_t stream, int sets, const Forward &forward) {
    CapturedGraph g;
    CK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    for (int s = 0; s < sets; ++s) forward(s);
    CK(cudaStreamEndCapture(stream, &g.graph));
    CK(cudaGraphInstantiate(&g.exec, g.graph, 0));
    return g;
}

template <typename Forward> double graph_median_us(cudaStream_t stream, int sets, int replays, const Forward &forward) {
    const CapturedGraph g = capture_graph(stream, sets, forward);
    const cudaGraphExec_t exec = g.exec;
    if (const char *soak = getenv("SOAK_MS")) {
        const auto start = std::chrono::steady_clock::now();
        const double soak_ms = atof(soak);
        while (std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() < soak_ms) {
            for (int i = 0; i < 8; ++i) CK(cudaGraphLaunch(exec, stream));
            CK(cudaStreamSynchronize(stream));
        }
    }
    for (int i = 0; i < 3; ++i) CK(cudaGraphLaunch(exec, stream));
    const double ms = event_median_ms(stream, replays, [&] { CK(cudaGraphLaunch(exec, stream)); });
    CK(cudaGraphExecDestroy(g.exec));
    CK(cudaGraphDestroy(g.graph));
    return ms * 1e3 / sets;
}

// GB/s of a 1 GiB device-to-device copy (bytes read + written over the median of 7 copies).
inline double device_copy_gbps() {
    const size_t bytes = 1ull << 30;
    void *src, *dst;
    CK(cudaMalloc(&src, bytes));
    CK(cudaMalloc(&dst, bytes));
    const double ms = event_median_ms(0, 7, [&] { CK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice)); });
    CK(cudaFree(src));
    CK(cudaFree(dst));
    return 2.0 * bytes / (ms * 1e-3) / 1e9;
}
