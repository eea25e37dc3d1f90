/*
 * Hopper's tensor memory accelerator (TMA): a tile of a 2-D tensor copied into shared memory
 * by one thread, its arrival counted in bytes on an mbarrier (NVIDIA sm_90 and newer only;
 * the device functions are empty on older NVIDIA devices, and nothing here exists on AMD).
 *
 *   host    encode_tile_map: a CUtensorMap of a 2-D row-major tensor of 16-bit elements
 *           (rows of `cols` elements, `row_stride` elements apart) read in boxes of
 *           box_cols x box_rows with the 128-byte swizzle (box_cols * 2 must be 128);
 *           elements outside the tensor read as zeros.
 *   device  mbarriers (init, arrive with an expected byte count, wait on a phase parity);
 *           load_tile: one box from global memory into shared memory, its bytes counted on
 *           an mbarrier.
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

// The driver's cuTensorMapEncodeTiled (through the runtime, so no link to libcuda), or
// nullptr where the driver has none.
inline PFN_cuTensorMapEncodeTiled_v12000 tile_map_encoder() {
    static PFN_cuTensorMapEncodeTiled_v12000 encoder = [] {
        void *fn = nullptr;
        cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
        const cudaError_t err =
            cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &found);
        return err == cudaSuccess && found == cudaDriverEntryPointSuccess
                   ? reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn)
                   : nullptr;
    }();
    return encoder;
}

// The map of `base` as `rows` rows of `cols` 16-bit elements (`bf16` picks the type), rows
// `row_stride` elements apart, read in boxes of 64 x box_rows with the 128-byte swizzle.
// False where TMA cannot read it (no encoder, a base not 16-byte aligned, a row stride not a
// multiple of 16 bytes, a box taller than 256 rows): the caller takes another path.
inline bool encode_tile_map(CUtensorMap *map, const void *base, bool bf16, uint64_t cols, uint64_t rows,
                            uint64_t row_stride, uint32_t box_rows) {
    const PFN_cuTensorMapEncodeTiled_v12000 encode = tile_map_encoder();
    if (encode == nullptr || (reinterpret_cast<uintptr_t>(base) & 15) != 0 || (row_stride * 2) % 16 != 0 ||
        box_rows == 0 || box_rows > 256 || cols == 0 || rows == 0)
        return false;
    const cuuint64_t dims[2] = {cols, rows};
    const cuuint64_t strides[1] = {row_stride * 2};
    const cuuint32_t box[2] = {64, box_rows};
    const cuuint32_t element_strides[2] = {1, 1};
    return encode(map, bf16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2,
                  const_cast<void *>(base), dims, strides, box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                  CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                  CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
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

// Until the phase of `bar` with this parity has completed (its arrivals and bytes are in).
__device__ inline void wait_barrier(uint64_t *bar, uint32_t parity) {
#if HIPCONV_HAS_TMA
    const uint32_t address = shared_address(bar);
    uint32_t done = 0;
    do {
        asm volatile("{\n.reg .pred ready;\n"
                     "mbarrier.try_wait.parity.shared::cta.b64 ready, [%1], %2;\n"
                     "selp.u32 %0, 1, 0, ready;\n}\n"
                     : "=r"(done)
                     : "r"(address), "r"(parity)
                     : "memory");
    } while (done == 0);
#endif
}

// Box (col, row) of `map` into `dst`, counted as bytes on the mbarrier at `bar`.
__device__ inline void load_tile(void *dst, const CUtensorMap *map, int col, int row, uint64_t *bar) {
#if HIPCONV_HAS_TMA
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3}], [%4];\n" ::"r"(shared_address(dst)),
                 "l"(reinterpret_cast<uint64_t>(map)), "r"(col), "r"(row), "r"(shared_address(bar))
                 : "memory");
#endif
}

#endif  // HIPCONV_PLATFORM_NVIDIA

}  // namespace tma
}  // namespace hipconv
