/*
 * conv3d geometry shared by the family's kernels (hip/include/hipconv/conv3d.h has the
 * contract): tensor offsets through per-axis element strides, the input element an output
 * tap reads (zero padding, or the previous chunk's frames before depth 0), output-position
 * decomposition, the launchers' common argument check, and the host-side pieces the
 * direct kernels' argument blocks share (32-bit tap offsets, the per-slab plane table).
 */
#pragma once

#include <algorithm>

#include "compat.h"
#include "element.h"
#include "hipconv/conv3d.h"
#include "launch.h"

namespace hipconv {
namespace conv3d {

constexpr int kAxes = HIPCONV_CONV3D_AXES;        // d, h, w
constexpr int kTensorAxes = HIPCONV_CONV3D_TENSOR_AXES;  // n, c, d, h, w

// The element offset of (a0, .., a4) in a tensor with per-axis strides `s` (64-bit).
__host__ __device__ inline int64_t offset(const int64_t (&s)[kTensorAxes], int64_t a0, int64_t a1, int64_t a2,
                                          int64_t a3, int64_t a4) {
    return a0 * s[0] + a1 * s[1] + a2 * s[2] + a3 * s[3] + a4 * s[4];
}

// Where the input element (n, c, id, ih, iw) lives, with the padding rules of conv3d.h:
// nullptr (reads zero) outside the input on h and w, past the end on d, and before depth 0
// unless initial_frames holds it.
template <typename T>
__device__ inline const T *input_at(const hipconv_conv3d_params &p, int n, int c, int id, int ih, int iw) {
    if (ih < 0 || ih >= p.in[1] || iw < 0 || iw >= p.in[2] || id >= p.in[0]) return nullptr;
    if (id >= 0) return static_cast<const T *>(p.x) + offset(p.x_stride, n, c, id, ih, iw);
    if (p.initial_frames == nullptr || id < -p.pad[0]) return nullptr;
    return static_cast<const T *>(p.initial_frames) + offset(p.initial_stride, n, c, p.pad[0] + id, ih, iw);
}

// The start (w index 0) of the input row (n, c, id, ih) under the same rules: in x (its w
// stride x_stride[4]), in initial_frames before depth 0 (w stride initial_stride[4]), or
// nullptr where the whole row reads zero. The caller checks iw against in[2].
template <typename T> __device__ inline const T *input_row_at(const hipconv_conv3d_params &p, int n, int c, int id, int ih) {
    if (ih < 0 || ih >= p.in[1] || id >= p.in[0]) return nullptr;
    if (id >= 0) return static_cast<const T *>(p.x) + offset(p.x_stride, n, c, id, ih, 0);
    if (p.initial_frames == nullptr || id < -p.pad[0]) return nullptr;
    return static_cast<const T *>(p.initial_frames) + offset(p.initial_stride, n, c, p.pad[0] + id, ih, 0);
}

// The input element (n, c, id, ih, iw) in fp32, zero in the padding.
template <typename T> __device__ inline float load_input(const hipconv_conv3d_params &p, int n, int c, int id, int ih, int iw) {
    const T *at = input_at<T>(p, n, c, id, ih, iw);
    return at == nullptr ? 0.0f : to_float(*at);
}

// An output position m = ((n*out[0] + od)*out[1] + oh)*out[2] + ow, decomposed.
struct OutputPosition {
    int n, od, oh, ow;
};
__device__ inline OutputPosition output_position(const hipconv_conv3d_params &p, int64_t m) {
    OutputPosition o;
    QuotientRemainder q = divide(m, p.out[2]);
    o.ow = (int)q.remainder;
    q = divide(q.quotient, p.out[1]);
    o.oh = (int)q.remainder;
    q = divide(q.quotient, p.out[0]);
    o.od = (int)q.remainder;
    o.n = (int)q.quotient;
    return o;
}

// The output positions batch * out[0] * out[1] * out[2] (the GEMMs' m).
__host__ __device__ inline int64_t output_positions(const hipconv_conv3d_params &p) {
    return (int64_t)p.batch * p.out[0] * p.out[1] * p.out[2];
}

// The sizes and groups every kernel relies on, without the pointers (passes that read only
// some tensors, such as final_frames, check their own).
inline bool valid_shape(const hipconv_conv3d_params &p) {
    if (p.batch < 1 || p.cin < 1 || p.cout < 1 || p.groups < 1) return false;
    if (p.cin % p.groups != 0 || p.cout % p.groups != 0) return false;
    for (int a = 0; a < kAxes; ++a) {
        if (p.in[a] < 1 || p.out[a] < 1 || p.kernel[a] < 1 || p.stride[a] < 1 || p.dilation[a] < 1 || p.pad[a] < 0)
            return false;
    }
    return true;
}

// 3x3 taps on h and w with stride and dilation 1 there: the shape Tiled's unrolled paths
// (fixed column and row counts, immediate column offsets) are compiled for.
inline bool taps_3x3_unit_hw(const hipconv_conv3d_params &p) {
    return p.kernel[1] == 3 && p.kernel[2] == 3 && p.stride[1] == 1 && p.stride[2] == 1 && p.dilation[1] == 1 &&
           p.dilation[2] == 1;
}

// |stride| * (extent - 1), the farthest offset along an axis, saturated at INT32_MAX + 1 (so
// that sums of a few stay exact where they fit int32 and overflow nothing where they don't).
inline int64_t axis_span(int64_t stride, int32_t extent) {
    constexpr uint64_t kPast = (uint64_t)INT32_MAX + 1;
    if (extent <= 1) return 0;
    const uint64_t s = stride < 0 ? 0 - (uint64_t)stride : (uint64_t)stride;
    return s >= kPast ? (int64_t)kPast : (int64_t)std::min<uint64_t>(s * (uint64_t)(extent - 1), kPast);
}

// Whether w's tap strides are non-negative and every tap offset of one output channel,
// ci * w_stride[1] + kd * w_stride[2] + kh * w_stride[3] + kw * w_stride[4], fits int32: the
// 32-bit tap offsets of the register-slab and staged-strip kernels (direct_slabs.hip,
// direct_staged.hip).
inline bool channel_taps_fit_int32(const hipconv_conv3d_params &p) {
    for (int axis = 1; axis < kTensorAxes; ++axis)
        if (p.w_stride[axis] < 0) return false;
    return axis_span(p.w_stride[1], p.cin / p.groups) + axis_span(p.w_stride[2], p.kernel[0]) +
               axis_span(p.w_stride[3], p.kernel[1]) + axis_span(p.w_stride[4], p.kernel[2]) <=
           INT32_MAX;
}

// The per-slab table of the same two kernels: for slab s = (ci, kd) of a group, ci = s /
// kernel[0] and kd = s % kernel[0], s < slabs <= kMax, its depth offset kd * dilation[0]
// and its plane's byte offset from depth 0 of the group's first channel in x,
// (ci * x_stride[1] + depth * x_stride[2]) * sizeof(T). Entries past `slabs` are left as
// they are.
template <typename T, int kMax>
inline void slab_planes(const hipconv_conv3d_params &p, int slabs, int (&depth)[kMax], int64_t (&x_plane)[kMax]) {
    for (int s = 0; s < slabs; ++s) {
        const int ci = s / p.kernel[0], kd = s % p.kernel[0];
        depth[s] = kd * p.dilation[0];
        x_plane[s] = (ci * p.x_stride[1] + (int64_t)depth[s] * p.x_stride[2]) * (int64_t)sizeof(T);
    }
}

// The launchers' own check of what every kernel relies on (the Rust side checks the rest
// before launch): pointers present, sizes >= 1, groups dividing both channel counts.
inline bool valid_params(const hipconv_conv3d_params &p) {
    if (p.x == nullptr || p.w == nullptr || p.y == nullptr) return false;
    return valid_shape(p);
}

// 16-byte vectors of T along the tensor axis `axis` (stride 1 there): the base is 16-byte
// aligned and every other axis's stride is a whole number of vectors, so each vector
// starting at a multiple of 16 / sizeof(T) on that axis is aligned. (The caller checks
// that the axis's extent is a whole number of vectors where a vector must not straddle it.)
template <typename T> inline bool vectors_along(const void *base, const int64_t (&s)[kTensorAxes], int axis) {
    constexpr int64_t kVec = 16 / sizeof(T);
    if ((reinterpret_cast<uintptr_t>(base) & 15) != 0 || s[axis] != 1) return false;
    for (int a = 0; a < kTensorAxes; ++a) {
        if (a != axis && s[a] % kVec != 0) return false;
    }
    return true;
}

// The columns of a group's patch matrix in the order of w's rows (conv3d.h, im3col):
// col(ci, kd, kh, kw) = ci*w_stride[1] + kd*w_stride[2] + kh*w_stride[3] + kw*w_stride[4],
// which must be a permutation of 0 .. k_g-1 (w dense per output channel). column_order()
// finds the axes' nesting (axis 0 = ci, 1 = kd, 2 = kh, 3 = kw; inner[0] the fastest) and
// checks the permutation; decompose() inverts col.
struct ColumnOrder {
    int axis[4];  // inner to outer
    int size[4];
    int k_g;
};

inline bool column_order(const hipconv_conv3d_params &p, ColumnOrder *order) {
    const int64_t size[4] = {p.cin / p.groups, p.kernel[0], p.kernel[1], p.kernel[2]};
    const int64_t stride[4] = {p.w_stride[1], p.w_stride[2], p.w_stride[3], p.w_stride[4]};
    int axis[4] = {0, 1, 2, 3};
    // Sort by stride (an axis of size 1 has no stride that matters: it sorts innermost).
    auto key = [&](int a) { return size[a] == 1 ? int64_t(-1) : stride[a]; };
    for (int i = 1; i < 4; ++i)
        for (int j = i; j > 0 && key(axis[j]) < key(axis[j - 1]); --j) {
            const int t = axis[j];
            axis[j] = axis[j - 1];
            axis[j - 1] = t;
        }
    int64_t dense = 1;
    for (int i = 0; i < 4; ++i) {
        const int a = axis[i];
        if (size[a] > 1 && stride[a] != dense) return false;
        order->axis[i] = a;
        order->size[i] = (int)size[a];
        dense *= size[a];
    }
    if (dense > INT32_MAX || p.w_stride[0] != dense) return false;
    order->k_g = (int)dense;
    return true;
}

// col (0 <= col < k_g) -> (ci, kd, kh, kw) as idx[0..3].
__device__ inline void decompose(const ColumnOrder &order, int col, int (&idx)[4]) {
#pragma unroll
    for (int i = 0; i < 3; ++i) {
        const int q = col / order.size[i];
        idx[order.axis[i]] = col - q * order.size[i];
        col = q;
    }
    idx[order.axis[3]] = col;
}

}  // namespace conv3d
}  // namespace hipconv
