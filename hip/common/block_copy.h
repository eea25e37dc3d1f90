/*
 * Block-cooperative copies from global into shared memory, with many loads in flight.
 *
 *   copy16(n, any, src, dst): for i in [0, n), strided over the block: 16 bytes from src(i)
 *                          (nullptr = zeros) to dst(i) (16-byte aligned shared memory);
 *                          `any` is a readable global address (cp.async wants one even
 *                          when it reads nothing).
 *                          NVIDIA sm_80+: cp.async (no registers, zero-fill through
 *                          src-size 0); copy_commit() closes a stage, copy_wait<N>()
 *                          waits until N stages are left in flight, then __syncthreads().
 *                          Elsewhere: batches of kBatch loads into registers, then stores.
 *   copy16_one(src, dst, any): one such copy by this thread (cp.async, or a load and a
 *                          store), for kernels that work out their own addresses.
 *   copy16_if(fill, src, dst): the same with `src` always a readable address, and zeros
 *                          when !fill (no null test).
 *   copy16_once_if(fill, src, dst): the same with `src` always a readable address, and
 *                          zeros when !fill (no null test, no select of `any`), for data
 *                          that is read once: on NVIDIA the copy asks L2 for the whole
 *                          256-byte block around it and marks the lines evict-first.
 *   store16_once(dst, v):  16 bytes to global memory that nothing reads back soon (on
 *                          NVIDIA: L2 evict-first).
 *   staged(n, load, store): for i in [0, n): store(i, load(i)), in batches of kBatch so a
 *                          thread's loads are all issued before its first store.
 */
#pragma once

#include "compat.h"

namespace hipconv {

constexpr int kCopyBatch = 8;

template <typename V, typename Load, typename Store>
__device__ inline void staged(int n, const Load &load, const Store &store) {
    for (int base = threadIdx.x; base < n; base += kCopyBatch * blockDim.x) {
        V v[kCopyBatch];
#pragma unroll
        for (int k = 0; k < kCopyBatch; ++k) {
            const int i = base + k * blockDim.x;
            if (i < n) v[k] = load(i);
        }
#pragma unroll
        for (int k = 0; k < kCopyBatch; ++k) {
            const int i = base + k * blockDim.x;
            if (i < n) store(i, v[k]);
        }
    }
}

#if defined(HIPCONV_PLATFORM_NVIDIA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define HIPCONV_HAS_ASYNC_COPY 1
#else
#define HIPCONV_HAS_ASYNC_COPY 0
#endif

// One 16-byte copy of this thread from `from` (nullptr = zeros) to `to` (shared memory),
// in the current stage; without cp.async a load and a store.
__device__ inline void copy16_one(const void *from, void *to, const void *any) {
#if HIPCONV_HAS_ASYNC_COPY
    const unsigned at = (unsigned)__cvta_generic_to_shared(to);
    const int bytes = from != nullptr ? 16 : 0;
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(at), "l"(from != nullptr ? from : any),
                 "r"(bytes)
                 : "memory");
#else
    (void)any;
    *reinterpret_cast<uint4 *>(to) =
        from != nullptr ? *reinterpret_cast<const uint4 *>(from) : make_uint4(0, 0, 0, 0);
#endif
}

// One 16-byte copy of this thread from `from` (a readable global address) to `to` (shared
// memory), or 16 zeros where !fill, in the current stage: copy16_one without its null test,
// for kernels whose copies are few instructions each.
__device__ inline void copy16_if(bool fill, const void *from, void *to) {
#if HIPCONV_HAS_ASYNC_COPY
    const unsigned at = (unsigned)__cvta_generic_to_shared(to);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(at), "l"(from), "r"(fill ? 16 : 0) : "memory");
#else
    *reinterpret_cast<uint4 *>(to) = fill ? *reinterpret_cast<const uint4 *>(from) : make_uint4(0, 0, 0, 0);
#endif
}

#if HIPCONV_HAS_ASYNC_COPY
// An L2 cache policy that evicts these lines first (streamed data: the lines that stay are
// the ones that may be read again).
__device__ inline uint64_t evict_first_policy() {
    uint64_t policy;
    asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
    return policy;
}
#endif

// One 16-byte copy of this thread from `from` (a readable global address, read once) to
// `to` (shared memory), or 16 zeros where !fill, in the current stage.
__device__ inline void copy16_once_if(bool fill, const void *from, void *to) {
#if HIPCONV_HAS_ASYNC_COPY
    const unsigned at = (unsigned)__cvta_generic_to_shared(to);
    asm volatile("cp.async.cg.shared.global.L2::cache_hint.L2::256B [%0], [%1], 16, %2, %3;" ::"r"(at), "l"(from),
                 "r"(fill ? 16 : 0), "l"(evict_first_policy())
                 : "memory");
#else
    *reinterpret_cast<uint4 *>(to) = fill ? *reinterpret_cast<const uint4 *>(from) : make_uint4(0, 0, 0, 0);
#endif
}

// `v` to `to` (global memory, 16-byte aligned) that nothing reads back soon.
__device__ inline void store16_once(void *to, const uint4 &v) {
#if HIPCONV_HAS_ASYNC_COPY
    asm volatile("st.global.L2::cache_hint.v4.u32 [%0], {%1, %2, %3, %4}, %5;" ::"l"(to), "r"(v.x), "r"(v.y),
                 "r"(v.z), "r"(v.w), "l"(evict_first_policy())
                 : "memory");
#else
    *reinterpret_cast<uint4 *>(to) = v;
#endif
}

template <typename Src, typename Dst>
__device__ inline void copy16(int n, const void *any, const Src &src, const Dst &dst) {
#if HIPCONV_HAS_ASYNC_COPY
    for (int i = threadIdx.x; i < n; i += blockDim.x) copy16_one(src(i), dst(i), any);
#else
    (void)any;
    staged<uint4>(
        n,
        [&](int i) {
            const void *from = src(i);
            return from != nullptr ? *reinterpret_cast<const uint4 *>(from) : make_uint4(0, 0, 0, 0);
        },
        [&](int i, const uint4 &v) { *reinterpret_cast<uint4 *>(dst(i)) = v; });
#endif
}

// Closes the group of copy16 transfers issued since the last commit (a pipeline stage).
__device__ inline void copy_commit() {
#if HIPCONV_HAS_ASYNC_COPY
    asm volatile("cp.async.commit_group;" ::: "memory");
#endif
}

// Waits until at most kPending of this thread's committed groups are still in flight (a
// __syncthreads() must follow before the block reads them). Without cp.async every copy
// has completed already.
template <int kPending> __device__ inline void copy_wait() {
#if HIPCONV_HAS_ASYNC_COPY
    asm volatile("cp.async.wait_group %0;" ::"n"(kPending) : "memory");
#endif
}

}  // namespace hipconv
