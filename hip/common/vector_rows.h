/*
 * 16-byte vector access to the rows of a [batch, dim, seqlen] tensor given by strides: along
 * t (channel-first) or along c (channel-last), whichever is contiguous. Shared by the conv1d
 * kernels' launchers, which pick a vector or an element-wise kernel with it.
 */
#pragma once

#include "compat.h"
#include "element.h"
#include "packed.h"

namespace hipconv {

// 16 bytes of T, and their elements as fp32.
template <typename T> struct Vec16 {
    static constexpr int kCount = 16 / sizeof(T);
    uint4 raw;
    __device__ float get(int e) const { return unpack<T>(raw, e); }
};

// Every row start is 16-byte aligned and the contiguous axis is a whole number of vectors.
template <typename T, bool kChannelLast>
inline bool rows_vectorizable(const void *base, int64_t batch_stride, int64_t dim_stride, int64_t seq_stride, int dim,
                              int seqlen) {
    constexpr int kVec = Vec16<T>::kCount;
    const bool aligned = (reinterpret_cast<uintptr_t>(base) & 15) == 0 && batch_stride % kVec == 0;
    if (kChannelLast) return aligned && dim_stride == 1 && dim % kVec == 0 && seq_stride % kVec == 0;
    return aligned && seq_stride == 1 && seqlen % kVec == 0 && dim_stride % kVec == 0;
}

}  // namespace hipconv
