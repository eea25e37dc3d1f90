/*
 * 16-byte global-memory accesses of the depthwise conv3d kernels (depthwise.hip,
 * depthwise_generic.hip): kVecOf<T> elements of T as one uint4, widened to fp32 on load
 * and rounded back on store, zero where a predicated load is off.
 */
#pragma once

#include "compat.h"
#include "element.h"
#include "packed.h"

namespace hipconv {
namespace depthwise {

// Elements of T in a 16-byte vector.
template <typename T> constexpr int kVecOf = 16 / (int)sizeof(T);

// Accesses through global-memory pointers. On AMD the input row pointer is chosen between x,
// initial_frames and nullptr, and clang then loses that it points to global memory and
// emits flat loads; naming the address space (with a native 4-word vector: HIP's uint4 is a
// class that cannot be copied from it) keeps global_load_dwordx4. nvcc infers it.
#if defined(HIPCONV_PLATFORM_AMD)
typedef uint32_t GlobalWords4 __attribute__((ext_vector_type(4)));
__device__ inline uint4 load16(const void *at) {
    const GlobalWords4 w = *(const __attribute__((address_space(1))) GlobalWords4 *)at;
    return make_uint4(w.x, w.y, w.z, w.w);
}
__device__ inline void store16(void *at, const uint4 &v) {
    *(__attribute__((address_space(1))) GlobalWords4 *)at = GlobalWords4{v.x, v.y, v.z, v.w};
}
template <typename Bits> __device__ inline Bits load_bits(const void *at) {
    return *(const __attribute__((address_space(1))) Bits *)at;
}
#else
__device__ inline uint4 load16(const void *at) { return *static_cast<const uint4 *>(at); }
__device__ inline void store16(void *at, const uint4 &v) { *static_cast<uint4 *>(at) = v; }
template <typename Bits> __device__ inline Bits load_bits(const void *at) { return *static_cast<const Bits *>(at); }
#endif

// kVec elements of T from a 16-byte aligned address, widened to fp32 (zeros if !inside).
template <typename T> __device__ inline void load_vector(float (&v)[kVecOf<T>], const T *at, bool inside) {
    const uint4 raw = inside ? load16(at) : make_uint4(0, 0, 0, 0);
#pragma unroll
    for (int e = 0; e < kVecOf<T>; ++e) v[e] = unpack<T>(raw, e);
}

// One element of T, widened (zero if !inside).
template <typename T> __device__ inline float load_element(const T *at, bool inside) {
    return inside ? bits_to_float(T(), (uint32_t)load_bits<element_bits_t<T>>(at), 0) : 0.f;
}

template <typename T> __device__ inline void store_vector(T *at, const float (&v)[kVecOf<T>]) {
    store16(at, pack<T>(v));
}

}  // namespace depthwise
}  // namespace hipconv
