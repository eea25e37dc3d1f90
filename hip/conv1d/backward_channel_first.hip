/*
 * The backward's fused channel-first path (hipconv/conv1d.h, "backward"), widths 1..4:
 * x, dy, dx [batch, dim, seqlen] contiguous (time fastest), no packed batch.
 *
 * Work: the units u = b·tiles_per_row + tile of a channel, a tile being kThreads·N times
 * of one row; thread i owns the N = E times t0 = tile·kThreads·N + i·N .. t0+N-1 (one
 * 16-byte vector: E = N = 16 / sizeof(T)). Block (c, piece) owns one of `pieces` equal
 * runs of channel c's units (pieces = 1 at model sizes: the whole channel) and walks it
 * from the last (later times first), the next unit's loads in flight while it computes
 * the current one:
 *
 *   times   t0-(w-1) .. t0-1 | t0 .. t0+N-1            | t0+N .. t0+N+w-2
 *   x       left lane's tail | own 16-byte loads       |
 *   dy                       | own 16-byte loads       |
 *   dz                       | dy·act'(z), z from x    | the right thread's head
 *   dx                       | own (16-byte stores)    |
 *
 * Every dz is computed once. The right thread's head comes by register exchange within
 * the wave; across waves, and for the tile's last thread from the tile after it (done in
 * the previous step), through shared memory (one barrier per tile, heads double-buffered
 * by step parity). Where a run starts inside a row, the last thread recomputes the next
 * tile's head. The left lane's tail of x comes by exchange too; lane 0 loads the words of
 * it that hold the history (the row's first lane takes the initial states, or zeros).
 * Rows whose start is not 16-byte aligned (seqlen not a multiple of E) and the row's last
 * vector use element loads. Times within a row are 32-bit (seqlen < 2^31 - 2·tile; longer
 * rows take the generic path), and the walk steps its position by additions.
 * 16-bit outputs with SiLU take its derivative from tanh (ScaledDerivative, backward.h).
 * Taps, bias and the dweight/dbias sums stay in registers over the run; at its end the
 * block sums them (wave butterflies, then the waves in order) into dweight and dbias
 * where pieces = 1, else into partials[piece, c] for the reduction.
 * Launch: kThreads threads, dim·pieces blocks, block = c·pieces + piece.
 */
#include "backward.h"
#include "packed.h"
#include "vector_rows.h"
#include "wave.h"

namespace hipconv {

namespace {

constexpr int kThreads = 128;
constexpr int kWaves = kThreads / HIPCONV_WAVE_SIZE;
template <typename T> struct Tiling {
    static constexpr int kE = Vec16<T>::kCount;  // elements of a 16-byte vector
    // 16-byte vectors per thread: one (two, at 6 blocks per SM, measured 1-3% slower for
    // f32 on an H100).
    static constexpr int kVectors = 1;
    static constexpr int kN = kE * kVectors;  // times per thread
    static constexpr int64_t kTile = (int64_t)kThreads * kN;
    // Resident blocks asked of ptxas: 56 registers for f32 (9 blocks: 1% faster than 8 on
    // an H200; 10 spill), 64 for 16-bit types (whose units hold twice the times).
    static constexpr int kBlocksPerSm = sizeof(T) == 4 ? 9 : 8;
};

template <typename T> __host__ __device__ int64_t tiles_per_row(int64_t seqlen) {
    return ceil_div(seqlen, Tiling<T>::kTile);
}

// E elements of a row from time t (zero at and past seqlen): one 16-byte load where the
// row is aligned and they all lie inside it.
template <typename T> __device__ inline uint4 load_times(const T *row, int t, int seqlen, bool aligned) {
    constexpr int E = Vec16<T>::kCount;
    if (aligned && t + E <= seqlen) return *reinterpret_cast<const uint4 *>(row + t);
    float v[E];
#pragma unroll
    for (int j = 0; j < E; ++j) v[j] = t + j < seqlen ? to_float(row[t + j]) : 0.f;
    return pack<T>(v);  // exact: T -> fp32 -> T
}

template <typename T> __device__ inline void store_times(T *row, int t, int seqlen, bool aligned, const float *v) {
    constexpr int E = Vec16<T>::kCount;
    if (aligned && t + E <= seqlen) {
        store_vector16(row + t, pack<T>(v));
        return;
    }
#pragma unroll
    for (int j = 0; j < E; ++j)
        if (t + j < seqlen) row[t + j] = from_float<T>(v[j]);
}

// The last kWords words of the vector of x before time t0 (t0 > 0, a multiple of E), in
// place in `left` (the other words zero): only the words that hold the history. Loading the
// whole vector, ptxas reused the register of a word nothing reads at once, so every wave
// waited for this load right after issuing it (half of the f32 kernel's stall samples, ncu
// on an H200) and the unit's prefetch hid no latency. A vector not wholly inside the row
// (unaligned rows, t0 past seqlen) takes load_times, zero past seqlen.
template <typename T, int kWords>
__device__ inline uint4 load_history(const T *row, int t0, int seqlen, bool aligned) {
    constexpr int E = Vec16<T>::kCount;
    if (!aligned || t0 > seqlen) return load_times(row, t0 - E, seqlen, aligned);
    uint4 left = make_uint4(0, 0, 0, 0);
    const uint32_t *words = reinterpret_cast<const uint32_t *>(row + t0 - E);
#pragma unroll
    for (int q = 4 - kWords; q < 4; ++q) (&left.x)[q] = words[q];
    return left;
}

// One unit's loads: this thread's x and dy vectors, and (lane 0 only) the words of x before
// them that hold its history.
template <typename T, int kVectors> struct UnitLoads {
    uint4 x[kVectors], dy[kVectors], left;
};

template <typename T, int kVectors, int kHistoryWords>
__device__ inline UnitLoads<T, kVectors> load_unit(const T *x, const T *dy, int t0, int seqlen, bool aligned,
                                                   bool first_lane) {
    constexpr int E = Vec16<T>::kCount;
    UnitLoads<T, kVectors> u;
#pragma unroll
    for (int v = 0; v < kVectors; ++v) {
        u.x[v] = load_times(x, t0 + v * E, seqlen, aligned);
        u.dy[v] = load_times(dy, t0 + v * E, seqlen, aligned);
    }
    u.left = kHistoryWords > 0 && first_lane && t0 > 0 ? load_history<T, kHistoryWords>(x, t0, seqlen, aligned)
                                                       : make_uint4(0, 0, 0, 0);
    return u;
}

// The position of a unit in the walk: batch row b's tile, and this thread's first time in
// it, kept as the walk steps back (additions, not products).
// (The row's offset, row·seqlen, is recomputed where used: kept here it cost the 16-bit
// kernels 48 bytes of spills.)
struct WalkPosition {
    int64_t row;  // b·dim + c
    int tile;
    int t0;  // tile·kTile + threadIdx.x·N
};

template <typename T, int kWidth, bool kSilu>
__global__ void HIPCONV_BOUNDS_NVIDIA(kThreads, Tiling<T>::kBlocksPerSm)
    conv1d_backward_channel_first_kernel(hipconv_conv1d_backward_params p, int64_t row_tiles, int64_t pieces,
                                         float *partials) {
    using Tile = Tiling<T>;
    constexpr int E = Tile::kE;
    constexpr int V = Tile::kVectors;
    constexpr int N = Tile::kN;
    constexpr int H = kWidth - 1;
    constexpr int kHeads = H > 0 ? H : 1;
    constexpr int kHistoryWords = (H * (int)sizeof(T) + 3) / 4;  // words of a vector holding H elements
    static_assert(H <= E, "the halo must fit in one neighbouring vector");
    using D = ScaledDerivative<T, kSilu>;
    const hipconv_conv1d_params &cp = p.conv;
    const int seqlen = (int)cp.seqlen;  // < 2^31 - kTile (backward_channel_first_fits)
    const int64_t dim = cp.dim;
    const int64_t units = cp.batch * row_tiles;  // per channel
    const int64_t c = blockIdx.x / pieces;
    const int64_t piece = blockIdx.x % pieces;
    const int64_t per_piece = ceil_div(units, pieces);  // (the host makes every piece non-empty)
    const int64_t begin = piece * per_piece;
    const int64_t end = begin + per_piece < units ? begin + per_piece : units;
    const int lane = wave_lane();
    const int wave = threadIdx.x / HIPCONV_WAVE_SIZE;
    const bool last_thread = threadIdx.x == kThreads - 1;
    __shared__ float dz_heads[2][kWaves][kHeads];  // [step parity][wave][m]: dz of a wave's first H times
    __shared__ float wave_sums[kWaves][kWidth + 1];
    int parity = 0;

    // The walk: from unit end - 1 down to begin, later tiles of a row first, then the
    // previous batch row's last tile.
    const T *x_base = static_cast<const T *>(cp.x);
    const T *dy_base = static_cast<const T *>(p.dy);
    const int last_tile = (int)row_tiles - 1;
    const int thread_t = (int)threadIdx.x * N;
    const QuotientRemainder by_row = divide(end - 1, row_tiles);
    WalkPosition at;
    at.row = by_row.quotient * dim + c;
    at.tile = (int)by_row.remainder;
    at.t0 = at.tile * (int)Tile::kTile + thread_t;
    auto step_back = [&](WalkPosition q) {
        if (q.tile > 0) {
            --q.tile;
            q.t0 -= (int)Tile::kTile;
        } else {
            q.tile = last_tile;
            q.t0 = last_tile * (int)Tile::kTile + thread_t;
            q.row -= dim;
        }
        return q;
    };
    auto aligned_row = [&](int64_t offset) { return (offset & (E - 1)) == 0; };  // 16-byte row start
    auto load_at = [&](const WalkPosition &q) {
        const int64_t offset = q.row * cp.seqlen;
        return load_unit<T, V, kHistoryWords>(x_base + offset, dy_base + offset, q.t0, seqlen, aligned_row(offset),
                                              lane == 0);
    };
    UnitLoads<T, V> next = load_at(at);
    float taps[kWidth], sums[kWidth + 1];
    const T *w = static_cast<const T *>(cp.w) + c * kWidth;
#pragma unroll
    for (int k = 0; k < kWidth; ++k) taps[k] = D::kScale * to_float(w[k]);
    const float bias_c = cp.bias != nullptr ? D::kScale * to_float(static_cast<const T *>(cp.bias)[c]) : 0.f;
#pragma unroll
    for (int k = 0; k <= kWidth; ++k) sums[k] = 0.f;
    float carried[kHeads];  // the last thread's copy of the later tile's head (wave 0's)
    bool have_carried = false;

    for (int64_t g = end - 1; g >= begin; --g) {
        const int64_t row = at.row;
        const int64_t offset = row * cp.seqlen;
        const int t0 = at.t0;
        const bool aligned = aligned_row(offset);
        const T *x = x_base + offset;
        const T *dy = dy_base + offset;
        const UnitLoads<T, V> cur = next;
        const WalkPosition after = step_back(at);  // the unit after this one in the walk
        if (g > begin) next = load_at(after);

        // x at times t0-H .. t0+N-1: the left lane's last words, then this thread's.
        uint4 left = cur.left;
        if (kWidth > 1) {
            const int from_left = (lane + HIPCONV_WAVE_SIZE - 1) % HIPCONV_WAVE_SIZE;
#pragma unroll
            for (int q = 0; q < kHistoryWords; ++q) {
                const uint32_t word = wave_read_lane(word_of(cur.x[V - 1], 4 - kHistoryWords + q), from_left);
                if (lane != 0) (&left.x)[4 - kHistoryWords + q] = word;
            }
        }
        float xw[H + N];
#pragma unroll
        for (int m = 0; m < H; ++m) xw[m] = unpack<T>(left, E - H + m);
        if (t0 == 0) {  // the row's first times: the history is the initial states, or zeros
            const T *initial = static_cast<const T *>(cp.initial_states);
#pragma unroll
            for (int m = 0; m < H; ++m) xw[m] = initial != nullptr ? to_float(initial[row * H + m]) : 0.f;
        }
#pragma unroll
        for (int j = 0; j < N; ++j) xw[H + j] = unpack<T>(cur.x[j / E], j % E);

        // dz at this thread's times (dy is 0 past seqlen, so dz is too).
        float dz[N + H];
#pragma unroll
        for (int j = 0; j < N; ++j) {
            float z = bias_c;
#pragma unroll
            for (int k = 0; k < kWidth; ++k) z += taps[k] * xw[j + k];
            dz[j] = D::dz(unpack<T>(cur.dy[j / E], j % E), z);
        }

        // dz at t0+N .. t0+N+H-1: the right thread's head.
        if (H > 0) {
            if (lane == 0) {
#pragma unroll
                for (int m = 0; m < H; ++m) dz_heads[parity][wave][m] = dz[m];
            }
            __syncthreads();
            const int from_right = (lane + 1) % HIPCONV_WAVE_SIZE;
#pragma unroll
            for (int m = 0; m < H; ++m) dz[N + m] = __uint_as_float(wave_read_lane(__float_as_uint(dz[m]), from_right));
            if (lane == HIPCONV_WAVE_SIZE - 1) {
                if (!last_thread) {
#pragma unroll
                    for (int m = 0; m < H; ++m) dz[N + m] = dz_heads[parity][wave + 1][m];
                } else if (have_carried) {
#pragma unroll
                    for (int m = 0; m < H; ++m) dz[N + m] = carried[m];
                } else if (at.tile == last_tile) {  // past the row's end
#pragma unroll
                    for (int m = 0; m < H; ++m) dz[N + m] = 0.f;
                } else {  // a run that starts inside a row: recompute the next tile's head
                    const uint4 x_after = load_times(x, t0 + N, seqlen, aligned);
                    const uint4 dy_after = load_times(dy, t0 + N, seqlen, aligned);
#pragma unroll
                    for (int m = 0; m < H; ++m) {
                        float z = bias_c;
#pragma unroll
                        for (int k = 0; k < kWidth; ++k)
                            z += taps[k] * (N + m + k < N + H ? xw[N + m + k] : unpack<T>(x_after, m + k - H));
                        dz[N + m] = D::dz(unpack<T>(dy_after, m), z);
                    }
                }
                if (last_thread) {
#pragma unroll
                    for (int m = 0; m < H; ++m) carried[m] = dz_heads[parity][0][m];
                }
            }
            parity ^= 1;
        }
        have_carried = at.tile > 0;  // the next unit is this row's previous tile

        float dx[N];
#pragma unroll
        for (int j = 0; j < N; ++j) {
            float acc = 0.f;
#pragma unroll
            for (int k = 0; k < kWidth; ++k) acc += taps[k] * dz[j + H - k];
            dx[j] = acc;
        }
        if (p.dfinal_states != nullptr && H > 0 && t0 + N > seqlen - H) {
            const T *dfinal = static_cast<const T *>(p.dfinal_states) + row * H;
#pragma unroll
            for (int j = 0; j < N; ++j) {
                const int k = t0 + j - (seqlen - H);
                if (k >= 0 && t0 + j < seqlen) dx[j] += to_float(dfinal[k]);
            }
        }
#pragma unroll
        for (int v = 0; v < V; ++v)
            if (t0 + v * E < seqlen)
                store_times(static_cast<T *>(p.dx) + offset, t0 + v * E, seqlen, aligned, dx + v * E);

        // This thread's share of dweight and dbias.
#pragma unroll
        for (int j = 0; j < N; ++j) {
#pragma unroll
            for (int k = 0; k < kWidth; ++k) sums[k] += dz[j] * xw[j + k];
            sums[kWidth] += dz[j];
        }

        at = after;
    }

    // This block's piece of the channel's sums: wave butterflies, then the waves in order;
    // the gradient itself where the block owns the whole channel.
#pragma unroll
    for (int k = 0; k <= kWidth; ++k) sums[k] = wave_sum(D::kScale * sums[k]);
    if (lane == 0) {
#pragma unroll
        for (int k = 0; k <= kWidth; ++k) wave_sums[wave][k] = sums[k];
    }
    __syncthreads();
    if (threadIdx.x <= kWidth) {
        float sum = 0.f;
        for (int v = 0; v < kWaves; ++v) sum += wave_sums[v][threadIdx.x];
        if (pieces == 1)
            store_parameter_gradient<T>(p, c, threadIdx.x, sum);
        else
            partials[partial_index(piece, dim, c, kWidth, threadIdx.x)] = sum;
    }
}

constexpr int64_t kFallbackResident = 132 * 8;  // where the runtime cannot say

// Resident blocks of T's width-4 SiLU kernel on the current device (cached per dtype, as
// in backward_channel_last_tiled.hip).
template <typename T> int64_t resident() {
    static std::atomic<int64_t> cache[kMaxCachedDevices];
    int64_t blocks = 0;
    if (resident_blocks(conv1d_backward_channel_first_kernel<T, 4, true>, kThreads, cache, &blocks) != hipSuccess ||
        blocks < 1)
        return kFallbackResident;
    return blocks;
}

struct Walk {
    int64_t row_tiles;
    int64_t pieces;  // blocks per channel: dim · pieces blocks, and partial slots per channel
};

// Pieces per channel: one where there are channels enough for two rounds of resident
// blocks (a block walks its channel whole and writes the gradient itself); else the
// fewest that make two rounds, all non-empty. The blocks stay aligned to channels:
// grids that split channels unevenly measured 6-8% slower on an H100.
template <typename T> Walk plan_walk(const hipconv_conv1d_params &c) {
    const int64_t row_tiles = tiles_per_row<T>(c.seqlen);
    const int64_t units = c.batch * row_tiles;
    const int64_t wanted = ceil_div(2 * resident<T>(), c.dim);
    const int64_t per_piece = ceil_div(units, wanted < units ? wanted : units);
    return {row_tiles, ceil_div(units, per_piece)};
}

template <typename T, int kWidth>
hipconv_status_t launch_width(const hipconv_conv1d_backward_params &p, float *partials, hipStream_t stream) {
    const Walk walk = plan_walk<T>(p.conv);
    return with_silu(p.conv.silu != 0, [&](auto silu) {
        hipLaunchKernelGGL((conv1d_backward_channel_first_kernel<T, kWidth, decltype(silu)::value>),
                           dim3((unsigned)(p.conv.dim * walk.pieces)), dim3(kThreads), 0, stream, p, walk.row_tiles,
                           walk.pieces, partials);
        return last_launch_status();
    });
}

}  // namespace

template <typename T> bool backward_channel_first_fits(const hipconv_conv1d_backward_params &p) {
    const hipconv_conv1d_params &c = p.conv;
    return c.width <= kBackwardMaxFusedWidth && p.cu_seqlens == nullptr && c.x_seq_stride == 1 &&
           c.seqlen <= INT32_MAX - 2 * Tiling<T>::kTile &&  // times within a row in 32 bits
           c.x_dim_stride == c.seqlen && c.x_batch_stride == (int64_t)c.dim * c.seqlen && aligned16(c.x) &&
           aligned16(p.dy) && aligned16(p.dx);
}

template <typename T> int64_t backward_channel_first_tiles(const hipconv_conv1d_backward_params &p) {
    const int64_t pieces = plan_walk<T>(p.conv).pieces;
    return pieces == 1 ? 0 : pieces;  // 0: no partials, the kernel writes the gradients
}

template <typename T>
hipconv_status_t launch_backward_channel_first(const hipconv_conv1d_backward_params &p, float *partials,
                                               hipStream_t stream) {
    switch (p.conv.width) {
    case 1: return launch_width<T, 1>(p, partials, stream);
    case 2: return launch_width<T, 2>(p, partials, stream);
    case 3: return launch_width<T, 3>(p, partials, stream);
    case 4: return launch_width<T, 4>(p, partials, stream);
    default: return (hipconv_status_t)hipErrorInvalidValue;
    }
}

#define HIPCONV_INSTANTIATE(T)                                                                      \
    template bool backward_channel_first_fits<T>(const hipconv_conv1d_backward_params &);           \
    template int64_t backward_channel_first_tiles<T>(const hipconv_conv1d_backward_params &);       \
    template hipconv_status_t launch_backward_channel_first<T>(const hipconv_conv1d_backward_params &, float *, \
                                                               hipStream_t);
HIPCONV_INSTANTIATE(__half)
HIPCONV_INSTANTIATE(hipconv_bf16)
HIPCONV_INSTANTIATE(float)
#undef HIPCONV_INSTANTIATE

}  // namespace hipconv
