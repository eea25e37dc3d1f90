/*
 * Hopper's tensor memory accelerator (TMA): a tile of a 2-D tensor copied into shared memory
 * by one thread, its arrival counted in bytes on an mbarrier (NVIDIA sm_90 and newer only;
 * the device functions are empty on older NVIDIA devices, and nothing here exists on AMD).
 *
 *   host    encode_tile_map: a CUtensorMap of a 2-D row-major tensor of 16-bit elements
 *           (rows of `cols` elements, `row_stride` elements apart) read in boxes of
 *           box_cols x box_rows (64 columns with the 128-byte swizzle, or 32 with the
 *           64-byte swizzle);
 *           elements outside the tensor read as zeros.
 *           encode_tile_map5: a CUtensorMap of any 5-D tensor of 16-bit elements whose
 *           innermost dim is contiguous; encode_channels_last_map: of a channels-last
 *           tensor [n][d][h][w][c] read in boxes of c x w x h x d positions;
 *           encode_channel_first_rows_map: of a channel-first tensor [n][c][d][h][w] read
 *           in boxes of rows of one plane.
 *           encode_im2col_map: a CUtensorMap in im2col mode of a channels-last 5-D tensor
 *           [n][d][h][w][c] of 16-bit elements: a box is 64 channels of `pixels` output
 *           positions in a row, one filter tap at a time (Im2colGeometry below).
 *   device  mbarriers (init, arrive with an expected byte count, wait on a phase parity);
 *           load_tile / load_tile3: one box of a 2-D / 3-D map from global memory into
 *           shared memory, its bytes counted on an mbarrier (store_tile3: a box out);
 *           load_im2col: the same for an im2col box; load_tile5 /
 *           store_tile5: a box of a 5-D tile map in and out (the stores as bulk groups,
 *           waited for with wait_stores_read / wait_stores, their sources fenced with
 *           fence_shared_for_async).
 *
 * The swizzle is wgmma.h's: 16-byte chunk c of row r of a box lands at chunk c ^ (r % 8),
 * so a box written at a 1024-byte aligned address is a K-major operand tile as is.
 */
#pragma once

#include <cstdint>

#include "compat.h"

#if defined(HIPCONV_PLATFORM_NVIDIA)
#include <cuda.h>
#include <cudaTypedefs.h>
#endif

#if defined(HIPCONV_PLATFORM_NVIDIA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define HIPCONV_HAS_TMA 1
#else
#define HIPCONV_HAS_TMA 0
#endif

namespace hipconv {
namespace tma {

#if defined(HIPCONV_PLATFORM_NVIDIA)

// The driver's entry point `name` of CUDA 12.0's signature (through the runtime, so no link
// to libcuda), or nullptr where the driver has none.
inline void *driver_entry_point(const char *name) {
    void *fn = nullptr;
    cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
    const cudaError_t err = cudaGetDriverEntryPointByVersion(name, &fn, 12000, cudaEnableDefault, &found);
    return err == cudaSuccess && found == cudaDriverEntryPointSuccess ? fn : nullptr;
}

inline PFN_cuTensorMapEncodeTiled_v12000 tile_map_encoder() {
    static const auto encoder =
        reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(driver_entry_point("cuTensorMapEncodeTiled"));
    return encoder;
}

inline PFN_cuTensorMapEncodeIm2col_v12000 im2col_map_encoder() {
    static const auto encoder =
        reinterpret_cast<PFN_cuTensorMapEncodeIm2col_v12000>(driver_entry_point("cuTensorMapEncodeIm2col"));
    return encoder;
}

// The map of `base` as `rows` rows of `cols` 16-bit elements (`bf16` picks the type), rows
// `row_stride` elements apart, read in boxes of box_cols x box_rows: 64 columns (128-byte
// rows) with the 128-byte swizzle, or 32 (64-byte rows) with the 64-byte swizzle.
// False where TMA cannot read it (no encoder, a base not 16-byte aligned, a row stride not a
// multiple of 16 bytes, a box taller than 256 rows): the caller takes another path.
inline bool encode_tile_map(CUtensorMap *map, const void *base, bool bf16, uint64_t cols, uint64_t rows,
                            uint64_t row_stride, uint32_t box_rows, uint32_t box_cols = 64) {
    const PFN_cuTensorMapEncodeTiled_v12000 encode = tile_map_encoder();
    if (encode == nullptr || (reinterpret_cast<uintptr_t>(base) & 15) != 0 || (row_stride * 2) % 16 != 0 ||
        box_rows == 0 || box_rows > 256 || cols == 0 || rows == 0 || (box_cols != 64 && box_cols != 32))
        return false;
    const cuuint64_t dims[2] = {cols, rows};
    const cuuint64_t strides[1] = {row_stride * 2};
    const cuuint32_t box[2] = {box_cols, box_rows};
    const cuuint32_t element_strides[2] = {1, 1};
    return encode(map, bf16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2,
                  const_cast<void *>(base), dims, strides, box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                  box_cols == 64 ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_64B,
                  CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

// A channels-last 5-D tensor read in im2col boxes, axes in the tensor map's order (0: w,
// 1: h, 2: d). Output position (n, od, oh, ow) of the convolution starts its filter window
// at input (n, lower[2] + od * stride[2], lower[1] + oh * stride[1], lower[0] + ow *
// stride[0]); a box walks `pixels` output positions from a given one, w fastest, then h, d
// and n, each position's box channels (64 or 32) from (its window's start + the tap's
// offset).
struct Im2colGeometry {
    uint64_t dims[5];     // c, w, h, d, n
    uint64_t strides[4];  // elements between consecutive w, h, d, n (c: 1)
    int lower[3];         // the first window's start: -(front padding)
    int out[3];           // output positions along w, h, d
    int stride[3];
};

// The im2col map of `base` (16-bit elements, `bf16` picks the type): boxes of `channels` (64:
// 128-byte rows, 128-byte swizzle; 32: 64-byte rows, 64-byte swizzle) x `pixels` positions,
// elements outside the tensor read as zeros.
// False where TMA cannot read it (no encoder, a base not 16-byte aligned, a stride not a
// multiple of 16 bytes, corners out of the encoder's range): the caller takes another path.
inline bool encode_im2col_map(CUtensorMap *map, const void *base, bool bf16, const Im2colGeometry &g,
                              uint32_t pixels, uint32_t channels) {
    const PFN_cuTensorMapEncodeIm2col_v12000 encode = im2col_map_encoder();
    if (encode == nullptr || (reinterpret_cast<uintptr_t>(base) & 15) != 0 || pixels == 0 || pixels > 256 ||
        (channels != 64 && channels != 32))
        return false;
    cuuint64_t dims[5], strides[4];
    for (int a = 0; a < 5; ++a) dims[a] = g.dims[a];
    for (int a = 0; a < 4; ++a) {
        strides[a] = g.strides[a] * 2;
        if (strides[a] % 16 != 0) return false;
    }
    // The last window start along an axis is lower + (out - 1) * stride, which the map gives
    // as (dim - 1) + upper: so the box walks exactly `out` positions an axis.
    int lower[3], upper[3];
    cuuint32_t element_strides[5] = {1, 1, 1, 1, 1};
    for (int a = 0; a < 3; ++a) {
        lower[a] = g.lower[a];
        upper[a] = g.lower[a] + (g.out[a] - 1) * g.stride[a] - (int)(g.dims[a + 1] - 1);
        element_strides[a + 1] = (cuuint32_t)g.stride[a];
    }
    return encode(map, bf16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 5,
                  const_cast<void *>(base), dims, strides, lower, upper, channels, pixels, element_strides,
                  CU_TENSOR_MAP_INTERLEAVE_NONE,
                  channels == 64 ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_64B,
                  CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                  CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

// The 5-D tile map of a tensor at `base` of 16-bit elements (`bf16` picks the type): dims
// innermost first, the innermost contiguous and the others `stride` elements apart, read in
// `box`es with `swizzle`, L2 fetches promoted to `promotion`; elements outside the tensor (a
// box wider than a dim included) read as zeros. False where TMA cannot take it (no encoder,
// a base not 16-byte aligned, a stride not a positive multiple of 16 bytes, a box the
// encoder refuses).
inline bool encode_tile_map5(CUtensorMap *map, const void *base, bool bf16, const int64_t (&dims)[5],
                             const int64_t (&stride)[4], const uint32_t (&box)[5], CUtensorMapSwizzle swizzle,
                             CUtensorMapL2promotion promotion = CU_TENSOR_MAP_L2_PROMOTION_L2_256B) {
    const PFN_cuTensorMapEncodeTiled_v12000 encode = tile_map_encoder();
    if (encode == nullptr || (reinterpret_cast<uintptr_t>(base) & 15) != 0) return false;
    cuuint64_t sizes[5], strides[4];
    for (int a = 0; a < 5; ++a) {
        if (dims[a] <= 0) return false;
        sizes[a] = (cuuint64_t)dims[a];
    }
    for (int a = 0; a < 4; ++a) {
        if (stride[a] <= 0 || 2 * stride[a] % 16 != 0) return false;
        strides[a] = (cuuint64_t)(2 * stride[a]);
    }
    const cuuint32_t element_strides[5] = {1, 1, 1, 1, 1};
    return encode(map, bf16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 5,
                  const_cast<void *>(base), sizes, strides, box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                  swizzle, promotion, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

// A box of a channels-last 5-D tensor: channels x w x h x d positions (of one n).
struct ChannelsLastBox {
    uint32_t c, w, h, d;
};

// The 5-D tile map (encode_tile_map5) of a channels-last tensor at `base` ([n][d][h][w][c]
// by `stride` in conv3d's axis order n, c, d, h, w; c stride 1), read in `box`es.
inline bool encode_channels_last_map(CUtensorMap *map, const void *base, bool bf16, int64_t n, int64_t c,
                                     const int (&dhw)[3], const int64_t (&stride)[5], ChannelsLastBox box,
                                     CUtensorMapSwizzle swizzle) {
    if (stride[1] != 1) return false;
    return encode_tile_map5(map, base, bf16, {c, dhw[2], dhw[1], dhw[0], n},
                            {stride[4], stride[3], stride[2], stride[0]}, {box.c, box.w, box.h, box.d, 1}, swizzle);
}

// The 5-D tile map (encode_tile_map5) of a channel-first tensor at `base` ([n][c][d][h][w]
// by `stride` in conv3d's axis order; w stride 1), read in boxes of `box_w` x `box_h`
// elements of one plane (coordinates w, h, d, c, n), without swizzle. A box row is one
// image row, seldom 128-byte aligned: its L2 fetches are promoted to 128 bytes, not 256 (the
// depthwise kernel's reads alone 57.3 -> 49.2 us at the bench's row; docs/PERFORMANCE.md,
// fifty-sixth session).
inline bool encode_channel_first_rows_map(CUtensorMap *map, const void *base, bool bf16, int64_t n, int64_t c,
                                          const int (&dhw)[3], const int64_t (&stride)[5], uint32_t box_w,
                                          uint32_t box_h) {
    if (stride[4] != 1) return false;
    return encode_tile_map5(map, base, bf16, {dhw[2], dhw[1], dhw[0], c, n},
                            {stride[3], stride[2], stride[1], stride[0]}, {box_w, box_h, 1, 1, 1},
                            CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_128B);
}

__device__ inline uint32_t shared_address(const void *p) { return (uint32_t)__cvta_generic_to_shared(p); }

// One thread: the mbarrier at `bar` expects `arrivals` arrivals a phase. Then
// fence_barrier_init and a block barrier before any copy signals it.
__device__ inline void init_barrier(uint64_t *bar, uint32_t arrivals) {
#if HIPCONV_HAS_TMA
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(shared_address(bar)), "r"(arrivals) : "memory");
#endif
}
__device__ inline void fence_barrier_init() {
#if HIPCONV_HAS_TMA
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
#endif
}

// One arrival on `bar` that also expects `bytes` more bytes in this phase.
__device__ inline void arrive_expect_bytes(uint64_t *bar, uint32_t bytes) {
#if HIPCONV_HAS_TMA
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(shared_address(bar)), "r"(bytes)
                 : "memory");
#endif
}

// Until the phase of the mbarrier at shared-space byte address `address` with this parity
// has completed (its arrivals and bytes are in).
__device__ inline void wait_barrier_at(uint32_t address, uint32_t parity) {
#if HIPCONV_HAS_TMA
    uint32_t done = 0;
    do {
        asm volatile("{\n.reg .pred ready;\n"
                     "mbarrier.try_wait.parity.shared::cta.b64 ready, [%1], %2;\n"
                     "selp.u32 %0, 1, 0, ready;\n}\n"
                     : "=r"(done)
                     : "r"(address), "r"(parity)
                     : "memory");
    } while (done == 0);
#else
    (void)address, (void)parity;
#endif
}

// The same for the mbarrier at `bar`.
__device__ inline void wait_barrier(uint64_t *bar, uint32_t parity) { wait_barrier_at(shared_address(bar), parity); }

// Box (col, row) of `map` into `dst`, counted as bytes on the mbarrier at `bar`.
__device__ inline void load_tile(void *dst, const CUtensorMap *map, int col, int row, uint64_t *bar) {
#if HIPCONV_HAS_TMA
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3}], [%4];\n" ::"r"(shared_address(dst)),
                 "l"(reinterpret_cast<uint64_t>(map)), "r"(col), "r"(row), "r"(shared_address(bar))
                 : "memory");
#endif
}

// `bytes` (a multiple of 16) from global `src` to shared `dst` (both 16-byte aligned), counted
// on the mbarrier at `bar`: a bulk copy, no tensor map.
__device__ inline void load_bulk(void *dst, const void *src, uint32_t bytes, uint64_t *bar) {
#if HIPCONV_HAS_TMA
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(
                     shared_address(dst)),
                 "l"(src), "r"(bytes), "r"(shared_address(bar))
                 : "memory");
#endif
}

// Box (c, t, b) of the 3-D tile map `map` into `dst`, counted as bytes on the mbarrier at
// `bar` (hip/conv1d/backward_channel_last_tiled.hip: channels, times, batch rows).
__device__ inline void load_tile3(void *dst, const CUtensorMap *map, int c, int t, int b, uint64_t *bar) {
#if HIPCONV_HAS_TMA
    asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3, %4}], [%5];\n" ::"r"(shared_address(dst)),
                 "l"(reinterpret_cast<uint64_t>(map)), "r"(c), "r"(t), "r"(b), "r"(shared_address(bar))
                 : "memory");
#endif
}

// The im2col box of `map` whose first position's window starts at (c, w, h, d, n), at the
// filter tap (offset_w, offset_h, offset_d) (input elements, dilation included), into `dst`,
// counted as bytes on the mbarrier at `bar`.
__device__ inline void load_im2col(void *dst, const CUtensorMap *map, int c, int w, int h, int d, int n,
                                   uint16_t offset_w, uint16_t offset_h, uint16_t offset_d, uint64_t *bar) {
#if HIPCONV_HAS_TMA
    asm volatile("cp.async.bulk.tensor.5d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3, %4, %5, %6}], [%7], {%8, %9, %10};\n" ::"r"(shared_address(dst)),
                 "l"(reinterpret_cast<uint64_t>(map)), "r"(c), "r"(w), "r"(h), "r"(d), "r"(n), "r"(shared_address(bar)),
                 "h"(offset_w), "h"(offset_h), "h"(offset_d)
                 : "memory");
#endif
}

// Box (c, w, h, d, n) of the 5-D tile map `map` into shared memory at `dst` (a shared-window
// address), counted as bytes on the mbarrier at shared address `bar`.
__device__ inline void load_tile5(uint32_t dst, const CUtensorMap *map, int c, int w, int h, int d, int n,
                                  uint32_t bar) {
#if HIPCONV_HAS_TMA
    asm volatile("cp.async.bulk.tensor.5d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3, %4, %5, %6}], [%7];\n" ::"r"(dst),
                 "l"(reinterpret_cast<uint64_t>(map)), "r"(c), "r"(w), "r"(h), "r"(d), "r"(n), "r"(bar)
                 : "memory");
#endif
}

// Shared memory at `src` to box (c, w, h, d, n) of the 5-D tile map `map` (clipped at the
// tensor's edges), committed as one bulk group of this thread. Writes to `src` by other
// threads must be fenced (fence_shared_for_async) and ordered before it by a barrier.
__device__ inline void store_tile5(const CUtensorMap *map, int c, int w, int h, int d, int n, uint32_t src) {
#if HIPCONV_HAS_TMA
    asm volatile("cp.async.bulk.tensor.5d.global.shared::cta.bulk_group [%0, {%1, %2, %3, %4, %5}], [%6];\n"
                 "cp.async.bulk.commit_group;\n" ::"l"(reinterpret_cast<uint64_t>(map)),
                 "r"(c), "r"(w), "r"(h), "r"(d), "r"(n), "r"(src)
                 : "memory");
#endif
}

// `bytes` (a multiple of 16) from shared `src` to global `dst` (both 16-byte aligned) as one
// 1-D bulk copy, committed as one bulk group of this thread; as store_tile5.
__device__ inline void store_bulk(void *dst, uint32_t src, uint32_t bytes) {
#if HIPCONV_HAS_TMA
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;\n"
                 "cp.async.bulk.commit_group;\n" ::"l"(dst),
                 "r"(src), "r"(bytes)
                 : "memory");
#endif
}

// Shared memory at `src` to box (c, t, b) of the 3-D tile map `map` (clipped at the
// tensor's edges), committed as one bulk group of this thread; as store_tile5.
__device__ inline void store_tile3(const CUtensorMap *map, int c, int t, int b, const void *src) {
#if HIPCONV_HAS_TMA
    asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%0, {%1, %2, %3}], [%4];\n"
                 "cp.async.bulk.commit_group;\n" ::"l"(reinterpret_cast<uint64_t>(map)),
                 "r"(c), "r"(t), "r"(b), "r"(shared_address(src))
                 : "memory");
#endif
}

// Until at most kPending of this thread's bulk groups still read their shared memory.
template <int kPending> __device__ inline void wait_stores_read() {
#if HIPCONV_HAS_TMA
    asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(kPending) : "memory");
#endif
}

// Until at most kPending of this thread's bulk groups are still in flight.
template <int kPending> __device__ inline void wait_stores() {
#if HIPCONV_HAS_TMA
    asm volatile("cp.async.bulk.wait_group %0;\n" ::"n"(kPending) : "memory");
#endif
}

// This thread's shared-memory writes, made visible to the TMA unit (the async proxy).
__device__ inline void fence_shared_for_async() {
#if HIPCONV_HAS_TMA
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
#endif
}

#endif  // HIPCONV_PLATFORM_NVIDIA

}  // namespace tma
}  // namespace hipconv
