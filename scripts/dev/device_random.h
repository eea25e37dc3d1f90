// Shared by the backward dev benches (backward_bench.cu, short_blocks_backward.cu): device
// buffers of values in [-scale, scale] from a hash of the index (the same inputs in every
// binary and call), their download, and the FNV-1a hash of bytes that says whether two runs
// gave the same bits.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "graph_timing.h"  // CK

// Values in [-scale, scale] from a hash of the index.
template <typename T> __global__ void fill(T *out, size_t n, uint32_t seed, float scale) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        uint32_t h = (uint32_t)i * 2654435761u ^ seed;
        h ^= h >> 15, h *= 2246822519u, h ^= h >> 13, h *= 3266489917u, h ^= h >> 16;
        out[i] = (T)(scale * ((h & 0xffff) / 32768.f - 1.f));
    }
}

template <typename T> T *device_random(size_t n, uint32_t seed, float scale) {
    T *d;
    CK(cudaMalloc(&d, n * sizeof(T)));
    fill<<<1024, 256>>>(d, n, seed, scale);
    CK(cudaGetLastError());
    return d;
}

template <typename T> std::vector<T> download(const T *d, size_t n) {
    std::vector<T> h(n);
    CK(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
    return h;
}

inline uint64_t fnv(const void *data, size_t bytes) {
    uint64_t h = 1469598103934665603ull;
    const uint8_t *b = static_cast<const uint8_t *>(data);
    for (size_t i = 0; i < bytes; ++i) h = (h ^ b[i]) * 1099511628211ull;
    return h;
}
