/*
 * A contiguous channel-first tensor [batch, dim, seqlen] read as one flat array of
 * 16-byte vectors (16 / sizeof(T) elements each), the last one possibly partial: the
 * streaming channel-first kernels (direct_channel_first.hip, direct_wide_channel_first.hip).
 */
#pragma once

#include "compat.h"
#include "element.h"
#include "hipconv/conv1d.h"
#include "packed.h"
#include "vector_rows.h"

namespace hipconv {

// One contiguous [batch, dim, seqlen] tensor at a 16-byte aligned address (the launchers'
// test for the flat kernels).
inline bool contiguous_channel_first(const void *base, int64_t batch_stride, int64_t dim_stride, int64_t seq_stride,
                                     const hipconv_conv1d_params &p) {
    return (reinterpret_cast<uintptr_t>(base) & 15) == 0 && seq_stride == 1 && (p.dim == 1 || dim_stride == p.seqlen) &&
           (p.batch == 1 || batch_stride == (int64_t)p.dim * p.seqlen);
}

// The vector at flat index f (a multiple of E), zero past `total`.
template <typename T> __device__ inline uint4 load_flat_vector(const T *x, int64_t f, int64_t total) {
    constexpr int E = Vec16<T>::kCount;
    if (f + E <= total) return *reinterpret_cast<const uint4 *>(x + f);
    float v[E];
#pragma unroll
    for (int j = 0; j < E; ++j) v[j] = f + j < total ? to_float(x[f + j]) : 0.f;
    return pack<T>(v);  // exact: T -> fp32 -> T
}

// E values rounded to T at flat index f (a multiple of E), nothing past `total`.
template <typename T> __device__ inline void store_flat_vector(T *y, int64_t f, int64_t total, const float *v) {
    constexpr int E = Vec16<T>::kCount;
    if (f + E <= total) {
        *reinterpret_cast<uint4 *>(y + f) = pack<T>(v);
        return;
    }
#pragma unroll
    for (int j = 0; j < E; ++j)
        if (f + j < total) y[f + j] = from_float<T>(v[j]);
}

// A block's segment of the flat array on its way to shared memory: load() issues the
// loads of the vectors first + (v·kThreads + i)·E (zero past `total`) and of the H vectors
// before `first` (zero before the tensor) into registers; stage() stores them as
// stage[H + v·kThreads + i] and stage[0 .. H). Between the two the loads are in flight, so
// a block can compute one segment while the next one arrives.
template <typename T, int kThreads, int V, int H> struct FlatSegment {
    static constexpr int E = Vec16<T>::kCount;
    uint4 raw[V];
    uint4 before;

    __device__ void load(const T *x, int64_t first, int64_t total) {
        const int tid = (int)threadIdx.x;
        if (first + (int64_t)kThreads * V * E <= total) {  // every segment but the last
#pragma unroll
            for (int v = 0; v < V; ++v)
                raw[v] = *reinterpret_cast<const uint4 *>(x + first + (int64_t)(v * kThreads + tid) * E);
        } else {
#pragma unroll
            for (int v = 0; v < V; ++v)
                raw[v] = load_flat_vector<T>(x, first + (int64_t)(v * kThreads + tid) * E, total);
        }
        before = make_uint4(0, 0, 0, 0);
        if (tid < H && first > 0) before = *reinterpret_cast<const uint4 *>(x + first - (int64_t)(H - tid) * E);
    }

    __device__ void stage(uint4 *stage) const {
        const int tid = (int)threadIdx.x;
#pragma unroll
        for (int v = 0; v < V; ++v) stage[H + v * kThreads + tid] = raw[v];
        if (tid < H) stage[tid] = before;
    }
};

// Loads and stages one segment, every load in flight before the first store; ends with a
// barrier.
template <typename T, int kThreads, int V, int H>
__device__ inline void stage_flat_segment(uint4 *stage, const T *x, int64_t first, int64_t total) {
    FlatSegment<T, kThreads, V, H> segment;
    segment.load(x, first, total);
    segment.stage(stage);
    __syncthreads();
}

}  // namespace hipconv
