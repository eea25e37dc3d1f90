/*
 * The backward's tiled channel-last path (hipconv/conv1d.h, "backward"), widths 1..4:
 * x, dy, dx [batch, seqlen, dim] by strides with channels contiguous in 16-byte vectors
 * (dim, the strides and the pointers a whole number of them), no packed batch.
 *
 * f16 and bf16; f32 only where its tiles come in by TMA (an NVIDIA build's sm_90 code and
 * the driver's map encoder: tiles_by_tma). Without TMA f32 runs faster on
 * backward_channel_last.hip (docs/PERFORMANCE.md, "Backward"), and AMD does not compile
 * f32's kernels here.
 *
 * A tile is kTimes rows of kThreads channels of one batch row, staged in (dynamic) shared
 * memory in one of kBuffers buffers (StageLayout); thread i walks channel c0 + i down the
 * tile's times in registers (one barrier a tile). kTimes is 16 for 16-bit types; f32 takes
 * 24, or 16 in problems of fewer than 2^24 elements (short_tiles). Two ways in and out:
 *
 *   TMA (an sm_90 build, the maps encoded: launch_width): thread 0 copies a tile as two
 *     boxes of a 3-D map [batch][seqlen][dim] (zeros outside x and dy), their bytes counted
 *     on the buffer's mbarrier `landed`; both go one tile ahead of the walk: the next
 *     tile's boxes are issued as the current tile's walk starts. A thread writes dx(t0+r)
 *     over dy's row r, read already, and after the next barrier thread 0 stores the kTimes
 *     dx rows as one box, which the unit clips at seqlen and dim: no address, bounds test or
 *     store per time in the walk. A buffer takes its next boxes once that store has read
 *     it: the third buffer gives the store a tile's walk for that.
 *   elsewhere (AMD, sm_80, no encoder): every thread copies 16-byte vectors (cp.async on
 *     sm_80+), the kBuffers-1 tiles after the one being walked in flight, and stores its
 *     dx straight to global memory (a wave's 32 channels: 64 contiguous bytes a row).
 *
 *   x rows   t0-H .. t0+kTimes-1   (+ H more after, for a recomputed head)
 *   dy rows  t0 .. t0+kTimes-1     (+ H more after; rows 0..kTimes-1 then hold dx, TMA)
 *                 channel c0 .. c0+kThreads-1 across, 16-byte vectors; thread i copies
 *                 vector i % (kThreads/E) of rows i / (kThreads/E), + E, ... (no TMA)
 *
 *   per thread, t = t0 .. t0+kTimes-1:  dz(t) = dy(t)·act'(z(t)),  z from x(t-H .. t)
 *                                       dx(t-H) = sum_k w[k]·dz(t-k)
 *                                       dweight, dbias sums += dz(t)·x(t-H+k), dz(t)
 *   (SiLU' from tanh where it can: ScaledDerivative, backward.h.)
 *
 * A block owns a run of tiles of one (batch row, channel group) and walks it from the
 * latest: the head dz(t0+kTimes .. +H-1) of a tile is the first H dz of the tile after it
 * (kept in registers), zero past the row's end, or recomputed from the extra rows where a
 * run starts inside a row. Taps, bias and the sums stay in registers over the run; each
 * thread writes its channel's sums once, to partials[b·runs + run, c]. The runs per row
 * are chosen from the resident blocks so that the last round of blocks is nearly full.
 * Launch: kThreads threads, grid-stride over runs·batch·channel groups (groups fastest).
 *
 * Measured on an H100 (docs/PERFORMANCE.md, thirtieth session), (8,4096,2048,4) f16 with
 * bias + SiLU: 16 times × 3 buffers at 7 blocks an SM 166 us; 32 × 2 at 6 (the earlier
 * shape) 178; 16 × 2 at 8: 176; 24 × 2 at 7: 172; 32 × 3 at 4: 173; 16 × 4 at 5: 165
 * (but 204 against 197 at (4,5120,4096,4)); 12 × 3 at 8: 169; 8 × 4 at 8: 182 (dx then
 * went back through the dy rows and out in 16-byte stores, three barriers a tile). dx
 * stored straight from the walk, one barrier a tile: 160 against 162-166 us, (4,5120,4096,4)
 * 194 against 197; one barrier fewer with dx still staged: level. On an H200 (forty-fourth
 * session, the same row): 139.9 us with threads' copies and stores, 132.7 with SiLU' from
 * tanh, 119.9 with TMA's loads, 112.3 with dx out by TMA too (85% of copy); dy's boxes two
 * tiles ahead, thread 0 waiting for the store's read: 113.3.
 * f32 by TMA on an H200 (sixty-ninth session), (8,4096,2048,4) / (4,5120,4096,4) with
 * bias + SiLU, against backward_channel_last.hip's 211.2-212.3 / 259.7-261.8 us in the same
 * calls: 24 times x 3 buffers at 2 blocks an SM 200.0-203.9 / 251.3-252.6 (landed); 16 x 3
 * at 3: 204.5-207.2 / 252.4-254.2; 12 x 4 at 3: 204.7-205.1 / 256.3-256.5; 20 x 3 at 3:
 * 206.0-207.5 / 254.5-255.3; 16 x 4 at 2: 211.1-212.1 / 250.1-250.3; 32 x 3 at 2:
 * 214.2-215.8 / 253.3-253.5; 8 x 3 at 5: 204.6-206.0 / 261.1-262.2; tiles of 64 channels
 * (12 x 4, 16 x 4, 24 x 3, 8 x 6) 204.5-215.7 / 256.9-281.1, of 256 channels (8 x 4,
 * 12 x 3, 16 x 3) 209.6-215.5 / 254.3-267.4. Under ncu the landed shape reads x and dy once
 * (537 MB of DRAM reads at (8,4096,2048,4), against 574 for backward_channel_last.hip) at
 * 84% of DRAM peak, as that kernel runs. x's boxes one tile ahead instead of two (with dy's;
 * seventy-seventh session, H200, f32 with bias + SiLU, two calls): (8,4096,2048,4)
 * 197.2-201.9 against 197.8-205.9 us, where the blocks' last end came 9.5 us after their
 * median instead of 13.3 (scripts/dev/timeline_backward.sh: with less in flight a block
 * runs ahead of the others less); (4,5120,4096,4) 247.8-249.4 against 249.0-251.3; smaller
 * f32 shapes -0.3 to -3.4%, 16-bit +0.4 to -1.9%.
 */
#include "backward.h"
#include "block_copy.h"
#include "packed.h"
#include "tma.h"
#include "vector_rows.h"

#include <algorithm>

namespace hipconv {

namespace {

constexpr int kThreads = 128;  // channels per tile, one per thread

// The dtypes compiled: f16 and bf16 everywhere, f32 in the NVIDIA build (taken only where its
// tiles come in by TMA: tiles_by_tma).
#if defined(HIPCONV_PLATFORM_NVIDIA)
template <typename T> constexpr bool kTiledDtype = true;
#else
template <typename T> constexpr bool kTiledDtype = sizeof(T) == 2;
#endif

// kShort: f32's tiles for small problems (short_tiles), 16 times instead of 24; it changes
// nothing for 16-bit types, which are only instantiated without it.
template <typename T, bool kShort = false> struct TileShape {
    static constexpr int kE = Vec16<T>::kCount;  // channels per 16-byte vector
#if defined(HIPCONV_PLATFORM_AMD)
    // No asynchronous copies: the next tile's copies end before the walk, so more buffers
    // would not put more bytes in flight.
    static constexpr int kBuffers = 2;
    static constexpr int kTimes = 16;  // about 21 KB of rows: 3 blocks in 64 KB of LDS
#else
    // 16-bit: about 32 KB of rows, 7 blocks per SM. f32: 87.6 KB at width 4, 2 blocks per SM
    // (measured against 8-32 times and 3-4 buffers, and tiles of 64 and 256 channels: the
    // header); short f32 tiles 63 KB, 3 blocks per SM.
    static constexpr int kBuffers = 3;
    static constexpr int kTimes = sizeof(T) == 4 && !kShort ? 24 : 16;
#endif
    static constexpr int kVectorsPerRow = kThreads / kE;
};

// Shared memory of a block (dynamic): kBuffers stages of x's rows, then of dy's.
template <typename T, int kWidth, bool kShort = false> struct StageLayout {
    using Shape = TileShape<T, kShort>;
    static constexpr int H = kWidth - 1;
    static constexpr int kXBytes = Shape::kBuffers * (Shape::kTimes + 2 * H) * kThreads * (int)sizeof(T);
    static constexpr int kGBytes = Shape::kBuffers * (Shape::kTimes + H) * kThreads * (int)sizeof(T);
    static constexpr int kBytes = kXBytes + kGBytes;  // kXBytes is a multiple of 128: dy's stages stay aligned
};

// Blocks per SM the NVIDIA build is compiled for (at most 72 registers), and the resident
// blocks assumed where the runtime cannot say: an H100's 132 SMs, each holding as many
// width-4 blocks as that bound and its 228 KB of shared memory (1 KB of it reserved a
// block) allow (f32: 2).
constexpr int kBlocksPerSm = 7;
template <typename T, bool kShort>
constexpr int64_t kFallbackResident =
    132 * std::min<int64_t>(kBlocksPerSm, 228 * 1024 / (StageLayout<T, 4, kShort>::kBytes + 1024));

// The tensor maps of x and dy [batch][seqlen][dim] (channels innermost) that the
// sm_90 build's tiles are copied through (NVIDIA; nothing on AMD): boxes of kThreads
// channels by a tile's rows, plain or with the H extra rows of a recomputed head.
struct TileMaps {
#if defined(HIPCONV_PLATFORM_NVIDIA)
    CUtensorMap x_plain, x_extra, dy_plain, dy_extra, dx;
#endif
};

// kTma: the maps are valid, and where this build has TMA (sm_90 and newer) one thread copies
// each tile with two boxes; elsewhere every thread copies 16-byte vectors (cp.async on
// sm_80+).
template <typename T, int kWidth, bool kSilu, bool kTma, bool kShort>
__global__ void HIPCONV_BOUNDS_NVIDIA(kThreads, kBlocksPerSm)
    conv1d_backward_channel_last_tiled_kernel(hipconv_conv1d_backward_params p, int64_t runs, int64_t run_tiles,
                                              float *partials, const HIPCONV_GRID_CONSTANT TileMaps maps) {
    using Shape = TileShape<T, kShort>;
    constexpr int E = Shape::kE;
    constexpr int kTimes = Shape::kTimes;
    constexpr int kVPR = Shape::kVectorsPerRow;
    constexpr int H = kWidth - 1;
    constexpr int kHeads = H > 0 ? H : 1;
    constexpr int kBuffers = Shape::kBuffers;
    constexpr int kRowsPerPass = kThreads / kVPR;  // rows one pass of the block's copies covers
    using D = ScaledDerivative<T, kSilu>;  // taps and bias times D::kScale, dz over it
    allow_dependent_launch();  // the reduction of the partials may be placed (launch_dependent)
    // (128-byte aligned buffers: TMA's destinations.)
    extern __shared__ __align__(128) unsigned char stages[];
    using Layout = StageLayout<T, kWidth, kShort>;
    static_assert(Layout::kXBytes % 128 == 0, "dy's stages must start 128-byte aligned");
    T(&x_stage)[kBuffers][kTimes + 2 * H][kThreads] =  // x(t0 - H + r)
        *reinterpret_cast<T(*)[kBuffers][kTimes + 2 * H][kThreads]>(stages);
    T(&g_stage)[kBuffers][kTimes + H][kThreads] =  // dy(t0 + r)
        *reinterpret_cast<T(*)[kBuffers][kTimes + H][kThreads]>(stages + Layout::kXBytes);
#if HIPCONV_HAS_TMA
    constexpr bool kUseTma = kTma;
    __shared__ uint64_t landed[kBuffers];  // per buffer: its boxes' bytes have arrived
    if (kUseTma) {
        if (threadIdx.x == 0) {
            for (int j = 0; j < kBuffers; ++j) tma::init_barrier(landed + j, 1);
            tma::fence_barrier_init();
        }
        __syncthreads();
    }
    uint32_t parities = 0;  // bit j: the phase of landed[j] to wait for next
#else
    constexpr bool kUseTma = false;
    (void)maps;
#endif

    const hipconv_conv1d_params &cp = p.conv;
    const int64_t seqlen = cp.seqlen;
    const int64_t dim = cp.dim;
    const int64_t groups = ceil_div(dim, kThreads);
    const int64_t row_tiles = ceil_div(seqlen, kTimes);
    const T *x_base = static_cast<const T *>(cp.x);
    const T *dy_base = static_cast<const T *>(p.dy);
    T *dx_base = static_cast<T *>(p.dx);
    const int tid = threadIdx.x;

    for (int64_t block = blockIdx.x; block < runs * cp.batch * groups; block += gridDim.x) {
        const QuotientRemainder by_group = divide(block, groups);
        const int64_t c0 = by_group.remainder * kThreads;
        const QuotientRemainder by_row = divide(by_group.quotient, cp.batch);
        const int64_t b = by_row.remainder;
        const int64_t run = by_row.quotient;
        const int64_t first_tile = run * run_tiles;
        const int64_t end_tile = first_tile + run_tiles < row_tiles ? first_tile + run_tiles : row_tiles;
        const int64_t c = c0 + tid;
        const bool active = c < dim;
        const int64_t row_offset = b * cp.x_batch_stride;

        float taps[kWidth];
        float bias = 0.f;
#pragma unroll
        for (int k = 0; k < kWidth; ++k)
            taps[k] = active ? D::kScale * to_float(static_cast<const T *>(cp.w)[c * kWidth + k]) : 0.f;
        if (active && cp.bias != nullptr) bias = D::kScale * to_float(static_cast<const T *>(cp.bias)[c]);
        float sums[kWidth + 1];
#pragma unroll
        for (int k = 0; k <= kWidth; ++k) sums[k] = 0.f;
        float heads[kHeads];  // dz(t0 + kTimes + m) of the tile being walked
#pragma unroll
        for (int m = 0; m < kHeads; ++m) heads[m] = 0.f;

        // Thread tid copies vector `lane_vector` of rows tid / kVPR, + kRowsPerPass, ...: its
        // channels and its rows' steps are fixed, so a copy is a few instructions (the
        // general copy16, a division and its bounds per 16 bytes, took ~50 a copy: about as
        // many issue slots as the walk itself). Rows outside [0, seqlen) and vectors past dim
        // are zero-filled.
        const int lane_vector = tid % kVPR;
        const int first_row = tid / kVPR;
        const int64_t lane_channel = c0 + (int64_t)lane_vector * E;
        const bool lane_inside = lane_channel < dim;
        const int64_t lane_offset = row_offset + lane_channel;
        auto stage_rows = [&](const T *base, int64_t t_first, int rows, T (*dst)[kThreads], auto max_rows) {
            constexpr int kPasses = (decltype(max_rows)::value + kRowsPerPass - 1) / kRowsPerPass;
            int t = (int)t_first + first_row;  // t_first >= -H and < seqlen: an int
            int64_t at = lane_offset + (int64_t)t * cp.x_seq_stride;
            const int64_t pass_stride = kRowsPerPass * cp.x_seq_stride;
#pragma unroll
            for (int pass = 0; pass < kPasses; ++pass) {
                const int r = first_row + pass * kRowsPerPass;
                if (r < rows) {
                    const bool inside = lane_inside && (unsigned)t < (unsigned)seqlen;
                    copy16_if(inside, inside ? base + at : base, &dst[r][lane_vector * E]);
                }
                t += kRowsPerPass;
                at += pass_stride;
            }
        };
        auto recomputes = [&](int64_t tile) { return tile == end_tile - 1 && tile != row_tiles - 1; };
        auto stage = [&](int64_t tile, int buf) {
            const int64_t t0 = tile * kTimes;
            const int extra = recomputes(tile) ? H : 0;  // a run that starts inside a row
            stage_rows(x_base, t0 - H, kTimes + H + extra, x_stage[buf], std::integral_constant<int, kTimes + 2 * H>{});
            stage_rows(dy_base, t0, kTimes + extra, g_stage[buf], std::integral_constant<int, kTimes + H>{});
            copy_commit();
        };
        // TMA (thread 0): the same rows as boxes, zeros outside x and dy; a tile's x box is
        // issued with the arrival that expects both boxes' bytes, its dy box right after (into
        // a dy buffer whose last dx store has read it). The dx rows go out as one box, clipped
        // at seqlen and dim.
#if HIPCONV_HAS_TMA
        auto stage_x_box = [&](int64_t tile, int buf) {
            const int t0 = (int)(tile * kTimes);  // < seqlen < 2^31 (backward_channel_last_tiled_fits)
            const bool extra = recomputes(tile);
            constexpr uint32_t kRowBytes = kThreads * sizeof(T);
            tma::arrive_expect_bytes(landed + buf, (2 * kTimes + H + (extra ? 2 * H : 0)) * kRowBytes);
            tma::load_tile3(x_stage[buf], extra ? &maps.x_extra : &maps.x_plain, (int)c0, t0 - H, (int)b,
                            landed + buf);
        };
        auto stage_dy_box = [&](int64_t tile, int buf) {
            const bool extra = recomputes(tile);
            tma::load_tile3(g_stage[buf], extra ? &maps.dy_extra : &maps.dy_plain, (int)c0, (int)(tile * kTimes),
                            (int)b, landed + buf);
        };
        auto store_dx_box = [&](int64_t tile, int buf) {
            tma::store_tile3(&maps.dx, (int)c0, (int)(tile * kTimes), (int)b, g_stage[buf]);
        };
#endif
        // The copies of the kBuffers-1 tiles after the one being walked are in flight: one
        // group of copies is committed per tile (empty past the run's first tile). With TMA
        // the run's first tile's boxes are issued here, once the last run's dx stores have
        // read their buffers.
        if (kUseTma) {
#if HIPCONV_HAS_TMA
            if (tid == 0) {
                tma::wait_stores_read<0>();
                stage_x_box(end_tile - 1, 0);
                stage_dy_box(end_tile - 1, 0);
            }
#endif
        } else {
#pragma unroll
            for (int j = 0; j + 1 < kBuffers; ++j) {
                if (end_tile - 1 - j >= first_tile)
                    stage(end_tile - 1 - j, j);
                else
                    copy_commit();
            }
        }
        int buf = 0;
        for (int64_t tile = end_tile - 1; tile >= first_tile; --tile) {
            const int64_t t0 = tile * kTimes;
            const bool row_end = tile == row_tiles - 1;
            const bool recompute = recomputes(tile);
            // This tile's copies have landed and every thread is done with the tile before.
            // Threads' copies: the next kBuffers-2 tiles' may still be in flight, and the tile
            // before's buffer takes the copies of the tile kBuffers-1 ahead. TMA: below.
            if (kUseTma) {
#if HIPCONV_HAS_TMA
                // Every thread is done with the tile before (its dx rows written and fenced):
                // its dx goes out, and the next tile's boxes go into the buffer after this
                // one, whose dx store (kBuffers-2 tiles ago) has read it.
                __syncthreads();
                if (tid == 0) {
                    if (tile + 1 < end_tile) store_dx_box(tile + 1, (buf + kBuffers - 1) % kBuffers);
                    if (tile - 1 >= first_tile) {
                        tma::wait_stores_read<kBuffers - 2>();
                        stage_x_box(tile - 1, (buf + 1) % kBuffers);
                        stage_dy_box(tile - 1, (buf + 1) % kBuffers);
                    }
                }
                tma::wait_barrier(landed + buf, (parities >> buf) & 1u);
                parities ^= 1u << buf;
#endif
            } else {
                copy_wait<kBuffers - 2>();
                __syncthreads();
                if (tile - (kBuffers - 1) >= first_tile)
                    stage(tile - (kBuffers - 1), (buf + kBuffers - 1) % kBuffers);
                else
                    copy_commit();
            }
            T(&x_rows)[kTimes + 2 * H][kThreads] = x_stage[buf];
            T(&g_rows)[kTimes + H][kThreads] = g_stage[buf];

            float xh[kHeads];  // x(t - H .. t - 1)
#pragma unroll
            for (int m = 0; m < H; ++m) xh[m] = to_float(x_rows[m][tid]);
            if (t0 == 0 && cp.initial_states != nullptr && active) {
                const T *initial = static_cast<const T *>(cp.initial_states) + (b * dim + c) * H;
#pragma unroll
                for (int m = 0; m < H; ++m) xh[m] = to_float(initial[m]);
            }
            if (recompute) {  // dz(t0 + kTimes + m) from the extra rows
#pragma unroll
                for (int m = 0; m < H; ++m) {
                    float z = bias;
#pragma unroll
                    for (int k = 0; k < kWidth; ++k) z += taps[k] * to_float(x_rows[kTimes + m + k][tid]);
                    heads[m] = D::dz(to_float(g_rows[kTimes + m][tid]), z);
                }
            } else if (row_end) {
#pragma unroll
                for (int m = 0; m < H; ++m) heads[m] = 0.f;
            }
            // A row's last tiles (holding its last H times, whose dx takes dfinal_states too, or
            // running past seqlen) take the walk that tests each time; the others store every
            // dx untested (the tests and the load cost ~10 instructions a time).
            T *dx_thread = dx_base + row_offset + t0 * cp.x_seq_stride + c;  // dx(t0), this channel
            const T *dfinal = p.dfinal_states != nullptr && H > 0 && active && t0 + kTimes > seqlen - H
                                  ? static_cast<const T *>(p.dfinal_states) + (b * dim + c) * H
                                  : nullptr;
            auto walk = [&](auto with_final) {
                // dx(t0 + r): to global memory, or (TMA) into dy's row r, read already (the
                // store clips the rows and channels outside dx).
                auto finish_dx = [&](int r, float acc) {
                    if constexpr (decltype(with_final)::value) {
                        const int64_t k = t0 + r - (seqlen - H);
                        if (dfinal != nullptr && k >= 0 && t0 + r < seqlen) acc += to_float(dfinal[k]);
                    }
                    if constexpr (kUseTma) {
                        g_rows[r][tid] = from_float<T>(acc);
                    } else if constexpr (decltype(with_final)::value) {
                        if (active && t0 + r < seqlen) dx_thread[r * cp.x_seq_stride] = from_float<T>(acc);
                    } else {
                        if (active) dx_thread[r * cp.x_seq_stride] = from_float<T>(acc);
                    }
                };

                float dzh[kWidth];  // dz(t - H .. t)
                float first[kHeads];
#pragma unroll
                for (int r = 0; r < kTimes; ++r) {
                    const float xt = to_float(x_rows[H + r][tid]);
                    float z = bias + taps[H] * xt;
#pragma unroll
                    for (int k = 0; k < H; ++k) z += taps[k] * xh[k];
                    const float dz = D::dz(to_float(g_rows[r][tid]), z);
#pragma unroll
                    for (int k = 0; k < H; ++k) sums[k] += dz * xh[k];
                    sums[H] += dz * xt;
                    sums[kWidth] += dz;
#pragma unroll
                    for (int k = 0; k + 1 < H; ++k) xh[k] = xh[k + 1];
                    if constexpr (H > 0) xh[H - 1] = xt;
#pragma unroll
                    for (int k = 0; k < H; ++k) dzh[k] = dzh[k + 1];
                    dzh[H] = dz;
                    if (r < H) first[r] = dz;
                    if (r >= H) {  // dx(t - H) = sum_k w[k]·dz(t - k)
                        float acc = 0.f;
#pragma unroll
                        for (int k = 0; k < kWidth; ++k) acc += taps[k] * dzh[H - k];
                        finish_dx(r - H, acc);
                    }
                }
                // The last H times: their sums reach into the head.
#pragma unroll
                for (int s = kTimes - H; s < kTimes; ++s) {
                    float acc = 0.f;
#pragma unroll
                    for (int k = 0; k < kWidth; ++k) {
                        const int u = s + H - k;  // dz(t0 + u)
                        acc += taps[k] * (u < kTimes ? dzh[H - (kTimes - 1 - u)] : heads[u - kTimes]);
                    }
                    finish_dx(s, acc);
                }
#pragma unroll
                for (int m = 0; m < H; ++m) heads[m] = first[m];  // the head of the tile before
            };
            if (dfinal != nullptr || (!kUseTma && t0 + kTimes > seqlen))
                walk(std::true_type{});
            else
                walk(std::false_type{});
#if HIPCONV_HAS_TMA
            if (kUseTma) tma::fence_shared_for_async();  // the dx rows, for the store
#endif
            buf = (buf + 1) % kBuffers;
        }
        // Every thread done with the run's last tile before the next run's copies reuse its
        // buffers (a grid capped at kMaxGridBlocks walks several runs a block), and (TMA)
        // before its dx goes out.
        __syncthreads();
#if HIPCONV_HAS_TMA
        if (kUseTma && tid == 0) store_dx_box(first_tile, (buf + kBuffers - 1) % kBuffers);
#endif
        if (active) {
#pragma unroll
            for (int k = 0; k <= kWidth; ++k)
                partials[partial_index(b * runs + run, dim, c, kWidth, k)] = D::kScale * sums[k];
        }
    }
#if HIPCONV_HAS_TMA
    if (kUseTma && tid == 0) tma::wait_stores<0>();  // the last dx box written before the block ends
#endif
}

// The fewest tiles a run takes where its row has more: a run's start (the first tiles'
// copies, a recomputed head) and its partials cost about a tile's walk. H200, f16 with
// bias + SiLU: (32,768,512,4) 49.5 us in runs of 1 tile, 37.3 of 2, 28.8 of 8;
// (64,1024,128,4) 32.9 us in runs of 1 tile, 20.5 of 8; f32 (32,768,512,4) 62.5 us in runs
// of 2 tiles, 51.3 of 6.
constexpr int64_t kMinRunTiles = 4;
// Where runs of kMinRunTiles fill less than half a round of blocks (few rows of long
// sequences), runs of kFewBlocksMinRunTiles: (1,256,8192,4) bf16 with bias + SiLU walked
// 128 runs a row (256 blocks on 924 slots) in 10.16 us, 256 runs in 9.44, 512 in 11.02,
// 64 in 13.76 (H200, seventy-fourth session).
constexpr int64_t kFewBlocksMinRunTiles = 2;

// Runs per row: the fewest that keep the rounds of blocks full, i.e. minimise
// ceil(blocks / resident) · tiles per run (the busiest slot's tiles), over up to about
// eight rounds of blocks and runs of at least kMinRunTiles tiles (kFewBlocksMinRunTiles
// where those leave more than half a round of slots empty).
int64_t runs_per_row(int64_t streams, int64_t row_tiles, int64_t resident) {
    auto cheapest = [&](int64_t min_run_tiles) {
        const int64_t most =
            std::max<int64_t>(1, std::min({ceil_div(8 * resident, streams), row_tiles, row_tiles / min_run_tiles}));
        int64_t best = 1, best_cost = INT64_MAX;
        for (int64_t runs = 1; runs <= most; ++runs) {
            const int64_t run_tiles = ceil_div(row_tiles, runs);
            if (runs > 1 && ceil_div(row_tiles, run_tiles) < runs) continue;  // the same runs as fewer
            const int64_t cost = ceil_div(streams * runs, resident) * run_tiles;
            if (cost < best_cost) best = runs, best_cost = cost;
        }
        return best;
    };
    const int64_t runs = cheapest(kMinRunTiles);
    return 2 * streams * runs < resident ? cheapest(kFewBlocksMinRunTiles) : runs;
}

// Lets kKernel have kBytes of stages: above 48 KB (f32) NVIDIA needs the opt-in, for the
// launch and for the occupancy query alike (asked once per kernel and device: the kernel
// itself is the template argument, so each instance keeps its own cache).
template <auto kKernel, int kBytes> hipError_t allow_stages() {
    static std::atomic<int64_t> granted[kMaxCachedDevices];
    return allow_dynamic_shared(kKernel, kBytes, granted);
}

// Resident blocks of T's width-4 SiLU kernel of tile shape kShort on the current device
// (cached per dtype and shape; the TMA form has the same register bound and shared memory).
template <typename T, bool kShort> int64_t resident() {
    static std::atomic<int64_t> cache[kMaxCachedDevices];
    constexpr auto kernel = conv1d_backward_channel_last_tiled_kernel<T, 4, true, false, kShort>;
    constexpr int kStageBytes = StageLayout<T, 4, kShort>::kBytes;
    int64_t blocks = 0;
    if (allow_stages<kernel, kStageBytes>() != hipSuccess ||
        resident_blocks(kernel, kThreads, cache, &blocks, kStageBytes) != hipSuccess || blocks < 1)
        return kFallbackResident<T, kShort>;
    return blocks;
}

// f32 problems of fewer elements than this take short tiles (16 times, 3 blocks an SM):
// more blocks and shorter walks where the 24-time tiles leave slots empty or rounds
// uneven. H200, f32 with bias + SiLU, 24 / 16 times (seventy-fourth session):
// (1,256,8192,4) 16.0 / 12.1 us, (32,768,512,4) 51.2 / 44.6, (1,1536,4096,4) 26.3 / 25.5,
// (2,768,4096,4) 26.5 / 26.4; at 2^24 elements and above the long tiles win:
// (1,8192,2048,4) 56.7 / 57.0, (16,1536,1024,4) 85.3 / 86.4, (8,4096,2048,4) 204.8 / 210.
constexpr int64_t kShortTileElements = int64_t(1) << 24;

template <typename T> bool short_tiles(const hipconv_conv1d_backward_params &p) {
    return sizeof(T) == 4 && p.conv.batch * p.conv.dim * p.conv.seqlen < kShortTileElements;
}

struct Runs {
    int64_t runs;
    int64_t run_tiles;
};

template <typename T, bool kShort> Runs plan_runs(const hipconv_conv1d_backward_params &p) {
    const int64_t row_tiles = ceil_div(p.conv.seqlen, TileShape<T, kShort>::kTimes);
    const int64_t streams = p.conv.batch * ceil_div(p.conv.dim, kThreads);
    const int64_t runs = runs_per_row(streams, row_tiles, resident<T, kShort>());
    const int64_t run_tiles = ceil_div(row_tiles, runs);
    return {ceil_div(row_tiles, run_tiles), run_tiles};
}

// Calls f(std::integral_constant<bool, kShort>) with the tile shape p takes (short_tiles);
// 16-bit types have one shape.
template <typename T, typename F> auto with_tile_shape(const hipconv_conv1d_backward_params &p, F &&f) {
    if constexpr (sizeof(T) == 4) {
        if (short_tiles<T>(p)) return f(std::true_type{});
    }
    return f(std::false_type{});
}

#if defined(HIPCONV_PLATFORM_NVIDIA)
// The element type of T's maps.
template <typename T> CUtensorMapDataType map_type() {
    if (std::is_same<T, float>::value) return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
    return std::is_same<T, hipconv_bf16>::value ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
}

// The 3-D map of a [batch][seqlen][dim] tensor of T at `base` (x's strides) read in boxes of
// kThreads channels x `rows` times, zeros outside it, its L2 fetches not promoted: with
// 256-byte promotion the SMs read 706 MB through the L2 at (8,4096,2048,4) f32 where the
// boxes hold 571, and 541 MB crossed between the L2's two partitions; without it 573 and
// 407 MB (H200, ncu, seventy-third session). False where TMA cannot take it.
template <typename T>
bool encode_rows_map(CUtensorMap *map, const void *base, const hipconv_conv1d_params &c, uint32_t rows) {
    const PFN_cuTensorMapEncodeTiled_v12000 encode = tma::tile_map_encoder();
    const int64_t batch_stride = c.batch > 1 ? c.x_batch_stride : c.seqlen * c.x_seq_stride;
    if (encode == nullptr || c.dim > INT32_MAX || c.batch > INT32_MAX || batch_stride <= 0) return false;
    constexpr cuuint64_t kBytes = sizeof(T);
    const cuuint64_t dims[3] = {(cuuint64_t)c.dim, (cuuint64_t)c.seqlen, (cuuint64_t)c.batch};
    const cuuint64_t strides[2] = {(cuuint64_t)c.x_seq_stride * kBytes, (cuuint64_t)batch_stride * kBytes};
    const cuuint32_t box[3] = {kThreads, rows, 1};
    const cuuint32_t element_strides[3] = {1, 1, 1};
    return encode(map, map_type<T>(), 3,
                  const_cast<void *>(base), dims, strides, box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                  CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE,
                  CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

// The maps of x and dy (a tile's kTimes rows with H halo rows, plain and with the H extra
// rows of a recomputed head) and of dx (kTimes rows); false where TMA cannot take them (no
// encoder, strides it does not accept): the kernel's threads copy instead.
template <typename T, bool kShort> bool encode_tile_maps(const hipconv_conv1d_backward_params &p, TileMaps *maps) {
    constexpr uint32_t kTimes = TileShape<T, kShort>::kTimes;
    const uint32_t h = (uint32_t)p.conv.width - 1;
    return encode_rows_map<T>(&maps->x_plain, p.conv.x, p.conv, kTimes + h) &&
           encode_rows_map<T>(&maps->x_extra, p.conv.x, p.conv, kTimes + 2 * h) &&
           encode_rows_map<T>(&maps->dy_plain, p.dy, p.conv, kTimes) &&
           encode_rows_map<T>(&maps->dy_extra, p.dy, p.conv, kTimes + h) &&
           encode_rows_map<T>(&maps->dx, p.dx, p.conv, kTimes);
}
#endif

template <typename T, int kWidth, bool kShort>
hipconv_status_t launch_shape(const hipconv_conv1d_backward_params &p, float *partials, hipStream_t stream) {
    const Runs r = plan_runs<T, kShort>(p);
    const int64_t blocks = r.runs * p.conv.batch * ceil_div(p.conv.dim, kThreads);
    TileMaps maps{};
    auto launch = [&](auto silu, auto tma) {
        constexpr auto kernel = conv1d_backward_channel_last_tiled_kernel<T, kWidth, decltype(silu)::value,
                                                                          decltype(tma)::value, kShort>;
        constexpr int kStageBytes = StageLayout<T, kWidth, kShort>::kBytes;
        const hipError_t allowed = allow_stages<kernel, kStageBytes>();
        if (allowed != hipSuccess) return (hipconv_status_t)allowed;
        hipLaunchKernelGGL(kernel, dim3(grid_blocks(blocks)), dim3(kThreads), kStageBytes, stream, p, r.runs,
                           r.run_tiles, partials, maps);
        return last_launch_status();
    };
    return with_silu(p.conv.silu != 0, [&](auto silu) {
#if defined(HIPCONV_PLATFORM_NVIDIA)
        if (encode_tile_maps<T, kShort>(p, &maps)) return launch(silu, std::true_type{});
#endif
        return launch(silu, std::false_type{});
    });
}

template <typename T, int kWidth>
hipconv_status_t launch_width(const hipconv_conv1d_backward_params &p, float *partials, hipStream_t stream) {
    return with_tile_shape<T>(
        p, [&](auto short_shape) { return launch_shape<T, kWidth, decltype(short_shape)::value>(p, partials, stream); });
}

// Whether the tiles come in by TMA here: the device runs the build's sm_90 code (which
// device_launches_dependents_early() asks) and the driver has the map encoder. f32 takes
// this kernel only then: its thread-copy form measured slower than backward_channel_last.hip
// (H100, twelfth session: 81-83% of copy against 90%).
bool tiles_by_tma() {
#if defined(HIPCONV_PLATFORM_NVIDIA)
    return device_launches_dependents_early() && tma::tile_map_encoder() != nullptr;
#else
    return false;
#endif
}

}  // namespace

template <typename T> bool backward_channel_last_tiled_fits(const hipconv_conv1d_backward_params &p) {
    constexpr int E = Vec16<T>::kCount;
    const hipconv_conv1d_params &c = p.conv;
    return kTiledDtype<T> && (sizeof(T) == 2 || tiles_by_tma()) && c.width <= kBackwardMaxFusedWidth &&
           p.cu_seqlens == nullptr && c.x_dim_stride == 1 &&
           c.seqlen <= INT32_MAX - 64 &&  // times, and a tile's rows past them, in 32 bits
           c.x_seq_stride >= c.dim && c.dim % E == 0 && c.x_seq_stride % E == 0 && c.x_batch_stride % E == 0 &&
           aligned16(c.x) && aligned16(p.dy) && aligned16(p.dx);
}

template <typename T> int64_t backward_channel_last_tiled_tiles(const hipconv_conv1d_backward_params &p) {
    if constexpr (kTiledDtype<T>)
        return with_tile_shape<T>(
            p, [&](auto short_shape) { return p.conv.batch * plan_runs<T, decltype(short_shape)::value>(p).runs; });
    return 0;
}

template <typename T>
hipconv_status_t launch_backward_channel_last_tiled(const hipconv_conv1d_backward_params &p, float *partials,
                                                    hipStream_t stream) {
    if constexpr (kTiledDtype<T>) {
        switch (p.conv.width) {
        case 1: return launch_width<T, 1>(p, partials, stream);
        case 2: return launch_width<T, 2>(p, partials, stream);
        case 3: return launch_width<T, 3>(p, partials, stream);
        case 4: return launch_width<T, 4>(p, partials, stream);
        }
    }
    return (hipconv_status_t)hipErrorInvalidValue;
}

#define HIPCONV_INSTANTIATE(T)                                                                        \
    template bool backward_channel_last_tiled_fits<T>(const hipconv_conv1d_backward_params &);        \
    template int64_t backward_channel_last_tiled_tiles<T>(const hipconv_conv1d_backward_params &);    \
    template hipconv_status_t launch_backward_channel_last_tiled<T>(const hipconv_conv1d_backward_params &, \
                                                                    float *, hipStream_t);
HIPCONV_INSTANTIATE(__half)
HIPCONV_INSTANTIATE(hipconv_bf16)
HIPCONV_INSTANTIATE(float)
#undef HIPCONV_INSTANTIATE

}  // namespace hipconv
