/*
 * Depthwise conv3d on the matrix cores, channels-last (NDHWC), f16/bf16: the Toeplitz form
 * of depthwise_toeplitz.hip (NCDHW; the slot layout and the depth walk are described in
 * depthwise_toeplitz.h and there), fed through a transposing stage, since a filter along w
 * on the matrix cores needs each channel's row contiguous and NDHWC holds channels
 * contiguous.
 *
 *   in   x [batch, in[0..2], C] by x_stride (c stride 1, 16-byte vectors of 8 channels),
 *        w [C, 1, 3, 3, 3] by w_stride, bias [C] or NULL,
 *        initial_frames [batch, pad[0], in[1], in[2], C] or NULL (x's row and position strides)
 *   out  y [batch, out[0..2], C] by y_stride (c stride 1, 16-byte vectors)
 *        y[n,od,oh,ow,c] = act(bias[c] + sum t[c,kd,kh,kw] x[n,od-pad0+kd,oh-pad1+kh,ow-pad2+kw,c])
 *
 * A block owns kGroup channels (kParts 16-byte vectors per position: 16 channels, 32 bytes,
 * on NVIDIA; 8 on AMD), a tile of `rows` output rows of one batch row and a chunk of output
 * depths; wave i computes channels i + kWaves * h, h < kWaveChannels (NVIDIA: 8 warps of
 * two channels each; AMD: 8 waves of one). Each input plane makes three trips through
 * shared memory:
 *
 *   x ──cp.async──> ring slot (natural: [rows + 2][in[2]][kGroup ch], 16-byte chunks)
 *     ──transpose──> sequences[kGroup ch] (the NCDHW slot layout per channel: the rows
 *                    one after another at pitch = round_up(in[2], 8) + 8, gaps of zeros)
 *     ──matrix steps of each wave on its channels' sequences──> output tiles (same layout)
 *     ──transpose──> y, kParts 16-byte stores a position
 *
 * The transposes work on position pairs, a 16-byte part (8 channels) at a time: two
 * vectors (positions 2p, 2p + 1) become eight 4-byte words (one channel at both positions)
 * and back, by byte permutes (channel c's sequence at c * sequence). Pipeline per plane j,
 * one barrier: plane j + 1 is transposed into sequence buffer (j + 1) % 2 while the waves
 * multiply plane j from buffer j % 2; plane j + kSlots is staged into plane j's ring slot
 * (three planes in flight); output j - 3 leaves output tile (j - 1) % 2 and output j - 2
 * enters tile j % 2. Loads and stores go through L2 as
 * evict-first, the loads with the 256-byte prefetch (block_copy.h), which brings in the
 * neighbouring channel groups' bytes of the same positions.
 *
 * Why 16 channels on NVIDIA (measured at the bench's 8 x 192 x 16 x 56 x 56 f16 row, H100):
 * with 8 channels a block reads and writes 16 of every position's 32-byte sector, one L2
 * request each, and the L2 tag lookups bound it (73% of peak, 346 us); 16 channels in one
 * block of 16 warps halve the requests (44%) but leave one block an SM waiting at its
 * barriers (246 us); 16 channels over 8 warps, two blocks an SM, 208 us (the vector-unit
 * kernel of depthwise.hip: 268 us).
 *
 * Launch: kThreads threads (NVIDIA: 256, two blocks an SM at 128 registers; AMD: 512), one
 * block per (n, depth chunk, row tile, channel group), channel group fastest (the groups of
 * a position read and write its sectors together). Every thread's copies and pairs are
 * worked out once per item (at most kStageCopies, kPairCopies, kOutCopies; the launcher
 * picks `rows` so that they fit, and the tiles of a channel within kWaveTiles).
 */
#include "activation.h"
#include "block_copy.h"
#include "compat.h"
#include "depthwise_toeplitz.h"
#include "element.h"
#include "geometry.h"
#include "hipconv/conv3d.h"
#include "launch.h"
#include "packed.h"

namespace hipconv {

namespace {

using namespace depthwise_toeplitz;

// Channels per block and per wave. NVIDIA: 16 (32 bytes a position, whole L2 sectors), two
// a warp, two blocks of 8 warps an SM; AMD: 8, one a wave (a workgroup of 512 lanes keeps
// 256 VGPRs a lane), in its 64 KiB of LDS.
#if defined(HIPCONV_PLATFORM_NVIDIA)
constexpr int kGroup = 16;
constexpr int kWaveChannels = 2;
constexpr int kBlocksPerSM = 2;
constexpr int kSharedBudget = 110 * 1024;
#else
constexpr int kGroup = 8;
constexpr int kWaveChannels = 1;
constexpr int kSharedBudget = 64 * 1024;
#endif
constexpr int kParts = kGroup / kRowVec;
constexpr int kWaves = kGroup / kWaveChannels;
constexpr int kThreads = kWaves * HIPCONV_WAVE_SIZE;
constexpr int kWaveTiles = kMaxTiles / kWaveChannels;  // tiles a wave's channel may have
// Per thread: staged vectors, input pair parts and output pair parts.
constexpr int kStageCopies = 3, kPairCopies = 2, kOutCopies = 1;

struct LastGeometry {
    SmallDivisor in_w;       // positions per input row
    SmallDivisor in_pairs;   // position pairs per input row (in[2] + 1) / 2
    SmallDivisor out_pairs;  // position pairs per output row
    int pitch;               // elements per row of a channel's sequence
    int rows, row_tiles, groups, depth_chunk, depth_chunks;
    int plane;     // elements of a ring slot: (rows + 2) * in[2] * kGroup
    int sequence;  // elements of one channel's sequence or output tile (a multiple of 8)
    int64_t items;
};

// A thread's share of one plane, worked out once per item:
// unit i = k * kThreads + tid is part i % kParts of position (or pair) i / kParts:
//   stage:   in_from[k] in an input plane (0 for a row outside the input, in_row[k] false:
//            zeros), to ring offset in_to[k] (-1: none);
//   in pair: ring offset pair_from[k] of positions (2p, 2p + 1) of a staged row (2p + 1
//            only where pair_second[k]) to sequence offset pair_to[k] (-1: none);
//   out:     output tile offset out_from[k] of positions (2p, 2p + 1) of an output row, to
//            out_at[k] in the output plane (-1: none), 2p + 1 only where out_second[k].
struct LastCopies {
    int in_from[kStageCopies], in_to[kStageCopies];
    bool in_row[kStageCopies];
    int pair_from[kPairCopies], pair_to[kPairCopies];
    bool pair_second[kPairCopies];
    int out_from[kOutCopies], out_at[kOutCopies];
    bool out_second[kOutCopies];
};

// Channel 2q's pair (low halves) and channel 2q + 1's (high halves) of two words holding
// channels 2q, 2q + 1 at two positions; or the reverse: two positions' words from two
// channels' pairs.
__device__ inline uint32_t low_halves(uint32_t a, uint32_t b) { return __byte_perm(a, b, 0x5410); }
__device__ inline uint32_t high_halves(uint32_t a, uint32_t b) { return __byte_perm(a, b, 0x7632); }

template <typename T, bool kSilu, int kTiles>
__global__ void HIPCONV_BOUNDS_NVIDIA(kThreads, kBlocksPerSM)
    conv3d_depthwise_toeplitz_last_kernel(hipconv_conv3d_params p, LastGeometry g) {
    extern __shared__ uint4 shared_words[];
    T *ring = reinterpret_cast<T *>(shared_words);  // kSlots natural planes
    T *sequences = ring + kSlots * g.plane;         // 2 buffers of kGroup channel sequences
    T *out_tiles = sequences + 2 * kGroup * g.sequence;
    const int wave = threadIdx.x / HIPCONV_WAVE_SIZE;
    using Frags = WindowFrags<T, Band3::kSteps>;

    // Zeros in the sequences once: the gaps, the lead and the tail are never written again.
    for (int i = threadIdx.x; i < 2 * kGroup * g.sequence / kRowVec; i += kThreads)
        reinterpret_cast<uint4 *>(sequences)[i] = make_uint4(0, 0, 0, 0);

    for (int64_t item = blockIdx.x; item < g.items; item += gridDim.x) {
        QuotientRemainder q = divide(item, g.groups);
        const int c0 = (int)q.remainder * kGroup;
        q = divide(q.quotient, g.row_tiles);
        const int oh0 = (int)q.remainder * g.rows;
        q = divide(q.quotient, g.depth_chunks);
        const int od0 = (int)q.remainder * g.depth_chunk;
        const int n = (int)q.quotient;
        const int depths = min(g.depth_chunk, p.out[0] - od0);
        const int rows = min(g.rows, p.out[1] - oh0);

        // This wave's channels wave + kWaves * h: their nine bands' operands in registers for
        // the whole item.
        StepTaps<T> item_taps[kWaveChannels][3][3][Band3::kSteps];  // [h][kh][kd][step]
        float bias[kWaveChannels];
        const T *w = static_cast<const T *>(p.w);
#pragma unroll
        for (int h = 0; h < kWaveChannels; ++h) {
            const int c = c0 + wave + kWaves * h;
#pragma unroll
            for (int kh = 0; kh < 3; ++kh)
#pragma unroll
                for (int kd = 0; kd < 3; ++kd)
#pragma unroll
                    for (int s = 0; s < Band3::kSteps; ++s)
                        item_taps[h][kh][kd][s] = step_taps<T>(
                            DepthwiseBand<T>{w + conv3d::offset(p.w_stride, c, 0, kd, kh, 0), p.w_stride[4],
                                             Band3::kReach - 2 - p.pad[2]},
                            s);
            bias[h] = p.bias != nullptr ? to_float(static_cast<const T *>(p.bias)[c]) : 0.f;
        }

        LastCopies copies;
        const int in_w = g.in_w.d;
        // Unit i: part i % kParts (channels 8 * part ..) of position or pair i / kParts.
#pragma unroll
        for (int k = 0; k < kStageCopies; ++k) {
            const int i = k * kThreads + threadIdx.x, part = i % kParts, unit = i / kParts;
            int v;
            const int r = g.in_w.quotient(unit, v);
            const int ih = oh0 - p.pad[1] + r;
            copies.in_row[k] = (unsigned)ih < (unsigned)p.in[1];
            copies.in_from[k] =
                copies.in_row[k] ? ih * (int)p.x_stride[3] + v * (int)p.x_stride[4] + part * kRowVec : 0;
            copies.in_to[k] = unit < (rows + 2) * in_w ? i * kRowVec : -1;
        }
#pragma unroll
        for (int k = 0; k < kPairCopies; ++k) {
            const int i = k * kThreads + threadIdx.x, part = i % kParts, unit = i / kParts;
            int v;
            const int r = g.in_pairs.quotient(unit, v);
            copies.pair_from[k] = (r * in_w + 2 * v) * kGroup + part * kRowVec;
            copies.pair_to[k] =
                unit < (rows + 2) * g.in_pairs.d ? part * kRowVec * g.sequence + kLead + r * g.pitch + 2 * v : -1;
            copies.pair_second[k] = 2 * v + 1 < in_w;
        }
#pragma unroll
        for (int k = 0; k < kOutCopies; ++k) {
            const int i = k * kThreads + threadIdx.x, part = i % kParts, unit = i / kParts;
            int v;
            const int r = g.out_pairs.quotient(unit, v);
            copies.out_from[k] = part * kRowVec * g.sequence + kLead + (r + 1) * g.pitch + 2 * v;
            copies.out_at[k] = r < rows ? r * (int)p.y_stride[3] + 2 * v * (int)p.y_stride[4] + part * kRowVec : -1;
            copies.out_second[k] = 2 * v + 1 < p.out[2];
        }
        const int64_t y_position = p.y_stride[4];

        // Plane j of the chunk (input depth od0 - pad[0] + j) into ring slot j % kSlots; rows
        // and planes outside the input are zeros.
        const T *x_group = static_cast<const T *>(p.x) + conv3d::offset(p.x_stride, n, c0, 0, 0, 0);
        const int planes = depths + 2;
        int64_t x_plane = (int64_t)(od0 - p.pad[0]) * p.x_stride[2];  // plane j's offset, for j in turn
        auto stage = [&](int j) {
            if (j < planes) {
                const int id = od0 - p.pad[0] + j;
                bool source = (unsigned)id < (unsigned)p.in[0];
                const T *plane = x_group + (source ? x_plane : 0);
                if (__builtin_expect(id < 0 && id >= -p.pad[0] && p.initial_frames != nullptr, 0)) {
                    plane = static_cast<const T *>(p.initial_frames) +
                            conv3d::offset(p.initial_stride, n, c0, p.pad[0] + id, 0, 0);
                    source = true;
                }
                T *slot = ring + (j % kSlots) * g.plane;
#pragma unroll
                for (int k = 0; k < kStageCopies; ++k)
                    if (copies.in_to[k] >= 0)
                        copy16_once_if(source && copies.in_row[k], plane + copies.in_from[k], slot + copies.in_to[k]);
            }
            x_plane += p.x_stride[2];
            copy_commit();  // an empty stage past the chunk keeps the count uniform
        };
        // Ring slot of plane j to sequence buffer j % 2.
        auto transpose_in = [&](int j) {
            const T *slot = ring + (j % kSlots) * g.plane;
            T *seq = sequences + (j % 2) * kGroup * g.sequence;
#pragma unroll
            for (int k = 0; k < kPairCopies; ++k) {
                if (copies.pair_to[k] < 0) continue;
                const uint4 a = *reinterpret_cast<const uint4 *>(slot + copies.pair_from[k]);
                const uint4 b = copies.pair_second[k]
                                    ? *reinterpret_cast<const uint4 *>(slot + copies.pair_from[k] + kGroup)
                                    : make_uint4(0, 0, 0, 0);
                const uint32_t aw[4] = {a.x, a.y, a.z, a.w}, bw[4] = {b.x, b.y, b.z, b.w};
                T *to = seq + copies.pair_to[k];
#pragma unroll
                for (int h = 0; h < 4; ++h) {
                    *reinterpret_cast<uint32_t *>(to + (2 * h) * g.sequence) = low_halves(aw[h], bw[h]);
                    *reinterpret_cast<uint32_t *>(to + (2 * h + 1) * g.sequence) = high_halves(aw[h], bw[h]);
                }
            }
        };
        // Output tile b (output plane `od`, chunk-relative) to y.
        T *y_rows = static_cast<T *>(p.y) + conv3d::offset(p.y_stride, n, c0, od0, oh0, 0);
        auto write_out = [&](int b, int od) {
            T *y_plane = y_rows + od * p.y_stride[2];
            const T *tile = out_tiles + b * kGroup * g.sequence;
#pragma unroll
            for (int k = 0; k < kOutCopies; ++k) {
                if (copies.out_at[k] < 0) continue;
                uint32_t word[kRowVec];
#pragma unroll
                for (int ch = 0; ch < kRowVec; ++ch)
                    word[ch] = *reinterpret_cast<const uint32_t *>(tile + ch * g.sequence + copies.out_from[k]);
                T *to = y_plane + copies.out_at[k];
                store16_once(to,
                    make_uint4(low_halves(word[0], word[1]), low_halves(word[2], word[3]),
                               low_halves(word[4], word[5]), low_halves(word[6], word[7])));
                if (copies.out_second[k])
                    store16_once(to + y_position,
                        make_uint4(high_halves(word[0], word[1]), high_halves(word[2], word[3]),
                                   high_halves(word[4], word[5]), high_halves(word[6], word[7])));
            }
        };

        __syncthreads();  // the previous item's reads of the ring, the sequences and the tiles are done
        for (int j = 0; j < kSlots; ++j) stage(j);
        copy_wait<kSlots - 1>();  // plane 0 has landed
        __syncthreads();
        transpose_in(0);

        // [tile][output depth mod 3], as in depthwise_toeplitz.hip: output j starts at the bias
        // as the addend of its first product (plane j, kh 0, kd 0).
        TileAcc acc[kWaveChannels][kTiles][3], bias_acc[kWaveChannels];
#pragma unroll
        for (int h = 0; h < kWaveChannels; ++h) {
            fill(bias_acc[h], bias[h]);
#pragma unroll
            for (int t = 0; t < kTiles; ++t)
#pragma unroll
                for (int r = 0; r < 3; ++r) zero(acc[h][t][r]);
        }
        const T *channel_sequences = sequences + wave * g.sequence + g.pitch;  // + f0 - kReach of tile 0
        T *channel_tiles = out_tiles + wave * g.sequence + kLead + g.pitch - 2;

        for (int j0 = 0; j0 < planes; j0 += 3) {
#pragma unroll
            for (int u = 0; u < 3; ++u) {
                const int j = j0 + u;
                if (j >= planes) HIPCONV_DWT_PAST_CHUNK;
                copy_wait<kSlots - 2>();  // plane j + 1 has landed
                __syncthreads();  // plane j is in its sequences, plane j's slot is free, output j - 3 in its tile
                stage(j + kSlots);
                if (j + 1 < planes) transpose_in(j + 1);
                if (j >= 3) write_out((j - 1) % 2, j - 3);
#pragma unroll
                for (int h = 0; h < kWaveChannels; ++h) {
                    const T *window = channel_sequences + ((j % 2) * kGroup + kWaves * h) * g.sequence;
#pragma unroll
                    for (int t = 0; t < kTiles; ++t) {
#pragma unroll
                        for (int kh = 0; kh < 3; ++kh) {
                            Frags frags;
                            load_window<T, Band3::kSteps>(frags, window + (kh - 1) * g.pitch + t * kTile);
#pragma unroll
                            for (int kd = 0; kd < 3; ++kd) {
                                TileAcc &out = acc[h][t][(u - kd + 3) % 3];
                                if (kh == 0 && kd == 0) out = bias_acc[h];
                                multiply(out, frags, [&](int s) { return item_taps[h][kh][kd][s]; });
                            }
                        }
                    }
                }
                const int done = (u + 1) % 3;  // output j - 2 (a constant once unrolled)
                if (j >= 2) {
#pragma unroll
                    for (int h = 0; h < kWaveChannels; ++h) {
                        T *tile = channel_tiles + ((j % 2) * kGroup + kWaves * h) * g.sequence;
#pragma unroll
                        for (int t = 0; t < kTiles; ++t)
#pragma unroll
                            for (int e = 0; e < 2; ++e) {
                                const uint32_t lo =
                                    float_to_bits(T(), activate_to<kSilu, T>(acc_value(acc[h][t][done], 2 * e)));
                                const uint32_t hi =
                                    float_to_bits(T(), activate_to<kSilu, T>(acc_value(acc[h][t][done], 2 * e + 1)));
                                *reinterpret_cast<uint32_t *>(tile + t * kTile + output_offset(2 * e)) = lo | hi << 16;
                            }
                    }
                }
            }
        }
        __syncthreads();  // the last output plane is in its tile
        write_out((planes - 1) % 2, depths - 1);
    }
}

template <typename T, bool kSilu, int kTiles>
hipError_t launch_kernel(const hipconv_conv3d_params &p, const LastGeometry &g, dim3 grid, int shared_bytes,
                         hipStream_t stream) {
    static std::atomic<int64_t> shared_granted[kMaxCachedDevices];
    auto kernel = conv3d_depthwise_toeplitz_last_kernel<T, kSilu, kTiles>;
    const hipError_t err = allow_dynamic_shared(kernel, shared_bytes, shared_granted);
    if (err != hipSuccess) return err;
    hipLaunchKernelGGL(kernel, grid, dim3(kThreads), shared_bytes, stream, p, g);
    return hipGetLastError();
}

template <typename T, bool kSilu>
hipError_t launch_tiles(const hipconv_conv3d_params &p, const LastGeometry &g, int tiles, dim3 grid,
                        int shared_bytes, hipStream_t stream) {
    if constexpr (kWaveTiles > 2)
        if (tiles > 2) return launch_kernel<T, kSilu, kWaveTiles>(p, g, grid, shared_bytes, stream);
    return launch_kernel<T, kSilu, 2>(p, g, grid, shared_bytes, stream);
}

}  // namespace

// Launches the NDHWC matrix-core kernel where it applies (T f16 or bf16; 3x3x3, stride and
// dilation 1, channels in 16-byte vectors of x, frames and y, pad[2] <= 1, planes whose
// rows fit the block's copies) and sets *status; returns false, launching nothing, elsewhere.
template <typename T>
bool launch_conv3d_depthwise_toeplitz_last(const hipconv_conv3d_params &p, hipStream_t stream,
                                           hipconv_status_t *status) {
    const bool taps3 = p.kernel[0] == 3 && p.kernel[1] == 3 && p.kernel[2] == 3;
    const bool unit = p.stride[0] == 1 && p.stride[1] == 1 && p.stride[2] == 1 && p.dilation[0] == 1 &&
                      p.dilation[1] == 1 && p.dilation[2] == 1;
    const bool vectors =
        p.cin % kGroup == 0 && conv3d::vectors_along<T>(p.x, p.x_stride, 1) &&
        conv3d::vectors_along<T>(p.y, p.y_stride, 1) &&
        (p.initial_frames == nullptr || (conv3d::vectors_along<T>(p.initial_frames, p.initial_stride, 1) &&
                                         p.initial_stride[3] == p.x_stride[3] && p.initial_stride[4] == p.x_stride[4]));
    const int pitch = (int)ceil_div(p.in[2], kRowVec) * kRowVec + kRowVec;
    // Outputs read input columns -pad[2] .. out[2] + 1 - pad[2]: inside the row or its gap.
    const bool columns = p.pad[2] <= 1 && p.out[2] + 1 - p.pad[2] < pitch;
    // Plane offsets are 32-bit (x's, the frames' and y's).
    const auto fits32 = [](int64_t v) { return v < (int64_t(1) << 31); };
    const bool plane_offsets =
        fits32((int64_t)(p.in[1] - 1) * p.x_stride[3] + (int64_t)p.in[2] * p.x_stride[4]) &&
        fits32((int64_t)p.out[1] * p.y_stride[3] + (int64_t)p.out[2] * p.y_stride[4]);
    if (!(taps3 && unit && vectors && columns && plane_offsets)) return false;

    const int in_pairs = (int)ceil_div(p.in[2], 2), out_pairs = (int)ceil_div(p.out[2], 2);
    // For r output rows: the elements of a ring slot, of one channel's sequence (or output
    // tile), and the bytes of shared memory (kSlots slots, two sequence buffers, two tiles).
    auto plane_elements = [&](int r) { return (int64_t)(r + 2) * p.in[2] * kGroup; };
    auto sequence_elements = [&](int r, int &tiles) {
        return (int)ceil_div(slot_elements(r, pitch, p.out[2], 1, tiles), kRowVec) * kRowVec;
    };
    auto shared_bytes_for = [&](int r, int sequence) {
        return (kSlots * plane_elements(r) + 4 * kGroup * (int64_t)sequence) * (int64_t)sizeof(T);
    };
    // The most rows that the threads' copies, a wave's tiles and the shared budget hold.
    auto fits = [&](int r) {
        int tiles = 0;
        const int sequence = sequence_elements(r, tiles);
        constexpr int64_t kPositions = kStageCopies * kThreads / kParts, kInPairs = kPairCopies * kThreads / kParts,
                          kOutPairs = kOutCopies * kThreads / kParts;
        return (int64_t)(r + 2) * p.in[2] <= kPositions && (int64_t)(r + 2) * in_pairs <= kInPairs &&
               (int64_t)r * out_pairs <= kOutPairs && tiles <= kWaveTiles &&
               shared_bytes_for(r, sequence) <= kSharedBudget;
    };
    int rows = p.out[1];
    while (rows > 1 && !fits(rows)) --rows;
    if (!fits(rows)) return false;

    LastGeometry g;
    g.in_w = small_divisor(p.in[2]);
    g.in_pairs = small_divisor(in_pairs);
    g.out_pairs = small_divisor(out_pairs);
    g.pitch = pitch;
    g.row_tiles = (int)ceil_div(p.out[1], rows);
    g.rows = (int)ceil_div(p.out[1], g.row_tiles);
    int tiles = 0;
    g.sequence = sequence_elements(g.rows, tiles);
    g.plane = (int)plane_elements(g.rows);
    g.groups = p.cin / kGroup;
    hipError_t err = hipSuccess;
    const int64_t per_chunk = (int64_t)p.batch * g.groups * g.row_tiles;
    g.depth_chunks = depth_chunks(p.out[0], per_chunk, &g.depth_chunk, &err);
    if (err != hipSuccess) {
        *status = (hipconv_status_t)err;
        return true;
    }
    g.items = per_chunk * g.depth_chunks;

    const int shared_bytes = (int)shared_bytes_for(g.rows, g.sequence);
    const dim3 grid(grid_blocks(g.items));
    *status = (hipconv_status_t)(p.silu != 0 ? launch_tiles<T, true>(p, g, tiles, grid, shared_bytes, stream)
                                             : launch_tiles<T, false>(p, g, tiles, grid, shared_bytes, stream));
    return true;
}

template bool launch_conv3d_depthwise_toeplitz_last<__half>(const hipconv_conv3d_params &, hipStream_t,
                                                           hipconv_status_t *);
template bool launch_conv3d_depthwise_toeplitz_last<hipconv_bf16>(const hipconv_conv3d_params &, hipStream_t,
                                                                 hipconv_status_t *);

}  // namespace hipconv
