/*
 * Depthwise conv3d on the matrix cores, channel-first (NCDHW), f16/bf16: the 3x3x3 taps of
 * one channel as nine Toeplitz products along w (hip/common/toeplitz_tile.h), one per
 * (kd, kh), summed in fp32 by the matrix unit. The vector-unit kernel (depthwise.hip) spends
 * 27 fp32 multiply-adds and ~45 instructions per output and is issue-bound; here a tile of
 * kTile outputs costs 3 window loads and 9 matrix steps per plane.
 *
 *   in   x [batch, C, in[0..2]] by x_stride (w stride 1, rows of 16-byte vectors),
 *        w [C, 1, 3, 3, 3] by w_stride, bias [C] or NULL,
 *        initial_frames [batch, C, pad[0], in[1], in[2]] or NULL (same vector rules, and x's row stride)
 *   out  y [batch, C, out[0..2]] by y_stride (w stride 1, rows of 16-byte vectors)
 *        y[n,c,od,oh,ow] = act(bias[c] + sum t[c,kd,kh,kw] x[n,c,od-pad0+kd,oh-pad1+kh,ow-pad2+kw])
 *
 * A block owns one (n, c), a tile of `rows` output rows and a chunk of output depths. It
 * streams the input planes of its rows through a ring of kSlots plane buffers in shared
 * memory (cp.async: three planes in flight while one is computed). A slot holds the
 * rows + 2 input rows oh0 - pad1 + r as one flattened sequence, each row followed by a gap
 * of zeros (pitch = in[2] + 8), so that a filter along that sequence is the filter along w
 * of every row with its zero padding:
 *
 *     slot:  | lead 0s | row 0 (ih = oh0-pad1) | 0s | row 1 | 0s | ... | row rows+1 | 0s | tail |
 *              kReach    <------ pitch ------>
 *
 * Output (oh0 + j, ow) sits at e = lead + (j + 1) * pitch + ow + 2 of that sequence; tap
 * (kd, kh, kw) reads input plane od + kd (chunk-relative) at e + (kh - 1) * pitch + kw - 2 -
 * pad2. Tiles of kTile consecutive e (the band shift kReach - 2 - pad2 keeps them 8-aligned)
 * cover the rows; outputs in the gaps are computed and dropped.
 *
 * Depth walk: plane j feeds outputs j, j - 1, j - 2 through taps kd = 0, 1, 2. Each wave keeps
 * its tiles' three accumulators (a ring by output depth mod 3; the plane loop is unrolled by
 * 3 so the ring index is a compile-time constant) and the nine bands' operands in registers
 * for the whole item (read from shared memory once, after the block builds them). Per tile
 * it loads the plane's window once per kh and multiplies it by the three kd bands; the
 * product that starts output j (plane j, kh 0, kd 0) takes the bias as its addend. After
 * plane j, output j - 2 is complete: activated and rounded into output tile j % 2
 * (slot-shaped, each output at e - 2 so that rows start 16-byte aligned), which the block
 * copies to y in 16-byte row stores after the next plane's barrier. Staging and output
 * addresses are worked out once per item (at most kCopies vectors a thread), so that a
 * plane costs a pointer and a predicate per copy.
 *   window (kh = 1) of tile t:  slot + f0 - kReach, f0 = lead + pitch + t * kTile
 *   kh = 0 / 2: one pitch before / after
 *
 * Launch: kThreads threads (NVIDIA 4 warps, four blocks an SM at 128 registers; AMD 4 waves
 * of 64); wave w takes tiles w, w + kWaves, ..., kTiles of them (2 or 4, the kernel's
 * instances: the plane's tiles padded to kWaves * kTiles, so no branch separates their
 * matrix steps, except that a wave whose last tile is past the plane's skips it); one block
 * per (n, c, row tile, depth chunk of up to 16), depth chunk fastest (neighbouring chunks
 * share planes in L2). Dynamic shared memory: kSlots input slots, two output tiles and the
 * taps operands (28 KiB on NVIDIA at the bench's 56 x 56 planes: two row tiles of 28 rows).
 * Input planes are read once and outputs written once: both go through L2 as evict-first
 * (block_copy.h copy16_once_if, store16_once).
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

// Block sizes (the kernel's kThreads) in order of preference: the launcher takes the first
// whose block stages at least 4 rows of the plane (or all of them). NVIDIA: 4 warps, four
// blocks an SM, so that one block's matrix steps overlap the others' copies at independent
// plane barriers (against 8 warps and two blocks: 129.4 against 130.7 us at the bench's
// 56 x 56 planes, 125.3-125.8 against 130.3-131.2 with the L2 hints of block_copy.h; the
// two row tiles' halo rows come from L2); 8 warps for wider rows. AMD: 4 waves of 64.
#if defined(HIPCONV_PLATFORM_NVIDIA)
constexpr int kBlockSizes[] = {128, 256};
constexpr int kBlockThreads = 512;  // registers per SM / 128: threads of the blocks an SM holds
#else
constexpr int kBlockSizes[] = {256};
#endif
constexpr int kSlotBudget = 4352;  // elements per slot (8.5 KiB)

struct Geometry {
    SmallDivisor pitch;        // elements per staged row (in[2] + 8)
    SmallDivisor vectors;      // 16-byte vectors per input row (in[2] / 8)
    SmallDivisor out_vectors;  // 16-byte vectors per output row (out[2] / 8)
    int rows;                  // output rows per block
    int tiles;                 // tiles of kTile outputs that cover them
    int row_tiles;
    int depth_chunk;
    int depth_chunks;
    int slot;  // elements per ring slot and output tile (a multiple of 8)
    int64_t items;
};

// A thread's share of staging one plane and of writing one output plane, worked out once
// per item: copy k moves vector k * kThreads + tid (k even) or (k + 1) * kThreads - 1 - tid
// (k odd: from the last thread down, so the high waves, which skip a padded last tile where
// a plane has one, take more of the copies); kCopies * kThreads covers the staged input
// vectors and the output vectors (the launcher checks).
//   stage:  in_from[k] in an input plane (row * row stride + column, the same in x and in
//           the frames; 0 for a row outside the input, which in_row[k] says is zeros) to
//           slot offset in_to[k] (-1: past the staged rows, no copy);
//   output: out_from[k] in the output tile to out_at[k] in the output plane (-1: none).
// A plane then costs a pointer and a predicate per copy (the launcher checks that plane
// offsets fit 32 bits and that the frames' rows are x's).
constexpr int kCopies = 2;
struct Copies {
    int in_from[kCopies], in_to[kCopies];
    bool in_row[kCopies];
    int out_from[kCopies], out_at[kCopies];
};

// kTiles tiles per wave (the plane's tiles padded to kWaves * kTiles: no branch between
// them, so their matrix steps interleave).
template <typename T, bool kSilu, int kTiles, int kThreads>
__global__ void HIPCONV_BOUNDS_NVIDIA(kThreads, kBlockThreads / kThreads)  // (AMD: kThreads only)
    conv3d_depthwise_toeplitz_kernel(hipconv_conv3d_params p, Geometry g) {
    constexpr int kWaves = kThreads / HIPCONV_WAVE_SIZE;
    extern __shared__ uint4 shared_words[];
    T *ring = reinterpret_cast<T *>(shared_words);  // kSlots input planes, then 2 output tiles
    T *out_tiles = ring + kSlots * g.slot;
    StepTaps<T> *band_slots = reinterpret_cast<StepTaps<T> *>(out_tiles + 2 * g.slot);  // [band][step][lane]
    const int wave = threadIdx.x / HIPCONV_WAVE_SIZE, lane = mc::lane_id();
    using Frags = WindowFrags<T, Band3::kSteps>;

    // Zeros everywhere once: the gaps, the lead and the tail are never written again.
    for (int i = threadIdx.x; i < kSlots * g.slot / kRowVec; i += kThreads) shared_words[i] = make_uint4(0, 0, 0, 0);

    for (int64_t item = blockIdx.x; item < g.items; item += gridDim.x) {
        QuotientRemainder q = divide(item, g.depth_chunks);
        const int od0 = (int)q.remainder * g.depth_chunk;
        q = divide(q.quotient, g.row_tiles);
        const int oh0 = (int)q.remainder * g.rows;
        q = divide(q.quotient, p.cout);
        const int c = (int)q.remainder, n = (int)q.quotient;
        const int depths = min(g.depth_chunk, p.out[0] - od0);
        const int rows = min(g.rows, p.out[1] - oh0);

        __syncthreads();  // the previous item's reads of the ring, the tiles and the bands are done
        const T *w = static_cast<const T *>(p.w);
        for (int b = wave; b < kBands; b += kWaves)
            build_taps<T, Band3::kSteps>(
                band_slots + b * Band3::kSteps * HIPCONV_WAVE_SIZE,
                DepthwiseBand<T>{w + conv3d::offset(p.w_stride, c, 0, b / 3, b % 3, 0), p.w_stride[4],
                                 Band3::kReach - 2 - p.pad[2]});
        const float bias = p.bias != nullptr ? to_float(static_cast<const T *>(p.bias)[c]) : 0.f;

        Copies copies;
#pragma unroll
        for (int k = 0; k < kCopies; ++k) {
            const int i = k % 2 == 0 ? k * kThreads + threadIdx.x : (k + 1) * kThreads - 1 - threadIdx.x;
            int v;
            int r = g.vectors.quotient(i, v);
            const int ih = oh0 - p.pad[1] + r;
            copies.in_row[k] = (unsigned)ih < (unsigned)p.in[1];
            copies.in_from[k] = copies.in_row[k] ? ih * (int)p.x_stride[3] + v * kRowVec : 0;
            copies.in_to[k] = i < (rows + 2) * g.vectors.d ? kLead + r * g.pitch.d + v * kRowVec : -1;
            r = g.out_vectors.quotient(i, v);
            copies.out_from[k] = kLead + (r + 1) * g.pitch.d + v * kRowVec;
            copies.out_at[k] = r < rows ? r * (int)p.y_stride[3] + v * kRowVec : -1;
        }
        // Plane j of the chunk (input depth od0 - pad[0] + j) into slot j % kSlots: rows + 2
        // rows of in[2] / 8 vectors; rows and planes outside the input are zeros.
        const T *x_channel = static_cast<const T *>(p.x) + conv3d::offset(p.x_stride, n, c, 0, 0, 0);
        const int planes = depths + 2;
        // stage(j) is called for j = 0, 1, 2, ... in turn: x_plane is plane j's offset in x.
        int64_t x_plane = (int64_t)(od0 - p.pad[0]) * p.x_stride[2];
        auto stage = [&](int j) {
            if (j < planes) {
                const int id = od0 - p.pad[0] + j;
                // A plane neither in x nor in the frames is zeros (read from x_channel: none).
                bool source = (unsigned)id < (unsigned)p.in[0];
                const T *plane = x_channel + (source ? x_plane : 0);
                if (__builtin_expect(id < 0 && id >= -p.pad[0] && p.initial_frames != nullptr, 0)) {  // rare: a branch
                    plane = static_cast<const T *>(p.initial_frames) +
                            conv3d::offset(p.initial_stride, n, c, p.pad[0] + id, 0, 0);
                    source = true;
                }
                T *slot = ring + (j % kSlots) * g.slot;
#pragma unroll
                for (int k = 0; k < kCopies; ++k)
                    if (copies.in_to[k] >= 0)
                        copy16_once_if(source && copies.in_row[k], plane + copies.in_from[k], slot + copies.in_to[k]);
            }
            x_plane += p.x_stride[2];
            copy_commit();  // an empty stage past the chunk keeps the count uniform
        };
        // Output tile b (rows of the output plane `od`, chunk-relative) to y.
        T *y_rows = static_cast<T *>(p.y) + conv3d::offset(p.y_stride, n, c, od0, oh0, 0);
        auto write_out = [&](int b, int od) {
            T *y_plane = y_rows + od * p.y_stride[2];
            const T *tile = out_tiles + b * g.slot;
#pragma unroll
            for (int k = 0; k < kCopies; ++k)
                if (copies.out_at[k] >= 0)
                    store16_once(y_plane + copies.out_at[k],
                                 *reinterpret_cast<const uint4 *>(tile + copies.out_from[k]));
        };

        __syncthreads();  // the bands and the zeroed ring are in place
        // The wave's last tile: past the plane's tiles for some waves (the plane is padded to
        // kWaves * kTiles tiles); they skip it.
        const bool last_tile = wave + (kTiles - 1) * kWaves < g.tiles;
        auto computed = [&](int t) { return t < kTiles - 1 || last_tile; };
        StepTaps<T> item_taps[3][3][Band3::kSteps];  // [kh][kd][step]
#pragma unroll
        for (int kh = 0; kh < 3; ++kh)
#pragma unroll
            for (int kd = 0; kd < 3; ++kd)
#pragma unroll
                for (int s = 0; s < Band3::kSteps; ++s)
                    item_taps[kh][kd][s] = band_slots[((kd * 3 + kh) * Band3::kSteps + s) * HIPCONV_WAVE_SIZE + lane];
        for (int j = 0; j < kSlots - 1; ++j) stage(j);

        // [tile][output depth mod 3]: output j is set to the bias by its first product (plane
        // j, kh 0, kd 0), the matrix step's addend, so no fill follows each output. Outputs
        // -2 and -1 (products of the first planes, never stored) start at zero.
        TileAcc acc[kTiles][3], bias_acc;
        fill(bias_acc, bias);
#pragma unroll
        for (int t = 0; t < kTiles; ++t)
#pragma unroll
            for (int r = 0; r < 3; ++r) zero(acc[t][r]);

        for (int j0 = 0; j0 < planes; j0 += 3) {
#pragma unroll
            for (int u = 0; u < 3; ++u) {
                const int j = j0 + u;
                if (j >= planes) HIPCONV_DWT_PAST_CHUNK;
                copy_wait<kSlots - 2>();  // plane j has landed
                __syncthreads();  // for every thread; plane j - 1's slot is free, output j - 3 is in its tile
                stage(j + kSlots - 1);
                if (j >= 3) write_out((j - 1) % 2, j - 3);
                const T *window = ring + (j % kSlots) * g.slot + g.pitch.d + wave * kTile;  // tile's f0 - kReach
                // Tile t (the last one only where it holds outputs: `last_tile`), window kh - 1
                // rows off, times band (kd, kh) into output j - kd: ring slot (u - kd) mod 3;
                // output j starts here (kh 0, kd 0), at its bias.
#pragma unroll
                for (int t = 0; t < kTiles; ++t) {
                    if (!computed(t)) continue;  // only the last t (continue: hipcc unrolls it)
#pragma unroll
                    for (int kh = 0; kh < 3; ++kh) {
                        Frags frags;
                        load_window<T, Band3::kSteps>(frags, window + (kh - 1) * g.pitch.d + t * kWaves * kTile);
#pragma unroll
                        for (int kd = 0; kd < 3; ++kd) {
                            TileAcc &out = acc[t][(u - kd + 3) % 3];
                            if (kh == 0 && kd == 0) out = bias_acc;
                            multiply(out, frags, [&](int s) { return item_taps[kh][kd][s]; });
                        }
                    }
                }
                const int done = (u + 1) % 3;  // output j - 2 (a constant once unrolled)
                if (j >= 2) {
                    // Into output tile j % 2 at e - 2 (pairs (e, e + 1), e even): row r at
                    // lead + (r + 1) * pitch, 16-byte aligned.
                    T *tile = out_tiles + (j % 2) * g.slot + kLead + g.pitch.d + wave * kTile - 2;
#pragma unroll
                    for (int t = 0; t < kTiles; ++t)
#pragma unroll
                        for (int h = 0; h < 2; ++h) {
                            if (!computed(t)) continue;  // only the last t (continue: hipcc unrolls it)
                            const uint32_t lo = float_to_bits(T(), activate<kSilu>(acc_value(acc[t][done], 2 * h)));
                            const uint32_t hi = float_to_bits(T(), activate<kSilu>(acc_value(acc[t][done], 2 * h + 1)));
                            *reinterpret_cast<uint32_t *>(tile + t * kWaves * kTile + output_offset(2 * h)) =
                                lo | hi << 16;
                        }
                }
            }
        }
        __syncthreads();  // the last output plane is in its tile
        write_out((planes - 1) % 2, depths - 1);
    }
}

template <typename T, bool kSilu, int kTiles, int kThreads>
hipError_t launch_kernel(const hipconv_conv3d_params &p, const Geometry &g, dim3 grid, int shared_bytes,
                         hipStream_t stream) {
    static std::atomic<int64_t> shared_granted[kMaxCachedDevices];
    auto kernel = conv3d_depthwise_toeplitz_kernel<T, kSilu, kTiles, kThreads>;
    const hipError_t err = allow_dynamic_shared(kernel, shared_bytes, shared_granted);
    if (err != hipSuccess) return err;
    hipLaunchKernelGGL(kernel, grid, dim3(kThreads), shared_bytes, stream, p, g);
    return hipGetLastError();
}

template <typename T, bool kSilu, int kThreads>
hipError_t launch_kernel(const hipconv_conv3d_params &p, const Geometry &g, int tiles_wave, dim3 grid,
                         int shared_bytes, hipStream_t stream) {
    return tiles_wave == 2 ? launch_kernel<T, kSilu, 2, kThreads>(p, g, grid, shared_bytes, stream)
                           : launch_kernel<T, kSilu, kMaxTiles, kThreads>(p, g, grid, shared_bytes, stream);
}

// The instance of kBlockSizes[kIndex...] that has `threads` threads.
template <typename T, bool kSilu, size_t kIndex = 0>
hipError_t launch_block(const hipconv_conv3d_params &p, const Geometry &g, int threads, int tiles_wave, dim3 grid,
                        int shared_bytes, hipStream_t stream) {
    constexpr int kThreads = kBlockSizes[kIndex];
    if constexpr (kIndex + 1 < sizeof(kBlockSizes) / sizeof(kBlockSizes[0]))
        if (threads != kThreads)
            return launch_block<T, kSilu, kIndex + 1>(p, g, threads, tiles_wave, grid, shared_bytes, stream);
    return launch_kernel<T, kSilu, kThreads>(p, g, tiles_wave, grid, shared_bytes, stream);
}

}  // namespace

// Launches the matrix-core kernel where it applies (T f16 or bf16; 3x3x3, stride and
// dilation 1, NCDHW x, frames and y in rows of 16-byte vectors, pad[2] <= 1, planes whose
// rows fit the slots) and sets *status; returns false, launching nothing, elsewhere.
template <typename T>
bool launch_conv3d_depthwise_toeplitz(const hipconv_conv3d_params &p, hipStream_t stream, hipconv_status_t *status) {
    const bool taps3 = p.kernel[0] == 3 && p.kernel[1] == 3 && p.kernel[2] == 3;
    const bool unit = p.stride[0] == 1 && p.stride[1] == 1 && p.stride[2] == 1 && p.dilation[0] == 1 &&
                      p.dilation[1] == 1 && p.dilation[2] == 1;
    const bool y_rows = p.out[2] % kRowVec == 0 && p.y_stride[3] > 0 && conv3d::vectors_along<T>(p.y, p.y_stride, 4);
    const bool rows_of_vectors =
        p.in[2] % kRowVec == 0 && conv3d::vectors_along<T>(p.x, p.x_stride, 4) &&
        (p.initial_frames == nullptr || conv3d::vectors_along<T>(p.initial_frames, p.initial_stride, 4));
    const int pitch = p.in[2] + kRowVec;
    // Outputs read input columns -pad[2] .. out[2] + 1 - pad[2]: inside the row or its gap.
    const bool columns = p.pad[2] <= 1 && p.out[2] + 1 - p.pad[2] < pitch;
    // A staged copy's offset in a plane is 32-bit, and one offset serves x and the frames.
    const bool plane_offsets = p.x_stride[3] < (int64_t(1) << 31) &&
                               (int64_t)(p.in[1] - 1) * p.x_stride[3] + p.in[2] < (int64_t(1) << 31) &&
                               (p.initial_frames == nullptr || p.initial_stride[3] == p.x_stride[3]);
    if (!(taps3 && unit && y_rows && rows_of_vectors && columns && plane_offsets) || p.in[2] > kSlotBudget)
        return false;

    Geometry g;
    g.pitch = small_divisor(pitch);
    g.vectors = SmallDivisor{p.in[2] / kRowVec, (float)kRowVec / (float)p.in[2]};
    g.out_vectors = SmallDivisor{p.out[2] / kRowVec, (float)kRowVec / (float)p.out[2]};
    // The most rows that a slot, the waves' tiles, the threads' copies and 32-bit output
    // offsets hold, for the first block size where that is 4 rows or the plane; then as many
    // row tiles as that needs, evened out.
    int threads = 0, rows = 0;
    for (const int block : kBlockSizes) {
        const int waves = block / HIPCONV_WAVE_SIZE;
        auto fits = [&](int r) {
            int tiles = 0;
            return slot_elements(r, pitch, p.out[2], waves, tiles) <= kSlotBudget && tiles <= waves * kMaxTiles &&
                   (r + 2) * (p.in[2] / kRowVec) <= kCopies * block && r * (p.out[2] / kRowVec) <= kCopies * block &&
                   (int64_t)r * p.y_stride[3] < (int64_t(1) << 31);
        };
        rows = p.out[1];
        while (rows > 1 && !fits(rows)) --rows;
        if (fits(rows) && (rows >= 4 || rows == p.out[1])) {
            threads = block;
            break;
        }
    }
    if (threads == 0) return false;
    const int waves = threads / HIPCONV_WAVE_SIZE;
    g.row_tiles = (int)ceil_div(p.out[1], rows);
    g.rows = (int)ceil_div(p.out[1], g.row_tiles);
    int tiles = 0;
    g.slot = (int)ceil_div(slot_elements(g.rows, pitch, p.out[2], waves, tiles), kRowVec) * kRowVec;
    g.tiles = tiles;

    hipError_t err = hipSuccess;
    const int64_t per_chunk = (int64_t)p.batch * p.cout * g.row_tiles;
    g.depth_chunks = depth_chunks(p.out[0], per_chunk, &g.depth_chunk, &err);
    if (err != hipSuccess) {
        *status = (hipconv_status_t)err;
        return true;
    }
    g.items = per_chunk * g.depth_chunks;

    const int shared_bytes = (kSlots + 2) * g.slot * (int)sizeof(T) +
                             kBands * Band3::kSteps * HIPCONV_WAVE_SIZE * (int)sizeof(StepTaps<T>);
    const dim3 grid(grid_blocks(g.items));
    const int tiles_wave = tiles_per_wave(tiles, waves);
    *status = (hipconv_status_t)(p.silu != 0
                                     ? launch_block<T, true>(p, g, threads, tiles_wave, grid, shared_bytes, stream)
                                     : launch_block<T, false>(p, g, threads, tiles_wave, grid, shared_bytes, stream));
    return true;
}

template bool launch_conv3d_depthwise_toeplitz<__half>(const hipconv_conv3d_params &, hipStream_t, hipconv_status_t *);
template bool launch_conv3d_depthwise_toeplitz<hipconv_bf16>(const hipconv_conv3d_params &, hipStream_t,
                                                            hipconv_status_t *);

}  // namespace hipconv
