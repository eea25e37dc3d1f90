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
 * conv1d_update_grouped, (width, state_len) in {(2,1), (3,2), (4,3), (4,4)}, when the state,
 * w and bias are 16-byte aligned, dim*state_len is a multiple of kVec = 16/sizeof(T), and x
 * and y each have one of the row layouts below. One thread per (row, group of kVec
 * channels). The group's state is kVec*state_len contiguous elements, state_len 16-byte
 * vectors, so it moves with state_len vector loads and stores; the thread keeps it in
 * registers as the last state_len inputs in time order, slides it one place per token, and
 * writes it back whole. A circular slot is rotated by cache_seqlens[b] mod state_len on the
 * way in and by the new position on the way out (selects, no modulo per access), so it
 * moves exactly the bytes of a shifting one; its unchanged positions get their own bits
 * again. x and y move in chunks of kChunk tokens:
 *   channel vectors  dim_stride 1 (channel-last, or seqlen 1): one 16-byte vector of the
 *                    group's channels per token; kChunk 1 (seqlen 1) or 4
 *   block            seq_stride 1, dim_stride = seqlen in 2..4 (channel-first, packed):
 *                    the group's [kVec, seqlen] block is seqlen 16-byte vectors; kChunk =
 *                    seqlen, so every register index is a compile-time constant
 * w (kVec*width contiguous) and bias are 16-byte vectors too; fp32 accumulation, and SiLU
 * with the hardware's exponential and division as in the forward (activation.h; a template
 * argument of the grouped kernel, a runtime flag in the generic one). All loads
 * that need no slot (x, w, bias, cache_seqlens) are issued before the state's, which waits
 * only for state_indices[b]. The tail group of a dim that is not a multiple of kVec goes
 * channel by channel, as the generic kernel does.
 *   Launch: 128 threads along the channel groups of one row; grid (ceil(groups/128),
 *   min(batch, 65535), ceil(batch / that)), row = blockIdx.z * gridDim.y + blockIdx.y.
 *
 * conv1d_update_generic: anything else (any width, state_len, strides, alignment). One
 * thread per (row, channel), element accesses, the circular position computed once.
 *   Launch: 256 threads, grid-stride over batch*dim, channel fastest.
 *
 * Either kernel reads all of a thread's history before it writes the new state, and no
 * two threads share a state element, so the update is in place without a barrier
 * (distinct rows must use distinct slots). Both launches are chained
 * (dependent_launch.h): every block first waits for the kernels before it in the stream
 * (the previous step's state writes among them), then lets the next launch, so a decode
 * loop's back-to-back steps overlap their starts.
 */
#include <algorithm>
#include <atomic>

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
    kRowsChannelVectors = 1,  // 16 bytes = the kVec channels of one token
    kRowsBlock = 2,           // seqlen 16-byte vectors = the group's [kVec, seqlen] block
};

// NVIDIA: the grouped kernel's register budget, as blocks of kUpdateThreads an SM must hold.
// One token: 65536 / (128 * 8) = 64 registers, so that a whole b256 d4096 f16 step is
// resident at once; for width 4 ptxas then parks the state pointer in local memory (16
// bytes, L1) across the arithmetic, which measured 10% faster on an H200 than 72 registers
// and no spill. More tokens: 65536 / (128 * 4) = 128 (tighter bounds spill, and were not
// faster); that is a floor, and where ptxas needs fewer (f32 four tokens without SiLU: 80)
// the launcher caps the blocks at 4 (occupancy_cap_bytes). AMD maps the second bound onto
// waves per SIMD instead, which would spill there, so AMD keeps the plain bound.
#if defined(HIPCONV_PLATFORM_NVIDIA)
#define HIPCONV_UPDATE_BOUNDS(chunk) __launch_bounds__(kUpdateThreads, (chunk) == 1 ? 8 : 4)
#else
#define HIPCONV_UPDATE_BOUNDS(chunk) __launch_bounds__(kUpdateThreads)
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
    int32_t groups;  // ceil(dim / kVec)
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

// Element e of packed words (16 bytes = 4 words = kVec elements); put() ORs into zeroed
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
__device__ inline void store16(void *p, const uint32_t *w) {
    *static_cast<uint4 *>(p) = make_uint4(w[0], w[1], w[2], w[3]);
}

// ------------------------------------------------------------------ rows and channels

// What a row does: ok (state advanced), or y filled with `fill` and no state access (a
// padding row: 0; a bad row: NaN, reported by the caller that passes report).
struct RowCheck {
    bool ok;
    int64_t cache_seqlen;
    float fill;
};

__device__ inline RowCheck check_row(const UpdateArgs &p, int64_t row, int slot, int64_t cache_seqlen,
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
__device__ inline int64_t row_cache_seqlen(const UpdateArgs &p, int64_t row) {
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

// The x and y rows of a full group, for tokens t0 .. t0+n-1 (n <= kChunk) as tokens[u] =
// kVec channels of token t0 + u:
//   channel vectors: one 16-byte vector per token;
//   block (launched only with seqlen = kChunk = dim_stride, seq_stride 1): kChunk vectors,
//     element (j, u) at j*kChunk + u.
// Local arrays are written unconditionally (conditional values, not conditional stores),
// which keeps them in registers.
__device__ inline uint4 load16_if(bool ok, const void *p) {
    return ok ? *static_cast<const uint4 *>(p) : make_uint4(0, 0, 0, 0);
}
__device__ inline void set16(uint32_t *w, const uint4 &v) { w[0] = v.x, w[1] = v.y, w[2] = v.z, w[3] = v.w; }

template <int kChunk> __device__ inline bool block_rows(int mode) { return kChunk > 1 && mode == kRowsBlock; }

template <typename T, int kChunk>
__device__ inline void load_tokens(const T *row, int64_t seq_stride, int mode, int c0, int t0, int n,
                                   uint32_t (&tokens)[kChunk][4]) {
    constexpr int kVec = 16 / sizeof(T);
    if (!block_rows<kChunk>(mode)) {
#pragma unroll
        for (int u = 0; u < kChunk; ++u)
            set16(tokens[u], load16_if(u < n, row + c0 + (int64_t)(t0 + u) * seq_stride));
        return;
    }
    const T *block = row + (int64_t)c0 * kChunk;
    uint32_t words[4 * kChunk];
#pragma unroll
    for (int q = 0; q < kChunk; ++q) set16(&words[4 * q], load16_if(q < n, block + q * kVec));
#pragma unroll
    for (int u = 0; u < kChunk; ++u) {
        tokens[u][0] = tokens[u][1] = tokens[u][2] = tokens[u][3] = 0;
#pragma unroll
        for (int j = 0; j < kVec; ++j) put<T>(tokens[u], j, element<T>(words, j * kChunk + u));
    }
}

template <typename T, int kChunk>
__device__ inline void store_tokens(T *row, int64_t seq_stride, int mode, int c0, int t0, int n,
                                    const uint32_t (&tokens)[kChunk][4]) {
    constexpr int kVec = 16 / sizeof(T);
    if (!block_rows<kChunk>(mode)) {
#pragma unroll
        for (int u = 0; u < kChunk; ++u)
            if (u < n) store16(row + c0 + (int64_t)(t0 + u) * seq_stride, tokens[u]);
        return;
    }
    T *block = row + (int64_t)c0 * kChunk;
    uint32_t words[4 * kChunk] = {};
#pragma unroll
    for (int e = 0; e < kVec * kChunk; ++e) put<T>(words, e, element<T>(tokens[e % kChunk], e / kChunk));
#pragma unroll
    for (int q = 0; q < kChunk; ++q)
        if (q < n) store16(block + q * kVec, &words[4 * q]);
}

// a[k] <- a[(k + s) mod kL], s in [0, kL): selects, no indexed registers.
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

// State words of a group: channel j's kL history elements at j*kL .. j*kL+kL-1.
template <typename T, int kL> __device__ inline void get_history(const uint32_t *words, int j, uint32_t (&h)[kL]) {
#pragma unroll
    for (int k = 0; k < kL; ++k) h[k] = element<T>(words, j * kL + k);
}
template <typename T, int kL> __device__ inline void set_history(uint32_t *words, int j, const uint32_t (&h)[kL]) {
#pragma unroll
    for (int k = 0; k < kL; ++k) replace<T>(words, j * kL + k, h[k]);
}

// Every channel's history rotated left by s (circular positions <-> time order).
template <typename T, int kL> __device__ inline void rotate_histories(uint32_t *words, int s) {
    constexpr int kVec = 16 / sizeof(T);
#pragma unroll
    for (int j = 0; j < kVec; ++j) {
        uint32_t h[kL];
        get_history<T, kL>(words, j, h);
        rotate_left<kL>(h, s);
        set_history<T, kL>(words, j, h);
    }
}

// kSilu: the activation as a template argument (activation.h says why).
template <typename T, int kWidth, int kL, int kChunk, bool kSilu>
__global__ void HIPCONV_UPDATE_BOUNDS(kChunk)
    conv1d_update_grouped_kernel(UpdateArgs p, UpdatePlan plan) {
    using Bits = UpdateBits<T>;
    constexpr int kVec = 16 / sizeof(T);
    static_assert(kWidth >= 2 && kL >= kWidth - 1, "the window must fit in the state");
    begin_chained_kernel();  // after the kernels before it (dependent_launch.h)
    const int group = blockIdx.x * kUpdateThreads + threadIdx.x;
    const int64_t row = (int64_t)blockIdx.z * gridDim.y + blockIdx.y;
    if (group >= plan.groups || row >= p.batch) return;
    const int c0 = group * kVec;
    const bool full = c0 <= p.dim - kVec;
    const bool circular = p.cache_seqlens != nullptr;

    const int slot = row_slot(p, row);
    if (!full) {  // the tail group of a dim that is not a multiple of kVec: channel by channel
        const RowCheck check = check_row(p, row, slot, row_cache_seqlen(p, row), group == 0);
#pragma unroll 1
        for (int c = c0; c < p.dim; ++c) update_channel<T>(p, row, c, slot, check);
        return;
    }

    // Loads that need no slot first: the row's position, taps (kVec*kWidth contiguous),
    // bias and the first chunk of x; then the state.
    const int64_t cache_seqlen = row_cache_seqlen(p, row);
    const T *x_row = static_cast<const T *>(p.x) + row * p.x_batch_stride;
    T *y_row = static_cast<T *>(p.y) + row * p.y_batch_stride;
    uint32_t taps[4 * kWidth], bias[4], words[4 * kL], in[kChunk][4];
    const T *w = static_cast<const T *>(p.w) + (int64_t)c0 * kWidth;
#pragma unroll
    for (int q = 0; q < kWidth; ++q) set16(&taps[4 * q], load16_if(true, w + q * kVec));
    set16(bias, load16_if(p.bias != nullptr, static_cast<const T *>(p.bias) + c0));
    load_tokens<T, kChunk>(x_row, p.x_seq_stride, plan.x_rows, c0, 0, min(kChunk, p.seqlen), in);

    // The launcher checked that dim * state_len is a multiple of kVec, so every slot's
    // block of the group is 16-byte aligned.
    const RowCheck check = check_row(p, row, slot, cache_seqlen, group == 0);
    T *state = static_cast<T *>(p.conv_state) + (check.ok ? ((int64_t)slot * p.dim + c0) * kL : 0);
#pragma unroll
    for (int q = 0; q < kL; ++q) set16(&words[4 * q], load16_if(check.ok, state + q * kVec));

    // Circular: time k - kL sits at position (cache_seqlen + k) mod kL; into time order.
    const int rotation = circular ? (int)((uint32_t)check.cache_seqlen % kL) : 0;
    if (circular) rotate_histories<T, kL>(words, rotation);

    const uint32_t fill = Bits::of(check.fill);
    for (int t0 = 0;;) {
        const int n = min(kChunk, p.seqlen - t0);
        uint32_t out[kChunk][4];
#pragma unroll
        for (int u = 0; u < kChunk; ++u) out[u][0] = out[u][1] = out[u][2] = out[u][3] = 0;
#pragma unroll
        for (int j = 0; j < kVec; ++j) {
            // seq: the history (oldest first), then the chunk's tokens (all kChunk, also
            // past n, so that nothing below is conditional; the extra outputs are not
            // stored and the new history is taken at n).
            uint32_t seq[kL + kChunk];
#pragma unroll
            for (int k = 0; k < kL; ++k) seq[k] = element<T>(words, j * kL + k);
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
                for (int i = 0; i < kWidth; ++i)
                    acc = fmaf(tap[i], Bits::to_float(seq[kL + u - (kWidth - 1) + i]), acc);
                put<T>(out[u], j, check.ok ? Bits::of(activate<kSilu>(acc)) : fill);
            }
            uint32_t h[kL];
#pragma unroll
            for (int k = 0; k < kL; ++k) {
                h[k] = seq[kChunk + k];
#pragma unroll
                for (int m = 1; m < kChunk; ++m) h[k] = n == m ? seq[m + k] : h[k];
            }
            set_history<T, kL>(words, j, h);
        }
        store_tokens<T, kChunk>(y_row, p.y_seq_stride, plan.y_rows, c0, t0, n, out);
        t0 += kChunk;
        if (t0 >= p.seqlen) break;
        load_tokens<T, kChunk>(x_row, p.x_seq_stride, plan.x_rows, c0, t0, min(kChunk, p.seqlen - t0), in);
    }

    if (check.ok) {
        // Back to positions: time k - kL now sits at (cache_seqlen + seqlen + k) mod kL.
        if (circular) {
            const int after = (int)((rotation + (uint32_t)p.seqlen % kL) % kL);
            rotate_histories<T, kL>(words, (kL - after) % kL);
        }
#pragma unroll
        for (int q = 0; q < kL; ++q) store16(state + q * kVec, &words[4 * q]);
    }
}

// ------------------------------------------------------------------ generic kernel

template <typename T>
__global__ void __launch_bounds__(kUpdateGenericThreads) conv1d_update_generic_kernel(UpdateArgs p) {
    begin_chained_kernel();  // after the kernels before it (dependent_launch.h)
    const int64_t total = (int64_t)p.batch * p.dim;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < total; i += (int64_t)gridDim.x * blockDim.x) {
        const int64_t row = i / p.dim;
        const int c = (int)(i - row * p.dim);
        const int slot = row_slot(p, row);
        update_channel<T>(p, row, c, slot, check_row(p, row, slot, row_cache_seqlen(p, row), c == 0));
    }
}

// ------------------------------------------------------------------ launch

inline bool aligned16(const void *p) { return p != nullptr && (reinterpret_cast<uintptr_t>(p) & 15) == 0; }

// How the grouped kernel can move the rows of a [batch, dim, seqlen] tensor (UpdateRows).
template <typename T>
int32_t vector_rows(const void *base, int64_t batch_stride, int64_t dim_stride, int64_t seq_stride, int seqlen) {
    constexpr int kVec = 16 / sizeof(T);
    if (!aligned16(base) || batch_stride % kVec != 0) return kRowsNone;
    if (dim_stride == 1 && (seqlen == 1 || seq_stride % kVec == 0)) return kRowsChannelVectors;
    if (seq_stride == 1 && dim_stride == seqlen && seqlen <= kUpdateChunk) return kRowsBlock;
    return kRowsNone;
}

// Dynamic shared memory (unused) that holds the f32 multi-token kernel without SiLU to at most
// 4 resident blocks per SM on NVIDIA: its 80 registers would let 6 share an SM, and on an H100
// a b256 d4096 four-token step then ran 4-7% slower than with 4 (docs/PERFORMANCE.md, the
// nineteenth session). A fifth of the SM's shared memory plus one byte per block keeps a
// fifth block out (each block also holds 1 KB of the SM's). 0 for every other kernel and on AMD.
template <typename T, bool kSilu> int occupancy_cap_bytes() {
#if defined(HIPCONV_PLATFORM_NVIDIA)
    if constexpr (sizeof(T) == 4 && !kSilu) {
        static std::atomic<int64_t> cache[kMaxCachedDevices];
        int64_t shared = 0;
        const hipError_t err = cached_per_device(
            cache,
            [](int device, int64_t *bytes) {
                int value = 0;
                const hipError_t e = cudaDeviceGetAttribute(&value, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device);
                *bytes = value;
                return e;
            },
            &shared);
        constexpr int64_t kDefaultShared = 48 * 1024;  // the most a kernel gets without opting in
        if (err == hipSuccess && shared > 0) return (int)std::min(shared / 5 + 1, kDefaultShared);
    }
#endif
    return 0;
}

// Launches the grouped kernel if the arguments allow it (true, the launch's status in
// *status; else false, nothing launched).
template <typename T, int kWidth, int kL>
bool launch_update_grouped(const UpdateArgs &p, hipStream_t stream, hipconv_status_t *status) {
    constexpr int kVec = 16 / sizeof(T);
    UpdatePlan plan;
    plan.groups = (int32_t)ceil_div(p.dim, kVec);
    plan.x_rows = vector_rows<T>(p.x, p.x_batch_stride, p.x_dim_stride, p.x_seq_stride, p.seqlen);
    plan.y_rows = vector_rows<T>(p.y, p.y_batch_stride, p.y_dim_stride, p.y_seq_stride, p.seqlen);
    if (plan.x_rows == kRowsNone || plan.y_rows == kRowsNone || !aligned16(p.w) || !aligned16(p.conv_state) ||
        (p.bias != nullptr && !aligned16(p.bias)) || ((int64_t)p.dim * kL) % kVec != 0)
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
        const int shared = chunk == kUpdateChunk ? occupancy_cap_bytes<T, kSilu>() : 0;
        *status = launch_chained(kernel, grid, dim3(kUpdateThreads), shared, stream, p, plan);
    });
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
    const int64_t total = (int64_t)p.batch * p.dim;
    return launch_chained(conv1d_update_generic_kernel<T>, dim3(grid_blocks(ceil_div(total, kUpdateGenericThreads))),
                          dim3(kUpdateGenericThreads), 0, stream, p);
}

}  // namespace hipconv

HIPCONV_EXPORT_PER_DTYPE(conv1d_update, hipconv_conv1d_update_params)
