/*
 * Hopper warpgroup MMA (wgmma, sm_90a only) for the conv3d implicit GEMM: shared-memory
 * descriptors of 128-byte- (and 64-byte-) swizzled K-major tiles, and the fence / commit /
 * wait around the asynchronous instructions (wgmma_ops.h has the instructions themselves).
 *
 * Tile layout (both operands K-major, 16-bit elements): a row of 64 elements of k is 128
 * bytes; its 16-byte chunk c is stored at chunk c ^ (row % 8), so the 8 rows of a 1024-byte
 * group put any chunk column in 8 different bank groups. Groups of 8 rows follow each other
 * (stride 1024 bytes); a tile starts 1024-byte aligned.
 *
 *   row r, chunk c  ->  byte r * 128 + ((c ^ (r & 7)) * 16)
 *
 * A descriptor names a tile's start (+32 bytes per k-step of 16 within the 128-byte row),
 * the 1024-byte stride between 8-row groups, and the 128-byte swizzle. The implicit GEMM's
 * A halves (32 elements of k, where TMA boxes of 32 channels fill them) use the 64-byte form
 * (descriptor<kRowBytes64>): rows of 64 bytes, chunk c of row r at c ^ ((r / 2) % 4), 8-row groups of
 * 512 bytes.
 *
 * Accumulators of m64nNk16 (a warpgroup of 128 threads; warp w = t / 32 of the group, lane
 * l, g = l / 4, q = l % 4): d[4j + r], j < N/8, is C(16w + g + 8(r / 2), 8j + 2q + r % 2).
 */
#pragma once

#include <cstdint>

#include "compat.h"
#include "tma.h"

#if defined(HIPCONV_PLATFORM_NVIDIA) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define HIPCONV_HAS_WGMMA 1
#else
#define HIPCONV_HAS_WGMMA 0
#endif

namespace hipconv {
namespace wgmma {

constexpr int kRowBytes = 128;    // one row of a k-tile: 64 16-bit elements
constexpr int kGroupBytes = 1024;  // 8 rows: one period of the swizzle
constexpr int kRowBytes64 = 64;    // a row of a 64-byte-swizzled tile: 32 16-bit elements

// Byte offset of chunk c (16 bytes) of row r in a swizzled tile.
__host__ __device__ constexpr int swizzled(int r, int c) { return r * kRowBytes + ((c ^ (r & 7)) << 4); }

#if HIPCONV_HAS_WGMMA
// The descriptor of a K-major tile at `tile` (+ k_bytes along the row) swizzled over its
// kRow-byte rows: 128 (the default: chunk c of row r at c ^ (r % 8), 8-row groups of 1024
// bytes) or 64 (chunk c of row r at c ^ ((r / 2) % 4), 8-row groups of 512 bytes).
template <int kRow = kRowBytes> __device__ inline uint64_t descriptor(const void *tile, int k_bytes) {
    static_assert(kRow == kRowBytes || kRow == kRowBytes64, "128- or 64-byte swizzle");
    const uint32_t address = (uint32_t)__cvta_generic_to_shared(tile) + (uint32_t)k_bytes;
    uint64_t d = (uint64_t)((address & 0x3FFFF) >> 4);  // start address, bits 0-13
    d |= (uint64_t)1 << 16;                               // leading byte offset (unused: swizzled K-major)
    d |= (uint64_t)((8 * kRow) >> 4) << 32;               // stride byte offset: next 8-row group
    d |= (uint64_t)(kRow == kRowBytes ? 1 : 2) << 62;     // 128- or 64-byte swizzle
    return d;
}

// Shared memory written through the generic proxy (st.shared, cp.async) visible to the
// async proxy that wgmma reads through: each writer fences, then the block synchronises.
using tma::fence_shared_for_async;

// Before a warpgroup's first wgmma of a batch (orders its earlier register accesses).
__device__ inline void fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ inline void commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
// Until at most N committed batches of this warpgroup are in flight.
template <int N> __device__ inline void wait() { asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory"); }

// Keeps the compiler from moving accumulator reads or writes across a wgmma bracket.
template <int R> __device__ inline void fence_operands(float (&d)[R]) {
#pragma unroll
    for (int i = 0; i < R; ++i) asm volatile("" : "+f"(d[i])::"memory");
}
#endif

}  // namespace wgmma
}  // namespace hipconv

#include "wgmma_ops.h"
