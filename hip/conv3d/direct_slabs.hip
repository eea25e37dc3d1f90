/*
 * Tiled conv3d, register-slab direct kernel: the part of Tiled's direct path (tiled.hip) for
 * 3x3 taps on h and w (stride and dilation 1 there), at most kMaxSlabs = 9 (ci, kd) slabs per
 * group, cout_g <= 16, x's w stride 1 (NCDHW) and no initial frames. The seed example's shape
 * (cin 3, cout 8, 3x3x3) is the case it is for: a latency-bound problem of one short wave,
 * where what counts is how long each warp's instruction chain is and how many of its loads
 * are in flight at once.
 *
 *   in   x [batch, cin, in[0..2]] by x_stride (w stride 1), w [cout, cin_g, kernel[0], 3, 3] by
 *        w_stride, bias [cout] or NULL
 *   out  y [batch, cout, out[0..2]] by y_stride, fp32 accumulation
 *
 * A thread computes kRows = 2 output rows (oh0, oh0+1) at one (n, od, ow) for kCout = 8
 * output channels of a group (4 where cout_g <= 4): 16 fp32 accumulators. Launch: 128
 * threads, grid (position blocks, groups x channel chunks), one position per thread (no
 * grid-stride loop: the launcher checks that the grid holds them); threads of a block on
 * consecutive (n, od, row pair, ow), ow fastest, so a warp's x reads and NCDHW y writes are
 * coalesced.
 *
 *   thread (n, od, oh0, ow)                     slab s = (ci, kd), s < slabs
 *     1. the block's taps [s][kh][kw][kCout]      plane (n, ci, od*stride[0] - pad[0] + kd*dilation[0]),
 *        and bias: global loads to registers        rows ih0 .. ih0+3 (ih0 = oh0 - pad[1]),
 *     2. every slab's 4 x 3 patch: all              columns iw0 .. iw0+2 (iw0 = ow - pad[2]):
 *        12 * slabs loads in flight at once         one 32-bit byte offset per row (kept in
 *     3. taps and bias to shared memory,            registers for all slabs), the three
 *        one barrier                                columns as immediate offsets; rows,
 *     4. per slab: 9 taps x 2 rows x kCout FMAs,    columns and planes outside the input
 *        each tap's kCout weights one or two        read zero through predicated loads
 *        broadcast 16-byte shared reads             (each predicate one unsigned compare
 *     5. bias + SiLU, stores (unpredicated          folded into the load's ISETP: bool
 *        channels where the chunk is whole)         arrays of them made ptxas spill
 *                                                   predicates to registers, 7% slower)
 *
 * Instantiated for kSlabs = 3 (one input channel of 3 frames, say) and 9; slabs past the
 * runtime count load nothing and multiply zero taps. Registers: kSlabs * 12 inputs + 16
 * accumulators (kSlabs 9: 152-162 on sm_90, 3 blocks per SM). Per-slab plane and tap offsets come
 * precomputed in the argument block. In-plane offsets and the tap offsets of one output
 * channel are 32-bit (the launcher checks they fit); plane and tensor offsets are 64-bit.
 * At the seed's shape on an H100: 5.7 us against 8.1 for Tiled's ping-pong direct kernel
 * (docs/PERFORMANCE.md "The seed example"). On sm_90 and newer a grid that fits one wave of
 * the staged-strip kernel runs that kernel's chained form instead (direct_staged.hip): the
 * seed's shape 4.85 us there against 5.5 here (H200). This kernel stays an ordinary launch:
 * chained, the seed's 256 blocks (3 an SM fit) ran 6.25 us, the next launch's blocks
 * placed early and unevenly beside this one's.
 */
#include <type_traits>

#include "activation.h"
#include "compat.h"
#include "element.h"
#include "geometry.h"
#include "hipconv/conv3d.h"
#include "launch.h"

namespace hipconv {

namespace {

constexpr int kSlabThreads = 128;
constexpr int kRows = 2;              // output rows per thread
constexpr int kPatchRows = kRows + 2;  // input rows a thread reads per slab

constexpr int kMaxSlabs = 9;           // slabs = cin_g * kernel[0] this kernel takes

// Everything the kernel reads, precomputed on the host where that takes instructions off each
// thread's chain (byte strides, per-slab offsets; computing the slab offsets in the kernel
// instead measured 2% slower at the seed's shape).
struct SlabArgs {
    const void *x, *w, *bias;
    void *y;
    int cin_g, cout_g, cout_chunks, positions;  // positions = batch * out[0] * row_pairs * out[2]
    uint32_t out_w, row_pairs, out_d;           // out[2], ceil(out[1] / kRows), out[0]
    int in[3], out_h, pad[3], stride_d;
    uint32_t x_h;         // x's h stride in bytes; every in-plane byte offset fits int32
    int w_kh, w_kw;       // w's h and w tap strides
    int slabs;            // cin_g * kernel[0] <= kMaxSlabs
    int silu;
    int64_t x_n, x_c, x_d;  // x's batch, channel and depth strides
    int64_t w_co;           // w's output-channel stride
    int64_t y_stride[conv3d::kTensorAxes];
    int64_t y_h;    // y's h stride in bytes
    uint32_t y_c;   // y's channel stride in bytes ((kCout - 1) * y_c fits int32)
    // Per slab s = (ci, kd), ci = s / kernel[0]: its depth offset kd * dilation[0], its plane's
    // byte offset from depth id0 of the group's first channel, and its taps' offset in w.
    int depth[kMaxSlabs];
    int w_tap[kMaxSlabs];                // ci * w_stride[1] + kd * w_stride[2] (fits int32)
    int64_t x_plane[kMaxSlabs];          // (ci * x_stride[1] + kd * dilation[0] * x_stride[2]) * sizeof(T)
};

// NVIDIA: 3 blocks per SM (a register cap of 170: kSlabs 9 needs about 160).
template <typename T, int kCout, int kSlabs>
__global__ void HIPCONV_BOUNDS_NVIDIA(kSlabThreads, 3) conv3d_direct_slabs_kernel(SlabArgs a) {
    static_assert(kCout == 4 || kCout == 8, "kCout: one or two 16-byte tap vectors");
    constexpr int kTapWords = kSlabs * 9 * kCout;
    constexpr int kVectors = kCout / 4;
    __shared__ float4 taps4[kTapWords / 4 + kVectors];  // taps [s][kh][kw][kCout], then bias [kCout]
    float *taps_w = reinterpret_cast<float *>(taps4);
    const int tid = threadIdx.x;
    const int group = (int)(blockIdx.y / (uint32_t)a.cout_chunks);
    const int co_first = ((int)blockIdx.y - group * a.cout_chunks) * kCout;  // within the group

    // 1. The chunk's taps: thread tid < 9 * kCout reads channel j = tid % kCout of tap (kh, kw)
    // = tid / kCout of every slab (word (s * 9 + tid / kCout) * kCout + j); stored once the
    // inputs are in flight.
    float staged[kSlabs];
    const bool stages = tid < 9 * kCout;
    {
        const int j = tid % kCout, khw = tid / kCout, kh = khw / 3, kw = khw - kh * 3;
        const bool live = stages && co_first + j < a.cout_g;
        const T *w_co = static_cast<const T *>(a.w) +
                        (live ? (int64_t)(group * a.cout_g + co_first + j) * a.w_co + kh * a.w_kh + kw * a.w_kw : 0);
#pragma unroll
        for (int s = 0; s < kSlabs; ++s) staged[s] = live && s < a.slabs ? to_float(w_co[a.w_tap[s]]) : 0.f;
    }
    const T *bias = static_cast<const T *>(a.bias);
    const float bias_value =
        tid < kCout && bias != nullptr && co_first + tid < a.cout_g ? to_float(bias[group * a.cout_g + co_first + tid]) : 0.f;

    // 2. The position (n, od, oh0, ow), ow fastest, and every slab's patch.
    const int item = (int)blockIdx.x * kSlabThreads + tid;
    const bool valid = item < a.positions;
    // Unsigned divisions (a signed one adds a sign fix-up around each); past the end: position
    // 0's loads, no stores.
    uint32_t rest = valid ? (uint32_t)item : 0u;
    const int ow = (int)(rest % a.out_w);
    rest /= a.out_w;
    const int oh0 = (int)(rest % a.row_pairs) * kRows;
    rest /= a.row_pairs;
    const int od = (int)(rest % a.out_d);
    const int n = (int)(rest / a.out_d);
    const int id0 = od * a.stride_d - a.pad[0];
    const int iw0 = ow - a.pad[2];
    // Column iw0 of depth id0 (may lie before x: only in-range elements are read); row rr of
    // slab s starts x_plane[s] + row[rr] bytes past x_d (byte offsets: one 64-bit add per row).
    const char *x_d = reinterpret_cast<const char *>(static_cast<const T *>(a.x) + n * a.x_n + group * a.cin_g * a.x_c +
                                                     id0 * a.x_d + iw0);
    const int ih0 = oh0 - a.pad[1];
    uint32_t row[kPatchRows];  // byte offset of row ih0 + rr in a plane (0 where outside)
#pragma unroll
    for (int rr = 0; rr < kPatchRows; ++rr)
        row[rr] = (uint32_t)(ih0 + rr) < (uint32_t)a.in[1] ? (uint32_t)(ih0 + rr) * a.x_h : 0u;

    float v[kSlabs][kPatchRows][3];
#pragma unroll
    for (int s = 0; s < kSlabs; ++s) {
        const bool plane_in = s < a.slabs && (uint32_t)(id0 + a.depth[s]) < (uint32_t)a.in[0];
        const char *plane = x_d + a.x_plane[s];
#pragma unroll
        for (int rr = 0; rr < kPatchRows; ++rr) {
            const bool in = plane_in && (uint32_t)(ih0 + rr) < (uint32_t)a.in[1];
            const T *at = reinterpret_cast<const T *>(plane + row[rr]);
#pragma unroll
            for (int c = 0; c < 3; ++c) v[s][rr][c] = in && (uint32_t)(iw0 + c) < (uint32_t)a.in[2] ? to_float(at[c]) : 0.f;
        }
    }

    // 3. Taps and bias to shared memory.
    if (stages)
#pragma unroll
        for (int s = 0; s < kSlabs; ++s) taps_w[s * 9 * kCout + tid] = staged[s];
    if (tid < kCout) taps_w[kTapWords + tid] = bias_value;
    __syncthreads();

    // 4. The multiply-adds, slab by slab (slabs past a.slabs: zero inputs and taps).
    float acc[kRows][kCout];
#pragma unroll
    for (int rr = 0; rr < kRows; ++rr)
#pragma unroll
        for (int j = 0; j < kCout; ++j) acc[rr][j] = taps_w[kTapWords + j];
#pragma unroll
    for (int s = 0; s < kSlabs; ++s) {
#pragma unroll
        for (int kh = 0; kh < 3; ++kh)
#pragma unroll
            for (int kw = 0; kw < 3; ++kw) {
                const float4 *tap = taps4 + (s * 9 + kh * 3 + kw) * kVectors;
                float wv[kCout];
#pragma unroll
                for (int q = 0; q < kVectors; ++q) {
                    const float4 t4 = tap[q];
                    wv[4 * q] = t4.x, wv[4 * q + 1] = t4.y, wv[4 * q + 2] = t4.z, wv[4 * q + 3] = t4.w;
                }
#pragma unroll
                for (int rr = 0; rr < kRows; ++rr)
#pragma unroll
                    for (int j = 0; j < kCout; ++j) acc[rr][j] = fmaf(v[s][rr + kh][kw], wv[j], acc[rr][j]);
            }
    }

    // 5. Epilogue: channel j of row rr at y_row(rr) + j * y_c bytes; SiLU as a compile-time
    // choice (with a runtime flag nvcc branches per element).
    if (!valid) return;
    char *y_row = reinterpret_cast<char *>(static_cast<T *>(a.y) +
                                           conv3d::offset(a.y_stride, n, group * a.cout_g + co_first, od, oh0, ow));
    // Whole chunks store unpredicated (a runtime `whole ||` per store would cost a compare each).
    auto store = [&](auto silu, auto whole) {
#pragma unroll
        for (int rr = 0; rr < kRows; ++rr, y_row += a.y_h) {
            if (oh0 + rr >= a.out_h) break;
            char *y_j = y_row;
#pragma unroll
            for (int j = 0; j < kCout; ++j, y_j += a.y_c)
                if (decltype(whole)::value || co_first + j < a.cout_g)
                    *reinterpret_cast<T *>(y_j) = from_float<T>(activate<decltype(silu)::value>(acc[rr][j]));
        }
    };
    const bool whole = co_first + kCout <= a.cout_g;
    if (a.silu != 0)
        whole ? store(std::true_type{}, std::true_type{}) : store(std::true_type{}, std::false_type{});
    else
        whole ? store(std::false_type{}, std::true_type{}) : store(std::false_type{}, std::false_type{});
}

// The kernel's arguments, or false where it does not apply (tiled.hip's other paths run).
template <typename T, int kCout> bool slab_args(const hipconv_conv3d_params &p, SlabArgs &a) {
    const int64_t cin_g = p.cin / p.groups, cout_g = p.cout / p.groups;
    const bool fixed3 = conv3d::taps_3x3_unit_hw(p);
    if (!fixed3 || cin_g * p.kernel[0] > kMaxSlabs) return false;
    // No initial frames (Tiled's other direct kernel takes them), x's w stride 1 (strides of
    // axes of extent 1 never matter).
    const bool wide = p.in[2] > 1, tall = p.in[1] > 1;
    if (p.initial_frames != nullptr || (wide && p.x_stride[4] != 1)) return false;
    // 32-bit in-plane byte offsets: (ih * x_h + iw) * sizeof(T) for every element.
    const int64_t x_h = tall ? p.x_stride[3] : 0;
    if (x_h < 0 || (conv3d::axis_span(x_h, p.in[1]) + p.in[2]) * (int64_t)sizeof(T) > INT32_MAX) return false;
    // 32-bit tap offsets of one output channel (non-negative strides).
    if (!conv3d::channel_taps_fit_int32(p)) return false;
    // 32-bit channel offsets in y (non-negative channel stride).
    if (p.y_stride[1] < 0 || conv3d::axis_span(p.y_stride[1] * (int64_t)sizeof(T), kCout) > INT32_MAX) return false;
    const int64_t row_pairs = ceil_div(p.out[1], kRows);
    const int64_t cout_chunks = ceil_div(cout_g, kCout);
    const int64_t positions = (int64_t)p.batch * p.out[0] * row_pairs * p.out[2];
    if (positions > INT32_MAX - kSlabThreads || p.groups * cout_chunks > 65535) return false;
    a = SlabArgs{};
    a.x = p.x, a.w = p.w, a.bias = p.bias, a.y = p.y;
    a.cin_g = (int)cin_g, a.cout_g = (int)cout_g, a.cout_chunks = (int)cout_chunks, a.positions = (int)positions;
    a.out_w = (uint32_t)p.out[2], a.row_pairs = (uint32_t)row_pairs, a.out_d = (uint32_t)p.out[0];
    for (int axis = 0; axis < 3; ++axis) a.in[axis] = p.in[axis], a.pad[axis] = p.pad[axis];
    a.out_h = p.out[1];
    a.stride_d = p.stride[0];
    a.x_h = (uint32_t)(x_h * (int64_t)sizeof(T));
    a.w_kh = (int)p.w_stride[3];
    a.w_kw = (int)p.w_stride[4];
    a.slabs = (int)(cin_g * p.kernel[0]);
    a.silu = p.silu;
    a.x_n = p.x_stride[0], a.x_c = p.x_stride[1], a.x_d = p.x_stride[2];
    a.w_co = p.w_stride[0];
    for (int axis = 0; axis < conv3d::kTensorAxes; ++axis) a.y_stride[axis] = p.y_stride[axis];
    a.y_h = p.y_stride[3] * (int64_t)sizeof(T);
    a.y_c = (uint32_t)(p.y_stride[1] * (int64_t)sizeof(T));
    conv3d::slab_planes<T>(p, a.slabs, a.depth, a.x_plane);
    for (int s = 0; s < a.slabs; ++s) {
        const int ci = s / p.kernel[0], kd = s % p.kernel[0];
        a.w_tap[s] = (int)(ci * p.w_stride[1] + kd * p.w_stride[2]);
    }
    return true;
}

template <typename T, int kCout> bool try_slabs(const hipconv_conv3d_params &p, hipStream_t stream, hipconv_status_t &status) {
    SlabArgs a;
    if (!slab_args<T, kCout>(p, a)) return false;
    const dim3 grid((unsigned)ceil_div(a.positions, kSlabThreads), (unsigned)(p.groups * a.cout_chunks)), block(kSlabThreads);
    if (a.slabs <= 3)
        hipLaunchKernelGGL((conv3d_direct_slabs_kernel<T, kCout, 3>), grid, block, 0, stream, a);
    else
        hipLaunchKernelGGL((conv3d_direct_slabs_kernel<T, kCout, kMaxSlabs>), grid, block, 0, stream, a);
    status = last_launch_status();
    return true;
}

}  // namespace

// Launches the register-slab kernel where it applies (see the header) and says so; false
// where tiled.hip's other paths should run.
template <typename T> bool try_conv3d_direct_slabs(const hipconv_conv3d_params &p, hipStream_t stream, hipconv_status_t &status) {
    const int64_t cout_g = p.cout / p.groups;
    if (cout_g > 16) return false;
    return cout_g > 4 ? try_slabs<T, 8>(p, stream, status) : try_slabs<T, 4>(p, stream, status);
}

#define HIPCONV_INSTANTIATE(T) \
    template bool try_conv3d_direct_slabs<T>(const hipconv_conv3d_params &, hipStream_t, hipconv_status_t &);
HIPCONV_INSTANTIATE(__half)
HIPCONV_INSTANTIATE(hipconv_bf16)
HIPCONV_INSTANTIATE(float)
#undef HIPCONV_INSTANTIATE

}  // namespace hipconv
