/*
 * Direct, channel-last: the streaming causal conv1d with channels along the lanes, for
 * compiled widths 1 .. kNarrowMaxWidth.
 *
 *   in   x [batch, seqlen, dim] by strides, w [dim, width], bias [dim] or NULL
 *   out  y [batch, seqlen, dim] by strides
 *        y[b,c,t] = act(bias[c] + sum_tap w[c,tap] * x[b,c,t+tap-(width-1)]),  x[..,<0] = 0
 *
 * A thread owns kVec channels of one batch row and kStep consecutive times. It issues all
 * of its loads up front (the width-1 rows before its first time, then its kStep rows),
 * then computes and stores its kStep output rows. Bytes in flight come from occupancy and
 * these independent loads; no shared memory, no barrier.
 *
 *                 channels ->   lane 0      lane 1      ...          (kVec channels each)
 *   t-width+1 .. t-1            history     history                  loaded (halo, L2 hits)
 *   t .. t+kStep-1              rows        rows                     loaded, computed, written
 *
 * kVec = 16 / sizeof(T) (16-byte loads and stores) where channels are contiguous, dim is a
 * multiple of kVec and every row start is 16-byte aligned; kVec = 1 (one element per
 * access, any strides) otherwise. Either way neighbouring lanes touch neighbouring
 * channels, so each row access of a wave is one contiguous span. The taps and biases of
 * the group stay in registers in their storage type (16-byte loads) and are widened at use.
 * Small aligned problems, and 16-bit ones below kMidElements whose words fill whole blocks, take
 * kVec = 4 / sizeof(T) instead (the word kernel: one 4-byte word, 2 16-bit channels or 1
 * f32, a lane): a lane's taps are then one 16-byte vector at width 4, and a wave's tap load
 * one contiguous 512-byte span, where lanes of 16-byte packs load 4 vectors each, 64 bytes
 * apart from their neighbours' (a wave's 4 tap loads touching 16-32 cache lines). In the
 * one-round kernel of small problems those scattered tap loads were what set the time:
 * with every lane reading the same taps the seed shape ran 0.1-0.15 us faster (H100), and
 * the word kernel runs as fast as that.
 * SiLU is a template argument (activation.h; activate_to: 16-bit outputs take the
 * one-MUFU tanh form): with a runtime flag every output's SiLU
 * chain sat in its own branch, and 16-bit bias+SiLU rows ran at 78-81% of copy instead of
 * 94-96% (H100, docs/PERFORMANCE.md).
 *
 * Launch: kThreads threads. The pack kernels: a flat grid, one thread per (batch, step of
 * kStep times, channel group), channel group fastest, kStep = kStepLarge. The word kernel:
 * a three-axis grid (channel words × steps of kStep times × batch rows, blocks of
 * min(words, kThreads) words by the steps that fill kThreads), which spares each thread
 * two divisions before its loads; kStep = kWordStepSmall below kSmallElements (one round
 * of loads), kWordStepMid above.
 * Launches are chained (dependent_launch.h): every block first waits for the kernels
 * before it in the stream, then lets the next launch, so back-to-back launches overlap
 * their starts and the boundary pass that follows a forward with states or a packed batch
 * starts during the last blocks.
 */
#include <type_traits>

#include "activation.h"
#include "compat.h"
#include "dependent_launch.h"
#include "direct_paths.h"
#include "element.h"
#include "hipconv/conv1d.h"
#include "launch.h"
#include "packed.h"
#include "vector_rows.h"

namespace hipconv {

namespace {

constexpr int kThreads = 128;
constexpr int kStepLarge = 8;  // rows per thread of 16-byte packs
constexpr int kStepMid = 4;    // the same below kMidElements where the word kernel does not run
// Aligned rows below this many elements take the word kernel (one 4-byte word of channels
// a thread: 2 16-bit channels or 1 f32; in 16-bit past kSmallElements only where the words
// fill whole blocks, else 16-byte packs of kStepMid rows), past it the 16-byte packs of
// kStepLarge rows. f32 past kSmallElements takes those packs too: at (4,2048,2048,4) its
// words of 4 rows ran 41.1 us (77% of copy) on an H200 and the packs of 8 rows 35.1 (91%);
// a lane's 28 bytes in flight (7 rows of one f32) covered an H100's bandwidth-latency
// product (46.9-47.2 us there, 47.5 for words of 8 rows), not an H200's.
constexpr int64_t kMidElements = int64_t(1) << 25;
// The word kernel's rows per thread (H100, docs/PERFORMANCE.md): below kSmallElements 4
// (seed shape f16 / f32 1.63 / 1.69 us, against 1.60 / 1.72 at 2 rows and 1.64 / 1.75 at
// 8), above it 8 in 16-bit and 4 in f32 ((4,2048,2048,4) f16 25.1-25.3 us at 8, 25.6 at 4,
// 25.5-25.7 for 16-byte packs of 4; f32 46.9-47.2 at 4, 47.5 at 8; (1,64,65536,4) f16 7.6
// against 8.0 for the packs).
constexpr int64_t kSmallElements = int64_t(1) << 22;
constexpr int kWordStepSmall = 4;
constexpr int kWordStepMid = 8;  // 16-bit only
template <typename T> constexpr int kWordVec = 4 / (int)sizeof(T);  // channels a word
constexpr int kMaxGridRows = 65535;  // the grid's y and z limit

// kVec consecutive channels of one row: one 16-byte access ...
template <typename T, int kVec> struct ChannelPack {
    static_assert(kVec * sizeof(T) == 16, "a pack is one 16-byte vector or one element");
    uint4 raw;
    __device__ void load(const T *src, bool inside) {
        raw = inside ? *reinterpret_cast<const uint4 *>(src) : make_uint4(0, 0, 0, 0);
    }
    __device__ float get(int i) const { return unpack<T>(raw, i); }
};

// ... or two 16-bit elements, one 4-byte access ...
template <typename T> struct ChannelPack<T, 2> {
    static_assert(sizeof(T) == 2, "a pair is one 4-byte word of 16-bit elements");
    uint32_t raw;
    __device__ void load(const T *src, bool inside) { raw = inside ? *reinterpret_cast<const uint32_t *>(src) : 0u; }
    __device__ float get(int i) const { return bits_to_float(T(), raw, i); }
};

// ... or one element.
template <typename T> struct ChannelPack<T, 1> {
    float value;
    __device__ void load(const T *src, bool inside) { value = inside ? to_float(*src) : 0.f; }
    __device__ float get(int) const { return value; }
};

// kCount consecutive elements (taps or biases) of a channel group: 16-byte loads where
// the count fills whole vectors (the launcher checks the alignment of w and bias), else
// element by element; kept in T and widened to fp32 at use.
template <typename T, int kCount, bool kWhole = kCount * sizeof(T) % 16 == 0> struct TapPack {
    static constexpr int kPerVector = 16 / sizeof(T);
    uint4 raw[kCount / kPerVector];
    __device__ void load(const T *src) {
#pragma unroll
        for (int v = 0; v < kCount / kPerVector; ++v) raw[v] = reinterpret_cast<const uint4 *>(src)[v];
    }
    __device__ float get(int e) const { return unpack<T>(raw[e / kPerVector], e % kPerVector); }
};

template <typename T, int kCount> struct TapPack<T, kCount, false> {
    float value[kCount];
    __device__ void load(const T *src) {
#pragma unroll
        for (int e = 0; e < kCount; ++e) value[e] = to_float(src[e]);
    }
    __device__ float get(int e) const { return value[e]; }
};

template <typename T, int kVec> __device__ inline void store_pack(T *dst, const float *v) {
    if constexpr (kVec * sizeof(T) == 16) {
        *reinterpret_cast<uint4 *>(dst) = pack<T>(v);
    } else if constexpr (kVec == 2) {
        *reinterpret_cast<uint32_t *>(dst) = float_to_bits(T(), v[0]) | float_to_bits(T(), v[1]) << 16;
    } else {
        *dst = from_float<T>(v[0]);
    }
}

// One thread's work: channels c0 .. c0+kVec-1 of batch row b at times t_begin ..
// t_begin+kStep-1 (those before seqlen).
template <typename T, int kWidth, int kVec, int kStep, bool kSilu, bool kAlignedTaps = (kVec != 1)>
__device__ inline void convolve_rows(const hipconv_conv1d_params &p, int b, int t_begin, int c0) {
    constexpr int kHistory = kWidth - 1;
    // x and y at (b, t_begin, c0); t_begin < seqlen.
    const T *x = static_cast<const T *>(p.x) + b * p.x_batch_stride + t_begin * p.x_seq_stride + c0 * p.x_dim_stride;
    T *y = static_cast<T *>(p.y) + b * p.y_batch_stride + t_begin * p.y_seq_stride + c0 * p.y_dim_stride;
    const T *bias = static_cast<const T *>(p.bias);

    // rows[0 .. kHistory-1]: the history, zero before the row's start; rows[kHistory ..]:
    // this thread's times, zero past seqlen. A row outside is addressed but never read (its
    // load is predicated off); selecting an in-range address for it instead cost 16-50 more
    // instructions before the first load (sm_90).
    ChannelPack<T, kVec> rows[kHistory + kStep];
#pragma unroll
    for (int j = 0; j < kStep; ++j) rows[kHistory + j].load(x + j * p.x_seq_stride, j == 0 || t_begin + j < p.seqlen);
#pragma unroll
    for (int r = 0; r < kHistory; ++r) rows[r].load(x - (kHistory - r) * p.x_seq_stride, t_begin >= kHistory - r);
    // (Vector loads only where kAlignedTaps: the element path does not check w's alignment.)
    TapPack<T, kVec * kWidth, kAlignedTaps && kVec * kWidth * sizeof(T) % 16 == 0> taps;
    taps.load(static_cast<const T *>(p.w) + (int64_t)c0 * kWidth);
    TapPack<T, kVec> biases;
    if (bias != nullptr) biases.load(bias + c0);

#pragma unroll
    for (int j = 0; j < kStep; ++j) {
        if (t_begin + j >= p.seqlen) break;
        float out[kVec];
#pragma unroll
        for (int i = 0; i < kVec; ++i) {
            float acc = bias != nullptr ? biases.get(i) : 0.f;
#pragma unroll
            for (int k = 0; k < kWidth; ++k) acc += taps.get(i * kWidth + k) * rows[j + k].get(i);
            out[i] = activate_to<kSilu, T>(acc);
        }
        store_pack<T, kVec>(y + j * p.y_seq_stride, out);
    }
}

// Any problem: thread id = (batch row · steps + step) · groups + channel group.
// bf16 with SiLU: at least 5 blocks an SM on NVIDIA (at most 96 registers). Its packs of 8
// rows at width 4 took 110 registers, 4 blocks (f16 and f32: 80, 6 blocks); capped, they
// keep 4 bytes in local memory and ran 69.2-69.4 us at (8,4096,2048,4) against 72.3-72.6,
// 85.1-85.5 at (4,5120,4096,4) against 89.7-89.9 (H200). Without SiLU the cap was level
// (105 registers, 12 bytes spilled under it), and f16 with SiLU under it 3% slower (the
// same 80 registers, renamed); a cap of 6 blocks (80 registers) spilled more and was level
// (forty-second session).
template <typename T, bool kSilu> struct PackOccupancy {  // 0: no minimum (the code of no bound)
    static constexpr int kBlocksPerSm = kSilu && std::is_same<T, hipconv_bf16>::value ? 5 : 0;
};
template <typename T, int kWidth, int kVec, int kStep, bool kSilu>
__global__ void HIPCONV_BOUNDS_NVIDIA(kThreads, (PackOccupancy<T, kSilu>::kBlocksPerSm))
    conv1d_direct_channel_last_kernel(hipconv_conv1d_params p, int64_t groups, int64_t steps, int64_t threads) {
    begin_chained_kernel();  // after the kernels before it; the next (the boundary pass) may start
    const int64_t id = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (id >= threads) return;
    const QuotientRemainder by_group = divide(id, groups);
    const QuotientRemainder by_step = divide(by_group.quotient, steps);
    convolve_rows<T, kWidth, kVec, kStep, kSilu>(p, (int)by_step.quotient, (int)by_step.remainder * kStep,
                                                 (int)by_group.remainder * kVec);
}

// The word kernel, kStep times of one 4-byte word of channels per thread: the grid's axes
// are the words (x), steps of times (y) and batch rows (z), so a thread finds its place
// without the two divisions and the 64-bit index arithmetic of the flat kernel above (about
// 190 of its 220 instructions before the first load, sm_90), where for small problems one
// round of loads is the whole kernel. The launcher has checked the 16-byte alignment of the
// rows, w and bias, so the taps load as vectors (kAlignedTaps).
template <typename T, int kWidth, int kStep, bool kSilu>
__global__ void __launch_bounds__(kThreads) conv1d_direct_channel_last_words_kernel(hipconv_conv1d_params p) {
    begin_chained_kernel();  // after the kernels before it; the next (the boundary pass) may start
    constexpr int kVec = kWordVec<T>;
    const int word = blockIdx.x * blockDim.x + threadIdx.x;
    const int t = (blockIdx.y * blockDim.y + threadIdx.y) * kStep;
    if (word >= p.dim / kVec || t >= p.seqlen) return;
    convolve_rows<T, kWidth, kVec, kStep, kSilu, true>(p, (int)blockIdx.z, t, word * kVec);
}

template <typename T, int kWidth, int kVec, int kStep>
hipconv_status_t launch_pack(const hipconv_conv1d_params &p, hipStream_t stream) {
    const int64_t groups = p.dim / kVec;
    const int64_t steps = ceil_div(p.seqlen, kStep);
    const int64_t threads = groups * p.batch * steps;
    const int64_t blocks = ceil_div(threads, kThreads);
    if (blocks > INT32_MAX) return (hipconv_status_t)hipErrorInvalidValue;
    return with_silu(p.silu != 0, [&](auto silu) {
        return launch_chained(conv1d_direct_channel_last_kernel<T, kWidth, kVec, kStep, decltype(silu)::value>,
                           dim3((unsigned)blocks), dim3(kThreads), 0, stream, p, groups, steps, threads);
    });
}

// The word kernel: blocks of `words` (at most kThreads) channel words by as many steps of
// kStep times as fill kThreads threads.
template <typename T, int kWidth, int kStep>
hipconv_status_t launch_words(const hipconv_conv1d_params &p, hipStream_t stream) {
    const int words = p.dim / kWordVec<T>;
    const int across = words < kThreads ? words : kThreads;
    const dim3 block((unsigned)across, (unsigned)(kThreads / across));
    const dim3 grid((unsigned)ceil_div(words, block.x), (unsigned)ceil_div(p.seqlen, block.y * kStep),
                    (unsigned)p.batch);
    if (grid.y > kMaxGridRows || grid.z > kMaxGridRows)
        return launch_pack<T, kWidth, Vec16<T>::kCount, kStepMid>(p, stream);
    return with_silu(p.silu != 0, [&](auto silu) {
        return launch_chained(conv1d_direct_channel_last_words_kernel<T, kWidth, kStep, decltype(silu)::value>, grid,
                              block, 0, stream, p);
    });
}

template <typename T, int kWidth> hipconv_status_t launch_width(const hipconv_conv1d_params &p, hipStream_t stream) {
    const bool vectors = rows_vectorizable<T, true>(p.x, p.x_batch_stride, p.x_dim_stride, p.x_seq_stride, p.dim,
                                                    p.seqlen) &&
                         rows_vectorizable<T, true>(p.y, p.y_batch_stride, p.y_dim_stride, p.y_seq_stride, p.dim,
                                                    p.seqlen) &&
                         (reinterpret_cast<uintptr_t>(p.w) & 15) == 0 &&
                         (reinterpret_cast<uintptr_t>(p.bias) & 15) == 0;
    const int64_t elements = (int64_t)p.batch * p.dim * p.seqlen;
    if (!vectors) return launch_pack<T, kWidth, 1, kStepLarge>(p, stream);
    if (elements < kSmallElements) return launch_words<T, kWidth, kWordStepSmall>(p, stream);
    // Mid sizes, 16-bit: the word kernel only where its words fill whole blocks
    // ((7,776,1000,2) f16, 388 words in 4 blocks of 128: 9.8 us against 9.6 for the packs,
    // H100), else the packs of kStepMid rows.
    if constexpr (sizeof(T) == 2) {
        if (elements < kMidElements) {
            const int words = p.dim / kWordVec<T>;
            const bool whole_blocks = words <= kThreads ? kThreads % words == 0 : words % kThreads == 0;
            return whole_blocks ? launch_words<T, kWidth, kWordStepMid>(p, stream)
                                : launch_pack<T, kWidth, Vec16<T>::kCount, kStepMid>(p, stream);
        }
    }
    return launch_pack<T, kWidth, Vec16<T>::kCount, kStepLarge>(p, stream);
}

}  // namespace

template <typename T> bool direct_channel_last_fits(const hipconv_conv1d_params &p) {
    return p.width >= 1 && p.width <= kNarrowMaxWidth && p.x_dim_stride < p.x_seq_stride;
}

template <typename T> hipconv_status_t launch_direct_channel_last(const hipconv_conv1d_params &p, hipStream_t stream) {
    switch (p.width) {
    case 1: return launch_width<T, 1>(p, stream);
    case 2: return launch_width<T, 2>(p, stream);
    case 3: return launch_width<T, 3>(p, stream);
    case 4: return launch_width<T, 4>(p, stream);
    default: return (hipconv_status_t)hipErrorInvalidValue;
    }
}

#define HIPCONV_INSTANTIATE(T)                                                       \
    template bool direct_channel_last_fits<T>(const hipconv_conv1d_params &);        \
    template hipconv_status_t launch_direct_channel_last<T>(const hipconv_conv1d_params &, hipStream_t);
HIPCONV_INSTANTIATE(__half)
HIPCONV_INSTANTIATE(hipconv_bf16)
HIPCONV_INSTANTIATE(float)
#undef HIPCONV_INSTANTIATE

}  // namespace hipconv
