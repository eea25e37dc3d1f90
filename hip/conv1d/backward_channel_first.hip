/*
 * The backward's fused channel-first path (hipconv/conv1d.h, "backward"), widths 1..4:
 * x, dy, dx [batch, dim, seqlen] contiguous (time fastest), no packed batch.
 *
 * Work: the units u = b·tiles_per_row + tile of a channel, a tile being kThreads·N times
 * of one row; thread i owns the N = E times t0 = tile·kThreads·N + i·N .. t0+N-1 (one
 * 16-byte vector: E = N = 16 / sizeof(T)). Block (c, piece) owns one of `pieces` equal
 * runs of channel c's units (plan_walk: one, the whole channel, at most sizes) and walks it
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
 * vector use element loads.
 * The ring (kRing; sm_90 and newer, rows of whole vectors; f32, and 16-bit channels of
 * kRingMinUnits16 units or more): thread 0 copies each unit's x,
 * with the vector before the tile, and its dy into shared memory by bulk copies
 * (cp.async.bulk, counted on one mbarrier a stage), clipped at the row's end, kStages units
 * ahead of the walk; each thread reads its own vectors and the left one from there, with no
 * lane exchange and no per-thread loads in flight (f32 7-9% faster on an H200). A stage is
 * refilled after the step's barrier, when every thread has read it:
 *
 *   stage s   ring_x[s]:  [x vector before the tile][thread 0's][thread 1's]...[127's]
 *             ring_dy[s]:                           [thread 0's][thread 1's]...[127's]
 *
 * Times within a row are 32-bit (seqlen < 2^31 - 2·tile; longer rows take the generic
 * path), and the walk steps its position by additions.
 * 16-bit outputs with SiLU take its derivative from tanh (ScaledDerivative, backward.h).
 * Taps, bias and the dweight/dbias sums stay in registers over the run; at its end the
 * block sums them (wave butterflies, then the waves in order) into dweight and dbias
 * where pieces = 1, else into partials[piece, c] for the reduction.
 * Launch: kThreads threads, dim·pieces blocks, block = c·pieces + piece.
 */
#include "backward.h"
#include "dependent_launch.h"
#include "packed.h"
#include "tma.h"
#include "vector_rows.h"
#include "wave.h"

#include <algorithm>

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

constexpr int kStages = 4;  // units in the ring (bulk copies)

template <typename T, int kWidth, bool kSilu, bool kRing>
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
    allow_dependent_launch();  // the reduction of the partials may be placed (launch_dependent)
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
#if HIPCONV_HAS_TMA
    constexpr bool kUseRing = kRing;
    static_assert(V == 1, "the ring holds one vector a thread");
    // Stage s: x's vector before the tile, then the tile's (thread i's at 1 + i); dy's.
    __shared__ __align__(128) uint4 ring_x[kRing ? kStages : 1][kThreads + 1];
    __shared__ __align__(128) uint4 ring_dy[kRing ? kStages : 1][kThreads];
    __shared__ uint64_t landed[kRing ? kStages : 1];
    uint32_t ring_parities = 0;
    if (kUseRing) {
        if (threadIdx.x == 0) {
            for (int s = 0; s < kStages; ++s) tma::init_barrier(landed + s, 1);
            tma::fence_barrier_init();
        }
        __syncthreads();
    }
#else
    constexpr bool kUseRing = false;
#endif

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
    UnitLoads<T, V> next{};
    if (!kUseRing) next = load_at(at);
#if HIPCONV_HAS_TMA
    // The ring (thread 0): unit `q`'s x (with the vector before it, where the tile is not
    // the row's first) and dy, clipped at the row's end (seqlen a multiple of E), into stage s.
    WalkPosition issue_at = at;
    auto issue_unit = [&](const WalkPosition &q, int s) {
        const int64_t offset = q.row * cp.seqlen;
        const int tile_t0 = q.tile * (int)Tile::kTile;
        const int n = min((int)Tile::kTile, seqlen - tile_t0);
        const int before = tile_t0 > 0 ? E : 0;
        const uint32_t x_bytes = (uint32_t)((n + before) * sizeof(T)), dy_bytes = (uint32_t)(n * sizeof(T));
        tma::arrive_expect_bytes(landed + s, x_bytes + dy_bytes);
        tma::load_bulk(before > 0 ? (void *)&ring_x[s][0] : (void *)&ring_x[s][1], x_base + offset + tile_t0 - before,
                       x_bytes, landed + s);
        tma::load_bulk(&ring_dy[s][0], dy_base + offset + tile_t0, dy_bytes, landed + s);
    };
    int stage = 0;
    if (kUseRing && threadIdx.x == 0) {
        for (int s = 0; s < kStages && end - 1 - s >= begin; ++s) {
            issue_unit(issue_at, s);
            issue_at = step_back(issue_at);
        }
    }
#endif
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
        UnitLoads<T, V> cur = next;
#if HIPCONV_HAS_TMA
        if (kUseRing) {
            tma::wait_barrier(landed + stage, (ring_parities >> stage) & 1u);
            ring_parities ^= 1u << stage;
            if (t0 < seqlen) {
                cur.x[0] = ring_x[stage][1 + threadIdx.x];
                cur.dy[0] = ring_dy[stage][threadIdx.x];
                cur.left = ring_x[stage][threadIdx.x];
            } else {
                cur.x[0] = cur.dy[0] = cur.left = make_uint4(0, 0, 0, 0);
            }
        }
#endif
        const WalkPosition after = step_back(at);  // the unit after this one in the walk
        if (!kUseRing && g > begin) next = load_at(after);

        // x at times t0-H .. t0+N-1: the left lane's last words, then this thread's.
        uint4 left = cur.left;
        if (kWidth > 1 && !kUseRing) {
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
        } else if (kUseRing) {
            __syncthreads();
        }
#if HIPCONV_HAS_TMA
        // Every thread has read this unit's stage (before the barrier above): it takes the
        // unit kStages on.
        if (kUseRing) {
            if (threadIdx.x == 0 && g - kStages >= begin) {
                issue_unit(issue_at, stage);
                issue_at = step_back(issue_at);
            }
            stage = stage + 1 == kStages ? 0 : stage + 1;
        }
#endif
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

// The ring (bulk copies of whole units into shared memory) is built for NVIDIA only; it
// takes effect where the device runs this build's sm_90 code (HIPCONV_HAS_TMA), which is
// what device_launches_dependents_early() asks, and on rows of whole 16-byte vectors.
#if defined(HIPCONV_PLATFORM_NVIDIA)
constexpr bool kRingBuilt = true;
#else
constexpr bool kRingBuilt = false;
#endif

template <typename T> bool ring_feeds(const hipconv_conv1d_params &c) {
    return kRingBuilt && c.seqlen % Vec16<T>::kCount == 0 && device_launches_dependents_early();
}

// Resident blocks of T's width-4 SiLU kernel on the current device (cached per dtype, as
// in backward_channel_last_tiled.hip); the ring's form where it is built (its shared
// memory counted).
template <typename T> int64_t resident() {
    static std::atomic<int64_t> cache[kMaxCachedDevices];
    int64_t blocks = 0;
    if (resident_blocks(conv1d_backward_channel_first_kernel<T, 4, true, kRingBuilt>, kThreads, cache, &blocks) !=
            hipSuccess ||
        blocks < 1)
        return kFallbackResident;
    return blocks;
}

// 16-bit channels of fewer units load their vectors themselves: a block's first copies
// start sooner from every thread than from thread 0's bulk copies (H200, f16 with bias +
// SiLU, thread loads against the ring: (1,1536,4096,4) 14.9 against 15.8 us, (2,768,4096,4)
// 13.8 against 15.3, (1,8192,2048,4) 38.9 against 39.7; (8,4096,2048,4), 16 units a
// channel, 105.3 against 104.1).
#if defined(HIPCONV_PLATFORM_NVIDIA)
constexpr int64_t kRingMinUnits16 = 16;
#endif

// f32 pieces fed by the ring: units / kStages of them (so at least kStages units each, every
// copy of a four-unit piece issued at the block's start), at most this many a channel.
constexpr int64_t kMaxRingPieces = 8;

struct Walk {
    int64_t row_tiles;
    int64_t pieces;  // blocks per channel: dim · pieces blocks, and partial slots per channel
};

// A piece's fewest times where channels are split only for want of blocks (pieces add a
// reduction launch and cold starts): 8 units of 16-bit types, 16 of f32.
constexpr int64_t kMinPieceTimes = 8192;

// Pieces per channel: one (the block walks its channel whole and writes the gradient
// itself), except
// - f32 fed by the ring, at two rounds of channels or at 8·kStages units a channel: pieces
//   of kStages units or a few more, up to kMaxRingPieces, so that the last round is a small
//   part of the grid (H200, (8,4096,2048,4) and (4,5120,4096,4): 1.5-2.8% faster at 8
//   pieces of 4 units than at 1; at 2 units a block 18% slower; (16,1536,1024,4): 79.2 us
//   at 8 pieces, 82.5 at 2, 85.9 at 1);
// - fewer channels than one round of resident blocks: enough pieces for a round, each of at
//   least kMinPieceTimes times (H200, bias + SiLU: (1,64,65536,4) f16 13.2 us at 8 pieces,
//   13.5 at 32; (1,256,8192,4), (2,768,4096,4) and (4,1003,2048,4) fastest whole in f16
//   and f32, 1-17% ahead of 2-8 pieces).
// Elsewhere pieces measured slower: split into 2-16 pieces, the 16-bit kernels at
// (8,4096,2048,4) 5-41% and the f32 kernel without the ring 3-16%; (1,1536,4096,4) f16
// 18.1 us in 2 pieces against 15.7 whole. The blocks stay aligned to channels: grids that
// split channels unevenly measured 6-8% slower on an H100.
template <typename T> Walk plan_walk(const hipconv_conv1d_params &c) {
    const int64_t row_tiles = tiles_per_row<T>(c.seqlen);
    const int64_t units = c.batch * row_tiles;
    const int64_t resident_blocks = resident<T>();
    const bool ring_pieces = sizeof(T) == 4 && ring_feeds<T>(c) && c.dim * kMaxRingPieces <= INT32_MAX;
    int64_t wanted = 1;
    if (ring_pieces && (c.dim >= 2 * resident_blocks || units >= 8 * kStages))
        wanted = std::min(kMaxRingPieces, units / kStages);
    else if (c.dim < resident_blocks)
        wanted = std::min(ceil_div(resident_blocks, c.dim), units / ceil_div(kMinPieceTimes, Tiling<T>::kTile));
    const int64_t per_piece = ceil_div(units, std::max<int64_t>(1, std::min(wanted, units)));
    return {row_tiles, ceil_div(units, per_piece)};
}

template <typename T, int kWidth>
hipconv_status_t launch_width(const hipconv_conv1d_backward_params &p, float *partials, hipStream_t stream) {
    const Walk walk = plan_walk<T>(p.conv);
    auto launch = [&](auto silu, auto ring) {
        hipLaunchKernelGGL((conv1d_backward_channel_first_kernel<T, kWidth, decltype(silu)::value,
                                                                 decltype(ring)::value>),
                           dim3((unsigned)(p.conv.dim * walk.pieces)), dim3(kThreads), 0, stream, p, walk.row_tiles,
                           walk.pieces, partials);
        return last_launch_status();
    };
    return with_silu(p.conv.silu != 0, [&](auto silu) {
#if defined(HIPCONV_PLATFORM_NVIDIA)
        // The ring's bulk copies take whole rows of 16-byte vectors, and 16-bit channels
        // of kRingMinUnits16 units or more.
        const bool ring_pays = sizeof(T) == 4 || p.conv.batch * walk.row_tiles >= kRingMinUnits16;
        if (p.conv.seqlen % Vec16<T>::kCount == 0 && ring_pays) return launch(silu, std::true_type{});
#endif
        return launch(silu, std::false_type{});
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
