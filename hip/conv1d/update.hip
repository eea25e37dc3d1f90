/*
 * Decode-time update (hipconv/conv1d.h, hipconv_conv1d_update_params): the outputs of a few
 * new tokens per row against each row's rolling state, and the state advanced in place.
 *
 *   in   x [batch, dim, seqlen] by strides (channel-first or channel-last), w [dim, width],
 *        bias [dim] or NULL, state_indices [batch] or NULL, cache_seqlens [batch] or NULL
 *   io   conv_state [n_slots, dim, state_len], row (slot, c) contiguous
 *   out  y [batch, dim, seqlen] by strides; status word on an index error
 * The kernels take UpdateArgs: the params' fields, flattened (see there why).
 *
 * History of row b, channel c at time tau < 0 (tau >= -(width-1)):
 *   shifting state:  conv_state[slot, c, state_len + tau]
 *   circular buffer: conv_state[slot, c, (cache_seqlens[b] + tau) mod state_len]
 * New state: shifting, the last state_len values of (state, x); circular, x[t] at
 * (cache_seqlens[b] + t) mod state_len for the last min(seqlen, state_len) tokens.
 * A padding row (slot < 0) gets y = 0 and no state access; a bad row (slot >= n_slots or a
 * negative cache_seqlen) is reported in the status word, gets y = NaN, and its state is
 * not touched.
 *
 * conv1d_update_grouped, (width, state_len) in {(2,1), (3,2), (4,3), (4,4)}, when x and y
 * each have one of the row layouts below and every access below is aligned. One thread per
 * (row, group): a group is kUpdateGroupWords = 2 words of channels (G = 4 16-bit channels,
 * 2 f32), and every per-group span is contiguous, so a wave's accesses are too:
 *
 *   lane:        0         1         2       ...
 *   w [dim, W]   |G*W elems|G*W elems|G*W ...     taps: 8 words a lane at W = 4 (2 x 16 B)
 *   state        |G*L elems|G*L elems|...         L = state_len; 6 words at L = 3 (3 x 8 B)
 *   x/y block    |G*S elems|G*S elems|...         channel-first, S = seqlen <= 4 tokens
 *   x/y vectors  |G elems  |G elems  |...         dim_stride 1: one 8-byte load per token
 *
 * Each span moves in the widest aligned access (vector_words: 16, 8 or 4 bytes). The
 * thread keeps the state in registers in the slot's order. It takes each channel's history
 * into time order as it reads it, slides it one place per token, and writes it back whole.
 * A circular slot's history is rotated by the row's position, cache_seqlens[b] mod L, so a
 * circular slot moves exactly the bytes of a shifting one, and its unchanged positions get
 * their own bits again. x and y move in chunks of kChunk tokens: 1 (seqlen 1), the whole
 * block (block layout, seqlen 2..4), else 4. A whole chunk runs a path compiled for its
 * token count and, circular, for the row's rotation (with_rotation: L paths, one taken per
 * row), so every register index is a compile-time constant and a rotation is a renaming of
 * registers; only a partial last chunk (seqlen > 4, not a multiple of 4) rotates with
 * selects.
 *
 * Arithmetic is in fp32. SiLU uses the hardware's exponential and division as in the
 * forward (activation.h); it is a template argument of the grouped kernel and a runtime
 * flag in the generic one. All loads that need no slot (x, w, bias, cache_seqlens) are
 * issued before the state's. The state's wait only for state_indices[b]: they are taken
 * for any slot in range, and stored only for a row that is ok. The channels past the last
 * whole group (dim not a multiple of G) go to the generic kernel, launched after it.
 *   Launch: 128 threads along the channel groups of one row; grid (ceil(groups/128),
 *   min(batch, 65535), ceil(batch / that)), row = blockIdx.z * gridDim.y + blockIdx.y.
 *
 * conv1d_update_generic: anything else (any width, state_len, strides, alignment), or the
 * tail channels first_channel.. of the grouped launch. One thread per (row, channel),
 * element accesses, the circular position computed once.
 *   Launch: 256 threads, grid-stride over batch * channels, channel fastest.
 *
 * Either kernel reads all of a thread's history before it writes the new state, and no
 * two threads share a state element, so the update is in place without a barrier
 * (distinct rows must use distinct slots). Both launches are chained
 * (dependent_launch.h): every block first waits for the kernels before it in the stream
 * (the previous step's state writes among them), then lets the next launch, so a decode
 * loop's back-to-back steps overlap their starts.
 */
#include <type_traits>

#include "activation.h"
#include "compat.h"
#include "dependent_launch.h"
#include "element.h"
#include "hipconv/conv1d.h"
#include "launch.h"
#include "status.h"

namespace hipconv {

constexpr int kUpdateThreads = 128;         // grouped kernel: channel groups of one row
constexpr int kUpdateGenericThreads = 256;  // generic kernel: (row, channel) pairs
constexpr int kUpdateMaxGridRows = 65535;   // grid y limit; rows = blockIdx.z * gridDim.y + blockIdx.y
constexpr int kUpdateChunk = 4;             // tokens per chunk when seqlen > 1

// How the grouped kernel moves the x or y rows of a (full) channel group.
enum UpdateRows : int32_t {
    kRowsNone = 0,            // neither fits: the launcher takes the generic kernel
    kRowsChannelVectors = 1,  // the group's channels of one token, contiguous
    kRowsBlock = 2,           // the group's [channels, seqlen] block, contiguous
};

// The grouped kernel's group: kUpdateGroupWords 4-byte words of channels (4 16-bit
// channels or 2 f32), so that a wave's taps, state and x/y blocks are contiguous spans of
// 8-32 bytes a lane. Measured on an H100 (docs/PERFORMANCE.md, thirty-fifth session)
// against 16-byte groups (8 16-bit channels, 4 f32) and 1-word groups: 16-byte groups
// moved four-token blocks as 64 bytes a lane, 1-word groups paid 55% more instructions.
constexpr int kUpdateGroupWords = 2;

// NVIDIA: the grouped kernel's register budget, 65536 / (128 * 8) = 64 registers, so that 8
// blocks of kUpdateThreads share an SM: the fastest for the four-token steps against 6, 7
// and 10 blocks and no bound, though the 16-bit four-token kernels of width 4 keep 8-16
// bytes in local memory under it. AMD maps the second bound onto waves per SIMD instead,
// so AMD keeps the plain bound.
#if defined(HIPCONV_PLATFORM_NVIDIA)
#define HIPCONV_UPDATE_BOUNDS __launch_bounds__(kUpdateThreads, 8)
#else
#define HIPCONV_UPDATE_BOUNDS __launch_bounds__(kUpdateThreads)
#endif

// The fields of hipconv_conv1d_update_params that the kernels read, flattened: pointers, the
// 32-bit sizes side by side, then the strides. Passing the ABI struct itself (the forward's
// params embedded as p.conv) moves the fields in param space, which changes how the
// compiler pairs their loads: on sm_90 ptxas then gave some grouped kernels up to 10 more
// registers, one block fewer per SM under their register budget. With this layout the
// kernels' machine code is the one they were measured with.
struct UpdateArgs {
    const void *x;
    const void *w;
    const void *bias;
    void *y;
    void *conv_state;
    const int32_t *state_indices;
    const int32_t *cache_seqlens;
    int32_t *status;
    int32_t batch;
    int32_t dim;
    int32_t seqlen;
    int32_t width;
    int32_t n_slots;
    int32_t state_len;
    int64_t x_batch_stride;
    int64_t x_dim_stride;
    int64_t x_seq_stride;
    int64_t y_batch_stride;
    int64_t y_dim_stride;
    int64_t y_seq_stride;
    int32_t silu;

    static UpdateArgs of(const hipconv_conv1d_update_params &p) {
        const hipconv_conv1d_params &c = p.conv;
        return {c.x,
                c.w,
                c.bias,
                c.y,
                p.conv_state,
                p.state_indices,
                p.cache_seqlens,
                p.status,
                c.batch,
                c.dim,
                c.seqlen,
                c.width,
                p.n_slots,
                p.state_len,
                c.x_batch_stride,
                c.x_dim_stride,
                c.x_seq_stride,
                c.y_batch_stride,
                c.y_dim_stride,
                c.y_seq_stride,
                c.silu};
    }
};

struct UpdatePlan {
    int32_t groups;  // whole groups of a row: dim / group channels
    int32_t x_rows;  // UpdateRows
    int32_t y_rows;  // UpdateRows
};

// The raw bits of one element; 16-bit types travel in the low half of a uint32_t. State
// and x values move as bits, so the state keeps exactly the bits it was given.
template <typename T> struct UpdateBits;
template <> struct UpdateBits<__half> {
    __device__ static float to_float(uint32_t b) {
#if defined(HIPCONV_PLATFORM_AMD)
        // The word as two f16 lanes, not a 16-bit truncation: clang 15 folds truncations of
        // 3-element bit arrays into <6 x half> bitcasts, which its backend lowers via scratch.
        typedef _Float16 f16x2 __attribute__((ext_vector_type(2)));
        return (float)__builtin_bit_cast(f16x2, b)[0];
#else
        return __half2float(__ushort_as_half((unsigned short)b));
#endif
    }
    __device__ static uint32_t of(float v) { return __half_as_ushort(__float2half_rn(v)); }
};
template <> struct UpdateBits<hipconv_bf16> {
    __device__ static float to_float(uint32_t b) { return __uint_as_float(b << 16); }
    __device__ static uint32_t of(float v) {
        const hipconv_bf16 h = from_float<hipconv_bf16>(v);
        uint16_t bits;
        __builtin_memcpy(&bits, &h, sizeof(bits));
        return bits;
    }
};
template <> struct UpdateBits<float> {
    __device__ static float to_float(uint32_t b) { return __uint_as_float(b); }
    __device__ static uint32_t of(float v) { return __float_as_uint(v); }
};

// Element e of packed words (a word = 4 / sizeof(T) elements); put() ORs into zeroed
// words, replace() overwrites.
template <typename T> __device__ inline uint32_t element(const uint32_t *words, int e) {
    if constexpr (sizeof(T) == 4) return words[e];
    else return (words[e >> 1] >> ((e & 1) * 16)) & 0xffffu;
}
template <typename T> __device__ inline void put(uint32_t *words, int e, uint32_t bits) {
    if constexpr (sizeof(T) == 4) words[e] = bits;
    else words[e >> 1] |= bits << ((e & 1) * 16);
}
template <typename T> __device__ inline void replace(uint32_t *words, int e, uint32_t bits) {
    if constexpr (sizeof(T) == 4) {
        words[e] = bits;
    } else {
        const int shift = (e & 1) * 16;
        words[e >> 1] = (words[e >> 1] & ~(0xffffu << shift)) | (bits << shift);
    }
}

// ------------------------------------------------------------------ rows and channels

// What a row does: ok (state advanced), or y filled with `fill` and no state access (a
// padding row: 0; a bad row: NaN, reported by the caller that passes report).
struct RowCheck {
    bool ok;
    int32_t cache_seqlen;
    float fill;
};

__device__ inline RowCheck check_row(const UpdateArgs &p, int64_t row, int slot, int32_t cache_seqlen,
                                    bool report) {
    if (slot < 0) return RowCheck{false, 0, 0.f};  // padding row
    const bool bad_slot = slot >= p.n_slots, bad_cache = cache_seqlen < 0;
    if (!bad_slot && !bad_cache) return RowCheck{true, cache_seqlen, 0.f};
    if (report && bad_slot) report_index_error(p.status, HIPCONV_STATUS_SLOT_OUT_OF_RANGE, row, slot);
    if (report && bad_cache) report_index_error(p.status, HIPCONV_STATUS_NEGATIVE_CACHE_SEQLEN, row, cache_seqlen);
    return RowCheck{false, cache_seqlen, __int_as_float(0x7fc00000)};
}

// The slot and cache_seqlen of a row (cache_seqlens is read even for a padding row: the
// two loads are then independent, and the value is not used).
__device__ inline int row_slot(const UpdateArgs &p, int64_t row) {
    return p.state_indices != nullptr ? p.state_indices[row] : (int)row;
}
// (32 bits as stored: widened to 64 at its load, the f32 circular kernels' x loads waited
// for it ahead of x's layout branch, sm_90.)
__device__ inline int32_t row_cache_seqlen(const UpdateArgs &p, int64_t row) {
    return p.cache_seqlens != nullptr ? p.cache_seqlens[row] : 0;
}

// One (row, channel) with element accesses, for any width and state_len: y of every token,
// then the new state (or only y = check.fill for a row that is not ok).
template <typename T>
__device__ inline void update_channel(const UpdateArgs &p, int64_t row, int c, int slot, const RowCheck &check) {
    T *y_row = static_cast<T *>(p.y) + row * p.y_batch_stride + (int64_t)c * p.y_dim_stride;
    if (!check.ok) {
        for (int t = 0; t < p.seqlen; ++t) y_row[t * p.y_seq_stride] = from_float<T>(check.fill);
        return;
    }
    const bool circular = p.cache_seqlens != nullptr;
    const int history = p.width - 1;
    const T *x_row = static_cast<const T *>(p.x) + row * p.x_batch_stride + (int64_t)c * p.x_dim_stride;
    T *state = static_cast<T *>(p.conv_state) + ((int64_t)slot * p.dim + c) * p.state_len;
    const T *w_row = static_cast<const T *>(p.w) + (int64_t)c * p.width;
    const float b_c = p.bias != nullptr ? to_float(static_cast<const T *>(p.bias)[c]) : 0.f;
    // Time tau in [-history, 0) sits at position origin + tau (+ state_len if negative):
    // shifting, origin = state_len; circular, origin = cache_seqlen mod state_len.
    const int origin = !circular        ? p.state_len
                       : p.state_len > 0 ? (int)((uint32_t)check.cache_seqlen % (uint32_t)p.state_len)
                                         : 0;
    for (int t = 0; t < p.seqlen; ++t) {
        float acc = b_c;
        for (int tap = 0; tap < p.width; ++tap) {
            const int64_t tau = (int64_t)t + tap - history;
            T v;
            if (tau >= 0) {
                v = x_row[tau * p.x_seq_stride];
            } else {
                const int position = origin + (int)tau;
                v = state[position < 0 ? position + p.state_len : position];
            }
            acc += to_float(w_row[tap]) * to_float(v);
        }
        y_row[t * p.y_seq_stride] = from_float<T>(activate_fast(acc, p.silu != 0));
    }
    if (circular) {
        // x[t] goes to (cache_seqlen + t) mod state_len for the last min(seqlen, state_len) t.
        const int first = p.seqlen > p.state_len ? p.seqlen - p.state_len : 0;
        int position = p.state_len > 0 ? (int)((origin + (uint32_t)first % p.state_len) % p.state_len) : 0;
        for (int t = first; t < p.seqlen; ++t) {
            state[position] = x_row[(int64_t)t * p.x_seq_stride];
            if (++position == p.state_len) position = 0;
        }
    } else {
        // Ascending k reads position k + seqlen before anything at or after it is written.
        for (int k = 0; k < p.state_len; ++k) {
            const int64_t source = (int64_t)k + p.seqlen;
            state[k] = source < p.state_len ? state[source] : x_row[(source - p.state_len) * p.x_seq_stride];
        }
    }
}

// ------------------------------------------------------------------ grouped kernel

// A group is kWords 4-byte words of channels: kWords * 4 / sizeof(T) channels.
template <typename T, int kWords> __host__ __device__ constexpr int group_channels() {
    return kWords * 4 / (int)sizeof(T);
}

// The widest access that moves n consecutive words at an address aligned to it: 4, 2 or 1
// words (the launcher checks the alignment of every base and stride against it).
__host__ __device__ constexpr int vector_words(int n) { return n % 4 == 0 ? 4 : n % 2 == 0 ? 2 : 1; }

// kN consecutive words at p (zeros where !ok) and back, in accesses of vector_words(kN).
template <int kN> __device__ inline void load_words(bool ok, const void *p, uint32_t *dst) {
    constexpr int kV = vector_words(kN);
#pragma unroll
    for (int q = 0; q < kN / kV; ++q) {
        if constexpr (kV == 4) {
            const uint4 v = ok ? static_cast<const uint4 *>(p)[q] : make_uint4(0, 0, 0, 0);
            dst[4 * q] = v.x, dst[4 * q + 1] = v.y, dst[4 * q + 2] = v.z, dst[4 * q + 3] = v.w;
        } else if constexpr (kV == 2) {
            const uint2 v = ok ? static_cast<const uint2 *>(p)[q] : make_uint2(0, 0);
            dst[2 * q] = v.x, dst[2 * q + 1] = v.y;
        } else {
            dst[q] = ok ? static_cast<const uint32_t *>(p)[q] : 0u;
        }
    }
}
template <int kN> __device__ inline void store_words(void *p, const uint32_t *src) {
    constexpr int kV = vector_words(kN);
#pragma unroll
    for (int q = 0; q < kN / kV; ++q) {
        if constexpr (kV == 4)
            static_cast<uint4 *>(p)[q] = make_uint4(src[4 * q], src[4 * q + 1], src[4 * q + 2], src[4 * q + 3]);
        else if constexpr (kV == 2)
            static_cast<uint2 *>(p)[q] = make_uint2(src[2 * q], src[2 * q + 1]);
        else
            static_cast<uint32_t *>(p)[q] = src[q];
    }
}

// The x and y rows of a full group, for tokens t0 .. t0+n-1 (n <= kChunk) as tokens[u] =
// the group's channels of token t0 + u:
//   channel vectors: kWords words per token;
//   block (launched only with seqlen = kChunk = dim_stride, seq_stride 1): kWords * kChunk
//     words, element (j, u) at j*kChunk + u.
// Local arrays are written unconditionally (conditional values, not conditional stores),
// which keeps them in registers.
template <int kChunk> __device__ inline bool block_rows(int mode) { return kChunk > 1 && mode == kRowsBlock; }

template <typename T, int kWords, int kChunk>
__device__ inline void load_tokens(const T *row, int64_t seq_stride, int mode, int c0, int t0, int n,
                                   uint32_t (&tokens)[kChunk][kWords]) {
    constexpr int kChannels = group_channels<T, kWords>();
    if (!block_rows<kChunk>(mode)) {
#pragma unroll
        for (int u = 0; u < kChunk; ++u)
            load_words<kWords>(u < n, row + c0 + (int64_t)(t0 + u) * seq_stride, tokens[u]);
        return;
    }
    uint32_t words[kWords * kChunk];
    load_words<kWords * kChunk>(n > 0, row + (int64_t)c0 * kChunk, words);
#pragma unroll
    for (int u = 0; u < kChunk; ++u) {
#pragma unroll
        for (int q = 0; q < kWords; ++q) tokens[u][q] = 0;
#pragma unroll
        for (int j = 0; j < kChannels; ++j) put<T>(tokens[u], j, element<T>(words, j * kChunk + u));
    }
}

template <typename T, int kWords, int kChunk>
__device__ inline void store_tokens(T *row, int64_t seq_stride, int mode, int c0, int t0, int n,
                                    const uint32_t (&tokens)[kChunk][kWords]) {
    constexpr int kChannels = group_channels<T, kWords>();
    if (!block_rows<kChunk>(mode)) {
#pragma unroll
        for (int u = 0; u < kChunk; ++u)
            if (u < n) store_words<kWords>(row + c0 + (int64_t)(t0 + u) * seq_stride, tokens[u]);
        return;
    }
    uint32_t words[kWords * kChunk] = {};
#pragma unroll
    for (int e = 0; e < kChannels * kChunk; ++e) put<T>(words, e, element<T>(tokens[e % kChunk], e / kChunk));
    store_words<kWords * kChunk>(row + (int64_t)c0 * kChunk, words);
}

// a[k] <- a[(k + s) mod kL], s in [0, kL): selects, no indexed registers; and the same for
// a compile-time s, which is only a renaming of registers.
template <int kL> __device__ inline void rotate_left(uint32_t (&a)[kL], int s) {
    uint32_t out[kL];
#pragma unroll
    for (int k = 0; k < kL; ++k) {
        out[k] = a[k];
#pragma unroll
        for (int r = 1; r < kL; ++r) out[k] = s == r ? a[(k + r) % kL] : out[k];
    }
#pragma unroll
    for (int k = 0; k < kL; ++k) a[k] = out[k];
}
template <int kL, int kS> __device__ inline void rotate_left(uint32_t (&a)[kL], std::integral_constant<int, kS>) {
    uint32_t out[kL];
#pragma unroll
    for (int k = 0; k < kL; ++k) out[k] = a[(k + kS) % kL];
#pragma unroll
    for (int k = 0; k < kL; ++k) a[k] = out[k];
}

// The value of an int or of a std::integral_constant (a compile-time constant then).
__device__ inline int value_of(int v) { return v; }
template <int kV> __device__ constexpr int value_of(std::integral_constant<int, kV>) { return kV; }

// f(std::integral_constant<int, r>) for a runtime r in [0, kL): one compiled path per value
// (r is the same for every thread of a row, so the branch does not diverge).
template <int kL, int kR = 0, class F> __device__ inline void with_rotation(int r, const F &f) {
    if constexpr (kR == kL - 1) {
        f(std::integral_constant<int, kR>{});
    } else {
        if (r == kR) f(std::integral_constant<int, kR>{});
        else with_rotation<kL, kR + 1>(r, f);
    }
}

// State words of a group: channel j's kL history elements at j*kL .. j*kL+kL-1.
template <typename T, int kL> __device__ inline void get_history(const uint32_t *words, int j, uint32_t (&h)[kL]) {
#pragma unroll
    for (int k = 0; k < kL; ++k) h[k] = element<T>(words, j * kL + k);
}
template <typename T, int kL> __device__ inline void set_history(uint32_t *words, int j, const uint32_t (&h)[kL]) {
#pragma unroll
    for (int k = 0; k < kL; ++k) replace<T>(words, j * kL + k, h[k]);
}

// One chunk of n tokens (n <= kChunk) through a group: out[u] = the outputs of token u (y =
// fill where !ok); the history in `words` (slot order) advanced by n. Channel j's history
// is rotated left by in_rot into time order as it is read, and its new history by out_rot
// back into slot order as it is written. n, in_rot and out_rot are each an int or a
// std::integral_constant: a compile-time value makes its selects disappear.
template <typename T, int kWidth, int kL, int kChunk, bool kSilu, class Count, class InRot, class OutRot>
__device__ inline void update_chunk(uint32_t (&words)[kUpdateGroupWords * kL],
                                    const uint32_t (&in)[kChunk][kUpdateGroupWords],
                                    const uint32_t (&taps)[kUpdateGroupWords * kWidth],
                                    const uint32_t (&bias)[kUpdateGroupWords], bool ok, uint32_t fill, Count n,
                                    InRot in_rot, OutRot out_rot, uint32_t (&out)[kChunk][kUpdateGroupWords]) {
    using Bits = UpdateBits<T>;
    constexpr int kWords = kUpdateGroupWords;
#pragma unroll
    for (int u = 0; u < kChunk; ++u)
#pragma unroll
        for (int q = 0; q < kWords; ++q) out[u][q] = 0;
#pragma unroll
    for (int j = 0; j < group_channels<T, kWords>(); ++j) {
        // seq: the history (oldest first), then the chunk's tokens (all kChunk, also past n,
        // so that nothing below is conditional; the extra outputs are not stored and the new
        // history is taken at n).
        uint32_t seq[kL + kChunk];
        {
            uint32_t h[kL];
            get_history<T, kL>(words, j, h);
            rotate_left<kL>(h, in_rot);
#pragma unroll
            for (int k = 0; k < kL; ++k) seq[k] = h[k];
        }
#pragma unroll
        for (int u = 0; u < kChunk; ++u) seq[kL + u] = element<T>(in[u], j);
        float tap[kWidth];
#pragma unroll
        for (int i = 0; i < kWidth; ++i) tap[i] = Bits::to_float(element<T>(taps, j * kWidth + i));
        const float b_j = Bits::to_float(element<T>(bias, j));
#pragma unroll
        for (int u = 0; u < kChunk; ++u) {
            float acc = b_j;
#pragma unroll
            for (int i = 0; i < kWidth; ++i) acc = fmaf(tap[i], Bits::to_float(seq[kL + u - (kWidth - 1) + i]), acc);
            put<T>(out[u], j, ok ? Bits::of(activate<kSilu>(acc)) : fill);
        }
        uint32_t h[kL];
#pragma unroll
        for (int k = 0; k < kL; ++k) {
            h[k] = seq[kChunk + k];
#pragma unroll
            for (int m = 1; m < kChunk; ++m) h[k] = value_of(n) == m ? seq[m + k] : h[k];
        }
        rotate_left<kL>(h, out_rot);
        set_history<T, kL>(words, j, h);
    }
}

// Whether the grouped kernel loads the row's slot after x rather than before. Loaded before
// x's layout branch, ptxas put the slot's select (`state_indices ? loaded : row`) ahead of
// that branch in the f32 kernels, and x's loads waited there for the index's round trip
// (sm_90). After x: f32 four tokens circular 17.48 -> 17.12 us with state_indices at
// (256, 4096) on an H200, the other f32 rows level. The 16-bit kernels keep the slot first:
// after x, their four-token rows ran 2-5% slower.
template <typename T> constexpr bool kSlotAfterX = sizeof(T) == 4;

// kSilu: the activation as a template argument (activation.h says why).
template <typename T, int kWidth, int kL, int kChunk, bool kSilu>
__global__ void HIPCONV_UPDATE_BOUNDS conv1d_update_grouped_kernel(UpdateArgs p, UpdatePlan plan) {
    constexpr int kWords = kUpdateGroupWords;
    constexpr int kChannels = group_channels<T, kWords>();
    static_assert(kWidth >= 2 && kL >= kWidth - 1, "the window must fit in the state");
    begin_chained_kernel();  // after the kernels before it (dependent_launch.h)
    const int group = blockIdx.x * kUpdateThreads + threadIdx.x;
    const int64_t row = (int64_t)blockIdx.z * gridDim.y + blockIdx.y;
    if (group >= plan.groups || row >= p.batch) return;
    const int c0 = group * kChannels;
    const bool circular = p.cache_seqlens != nullptr;

    // Loads that need no slot first: the row's position, taps (kChannels*kWidth contiguous),
    // bias and the first chunk of x; then the state. The slot's load goes before x's for
    // 16-bit types and after them for f32 (kSlotAfterX says why).
    const int32_t cache_seqlen = row_cache_seqlen(p, row);
    int slot = 0;
    if constexpr (!kSlotAfterX<T>) slot = row_slot(p, row);
    const T *x_row = static_cast<const T *>(p.x) + row * p.x_batch_stride;
    T *y_row = static_cast<T *>(p.y) + row * p.y_batch_stride;
    uint32_t taps[kWords * kWidth], bias[kWords], words[kWords * kL], in[kChunk][kWords];
    load_words<kWords * kWidth>(true, static_cast<const T *>(p.w) + (int64_t)c0 * kWidth, taps);
    load_words<kWords>(p.bias != nullptr, static_cast<const T *>(p.bias) + c0, bias);
    load_tokens<T, kWords, kChunk>(x_row, p.x_seq_stride, plan.x_rows, c0, 0, min(kChunk, p.seqlen), in);
    if constexpr (kSlotAfterX<T>) slot = row_slot(p, row);

    // The launcher checked that every slot's block of the group is aligned to its accesses.
    // The state is read wherever the slot is in range, so that its loads wait only for
    // state_indices[b], not for cache_seqlens[b]; it is written only for a row that is ok.
    const bool slot_in_range = slot >= 0 && slot < p.n_slots;
    T *state = static_cast<T *>(p.conv_state) + (slot_in_range ? ((int64_t)slot * p.dim + c0) * kL : 0);
    load_words<kWords * kL>(slot_in_range, state, words);
    const RowCheck check = check_row(p, row, slot, cache_seqlen, group == 0);

    // The words stay in slot order. Circular: time k - kL of the history sits at position
    // (origin + k) mod kL, origin = cache_seqlen mod kL at first and advanced by each chunk;
    // each channel's history is rotated into time order as it is read and back as it is
    // written (shifting: origin 0).
    int origin = circular ? (int)((uint32_t)check.cache_seqlen % kL) : 0;

    const uint32_t fill = UpdateBits<T>::of(check.fill);
    using Zero = std::integral_constant<int, 0>;
    using Full = std::integral_constant<int, kChunk>;
    for (int t0 = 0;;) {
        const int n = min(kChunk, p.seqlen - t0);
        uint32_t out[kChunk][kWords];
        // A whole chunk (every step of seqlen 1, or a block of 2-4 tokens, or 4 tokens at
        // a time) takes a path compiled for its count and, circular, its rotation; the last
        // chunk of a longer step, if partial, the runtime path.
        if (n == kChunk) {
            if (!circular) {
                update_chunk<T, kWidth, kL, kChunk, kSilu>(words, in, taps, bias, check.ok, fill, Full{}, Zero{},
                                                           Zero{}, out);
            } else {
                with_rotation<kL>(origin, [&](auto in_rot) {
                    constexpr int kOut = (kL - (decltype(in_rot)::value + kChunk) % kL) % kL;
                    update_chunk<T, kWidth, kL, kChunk, kSilu>(words, in, taps, bias, check.ok, fill, Full{}, in_rot,
                                                               std::integral_constant<int, kOut>{}, out);
                });
            }
        } else {
            const int out_rot = circular ? (kL - (origin + n) % kL) % kL : 0;
            update_chunk<T, kWidth, kL, kChunk, kSilu>(words, in, taps, bias, check.ok, fill, n, origin, out_rot, out);
        }
        if (circular) origin = (origin + n) % kL;  // shifting: the history stays in time order
        store_tokens<T, kWords, kChunk>(y_row, p.y_seq_stride, plan.y_rows, c0, t0, n, out);
        t0 += kChunk;
        if (t0 >= p.seqlen) break;
        load_tokens<T, kWords, kChunk>(x_row, p.x_seq_stride, plan.x_rows, c0, t0, min(kChunk, p.seqlen - t0), in);
    }

    if (check.ok) store_words<kWords * kL>(state, words);
}

// ------------------------------------------------------------------ generic kernel

// Channels first_channel .. dim-1 of every row (0: all of them; else the channels past the
// grouped kernel's last whole group, which reports the rows' index errors).
template <typename T>
__global__ void __launch_bounds__(kUpdateGenericThreads) conv1d_update_generic_kernel(UpdateArgs p, int first_channel) {
    begin_chained_kernel();  // after the kernels before it (dependent_launch.h)
    const int channels = p.dim - first_channel;
    const int64_t total = (int64_t)p.batch * channels;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < total; i += (int64_t)gridDim.x * blockDim.x) {
        const int64_t row = i / channels;
        const int c = first_channel + (int)(i - row * channels);
        const int slot = row_slot(p, row);
        update_channel<T>(p, row, c, slot, check_row(p, row, slot, row_cache_seqlen(p, row), c == 0));
    }
}

// ------------------------------------------------------------------ launch

// The generic kernel over channels first_channel .. dim-1 of every row.
template <typename T>
hipconv_status_t launch_update_generic(const UpdateArgs &p, int first_channel, hipStream_t stream) {
    const int64_t total = (int64_t)p.batch * (p.dim - first_channel);
    return launch_chained(conv1d_update_generic_kernel<T>, dim3(grid_blocks(ceil_div(total, kUpdateGenericThreads))),
                          dim3(kUpdateGenericThreads), 0, stream, p, first_channel);
}

// How the grouped kernel with groups of kWords words can move the rows of a
// [batch, dim, seqlen] tensor (UpdateRows): every row's group at an address aligned to the
// group's accesses.
template <typename T, int kWords>
int32_t vector_rows(const void *base, int64_t batch_stride, int64_t dim_stride, int64_t seq_stride, int seqlen) {
    constexpr int kChannels = group_channels<T, kWords>();
    const auto aligned = [&](int words) {
        const int64_t bytes = (int64_t)vector_words(words) * 4;
        return base != nullptr && reinterpret_cast<uintptr_t>(base) % bytes == 0 &&
               (batch_stride * (int64_t)sizeof(T)) % bytes == 0;
    };
    if (dim_stride == 1 && (seqlen == 1 || seq_stride % kChannels == 0) && aligned(kWords)) return kRowsChannelVectors;
    if (seq_stride == 1 && dim_stride == seqlen && seqlen <= kUpdateChunk && aligned(kWords * seqlen))
        return kRowsBlock;
    return kRowsNone;
}

// Whether `p` is aligned to the accesses of n consecutive words (vector_words).
inline bool aligned_words(const void *p, int n) {
    return p != nullptr && reinterpret_cast<uintptr_t>(p) % (uintptr_t)(vector_words(n) * 4) == 0;
}

// Launches the grouped kernel over the channel groups of the rows, and the generic kernel
// over the channels past the last whole group, if the arguments allow the grouped kernel
// (true, the first failing launch's status in *status); false: nothing launched.
template <typename T, int kWidth, int kL>
bool launch_update_grouped(const UpdateArgs &p, hipStream_t stream, hipconv_status_t *status) {
    constexpr int kWords = kUpdateGroupWords;
    constexpr int kChannels = group_channels<T, kWords>();
    UpdatePlan plan;
    plan.groups = p.dim / kChannels;
    plan.x_rows = vector_rows<T, kWords>(p.x, p.x_batch_stride, p.x_dim_stride, p.x_seq_stride, p.seqlen);
    plan.y_rows = vector_rows<T, kWords>(p.y, p.y_batch_stride, p.y_dim_stride, p.y_seq_stride, p.seqlen);
    // Every slot's block of a group starts at a multiple of the state's access.
    const bool state_ok = aligned_words(p.conv_state, kWords * kL) &&
                          ((int64_t)p.dim * kL * (int64_t)sizeof(T)) % (vector_words(kWords * kL) * 4) == 0;
    if (plan.groups == 0 || plan.x_rows == kRowsNone || plan.y_rows == kRowsNone ||
        !aligned_words(p.w, kWords * kWidth) || !state_ok || (p.bias != nullptr && !aligned_words(p.bias, kWords)))
        return false;
    const int64_t rows_y = p.batch < kUpdateMaxGridRows ? p.batch : kUpdateMaxGridRows;
    const dim3 grid((unsigned)ceil_div(plan.groups, kUpdateThreads), (unsigned)rows_y,
                    (unsigned)ceil_div(p.batch, rows_y));
    // Chunk: 1 token; the whole block of 2 or 3 tokens; else 4 (vectors or a block of 4).
    const bool block = plan.x_rows == kRowsBlock || plan.y_rows == kRowsBlock;
    const int chunk = p.seqlen == 1 ? 1 : block ? p.seqlen : kUpdateChunk;
    with_silu(p.silu != 0, [&](auto silu) {
        constexpr bool kSilu = decltype(silu)::value;
        auto kernel = chunk == 1   ? conv1d_update_grouped_kernel<T, kWidth, kL, 1, kSilu>
                      : chunk == 2 ? conv1d_update_grouped_kernel<T, kWidth, kL, 2, kSilu>
                      : chunk == 3 ? conv1d_update_grouped_kernel<T, kWidth, kL, 3, kSilu>
                                   : conv1d_update_grouped_kernel<T, kWidth, kL, 4, kSilu>;
        *status = launch_chained(kernel, grid, dim3(kUpdateThreads), 0, stream, p, plan);
    });
    const int first_tail = plan.groups * kChannels;
    if (*status == (hipconv_status_t)hipSuccess && first_tail < p.dim)
        *status = launch_update_generic<T>(p, first_tail, stream);
    return true;
}

// Launches the grouped kernel where its compiled widths and the layout allow it (true, the
// launch's status in *status); false: nothing launched.
template <typename T>
bool launch_update_compiled(const UpdateArgs &p, hipStream_t stream, hipconv_status_t *status) {
    if (p.width == 2 && p.state_len == 1) return launch_update_grouped<T, 2, 1>(p, stream, status);
    if (p.width == 3 && p.state_len == 2) return launch_update_grouped<T, 3, 2>(p, stream, status);
    if (p.width == 4 && p.state_len == 3) return launch_update_grouped<T, 4, 3>(p, stream, status);
    if (p.width == 4 && p.state_len == 4) return launch_update_grouped<T, 4, 4>(p, stream, status);
    return false;
}

template <typename T>
hipconv_status_t launch_conv1d_update(const hipconv_conv1d_update_params &params, hipStream_t stream) {
    if (params.conv.initial_states != nullptr || params.conv.final_states != nullptr)
        return (hipconv_status_t)hipErrorInvalidValue;  // the states are conv_state
    const UpdateArgs p = UpdateArgs::of(params);
    if (p.x == nullptr || p.w == nullptr || p.y == nullptr || p.status == nullptr || p.batch < 1 || p.dim < 1 ||
        p.seqlen < 1 || p.width < 1 || p.n_slots < 0 || p.state_len < p.width - 1 ||
        (p.state_len > 0 && p.conv_state == nullptr))
        return (hipconv_status_t)hipErrorInvalidValue;
    hipconv_status_t status = (hipconv_status_t)hipSuccess;
    if (launch_update_compiled<T>(p, stream, &status)) return status;
    return launch_update_generic<T>(p, 0, stream);
}

}  // namespace hipconv

HIPCONV_EXPORT_PER_DTYPE(conv1d_update, hipconv_conv1d_update_params)
