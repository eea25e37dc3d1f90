/*
 * conv3d implicit GEMM on Hopper's warpgroup MMA (wgmma; sm_90a code only, 16-bit types):
 * the tap-run kernel of implicit_gemm.hip with its multiply on wgmma instead of
 * mma.sync + ldmatrix. Same contract: C[m, co] = sum_k A[m, k] * W[co, k] per group, k =
 * (kd, kh, kw, ci) with ci innermost, x channel stride 1, cin_g a multiple of 32.
 *
 * Block tile 256 (m) x BN (co), BN in {32, 64, 96, 128, 192} (the least padding of cout_g,
 * ties to the wider); k-tiles of 64 elements (one
 * 128-byte row). 256 threads = two warpgroups; warpgroup wg owns rows 128 wg .. 128 wg + 127
 * as two m64 halves, each one wgmma m64nBNk16 per k-step against the whole B tile:
 *
 *            co: n0 ............. n0+BN-1
 *          +-------------------------+
 *     m0   | wg 0, half 0 (64 rows)  |   A rows from shared memory (descriptor),
 *          | wg 0, half 1            |   B: the same BN x 64 tile for all four
 *          | wg 1, half 0            |
 *   m0+255 | wg 1, half 1            |   accumulators: 2 x BN/2 fp32 per thread
 *          +-------------------------+
 *
 * Shared memory per stage: A [256][64] then B [BN][64], 128-byte rows swizzled in 1024-byte
 * groups (wgmma.h: chunk c of row r at c ^ (r % 8)), the stage 1024-byte aligned;
 * kStages stages, then one mbarrier a stage. Loads (OperandLoads, chosen per launch):
 *   A: where x is read by an im2col tensor map (kTmaAB: cin_g a multiple of 64, so that a
 *      k-tile is 64 channels of one tap; no initial frames): one TMA box a k-tile, the 256
 *      positions' 64 channels at the k-tile's tap, issued by thread 0 (tma.h; positions in
 *      the padding and past the tensor read as zeros). kTmaABHalves (cin_g a multiple of 32
 *      only, e.g. 96: a k-tile straddles two taps): two boxes of 32 channels, each at its
 *      own tap, into A's two halves [256][32] (k 0-31, then 32-63), 64-byte rows in the
 *      64-byte swizzle (wgmma.h's descriptor<kRowBytes64>: 512-byte groups). Otherwise cp.async,
 *      four threads per row exactly as the tap-run kernel (q = t % 4: half q / 2 of the
 *      k-tile, its chunks q % 2 and q % 2 + 2; rows t/4 + 64 i; a TapWalk per thread, no
 *      division in the loop).
 *   B: where w is dense along k (kTmaB, kTmaAB, kTmaABHalves): one TMA box of the 2-D view w[cout][k_g] a
 *      k-tile, issued by thread 0; otherwise cp.async as A (rows t/4 + 64 j).
 *   The boxes of a k-tile (A's and B's) are counted on the stage's mbarrier; they land in
 *   the same swizzle as the copies.
 *
 * Pipeline per k-tile kt (A copies kStages - 2 k-tiles ahead, boxes kAhead: kBAhead, or
 * kStages - 2 for kTmaABHalves):
 *   wait for k-tile kt's copies; fence them to the async proxy; barrier; kTmaB: wait for
 *   the stage's mbarrier
 *   issue 4 k-steps x 2 halves of wgmma on stage kt; commit
 *   issue the copies of k-tile kt + kStages - 2 and the boxes of kt + kAhead (into stages
 *   that k-tiles kt - 2 and kt + kAhead - kStages used: their wgmma finished before every
 *   thread's wait at kt - 1, which precedes this barrier)
 *   wait until k-tile kt's wgmma batch is the only one in flight
 * so the copies are issued while the tensor cores run.
 *
 * Epilogue, two ways:
 *   - channel-last y with 16-byte aligned positions (OutputView::vector), BN <= 128 or A
 *     by TMA (IgWgmmaConfig::register_epilogue): from the registers (store_accumulators,
 *     wgmma_epilogue.h):
 *     a quad of lanes transposes its pairs of channels with shuffles so that each lane
 *     stores 8 channels of one position as 16 bytes, a warp 8 positions x 64 contiguous
 *     bytes; bias and SiLU on the way. No shared memory and no barrier, so the block's
 *     next tile (if any) has its first loads issued before.
 *   - otherwise: accumulators -> shared c[co][m] (row stride 260 floats: conflict-free) ->
 *     output_tile.h (bias, SiLU, y through y_stride), over the stages' bytes.
 *
 * Launch: 256 threads, IgWgmmaConfig::kSharedBytes of dynamic shared memory (opted in),
 * one block per SM; 1-D grid-stride loop over ceil(m/256) * groups * ceil(cout_g/BN) tiles,
 * co tiles fastest.
 */
#include <atomic>
#include <type_traits>

#include "block_copy.h"
#include "compat.h"
#include "element.h"
#include "implicit_gemm.h"
#include "launch.h"
#include "output_tile.h"
#include "tma.h"
#include "wgmma.h"
#include "wgmma_epilogue.h"

#if defined(HIPCONV_PLATFORM_NVIDIA)

namespace hipconv {
namespace conv3d {

template <int BN> struct IgWgmmaConfig {
    static constexpr int kBM = 256;
    static constexpr int kBK = 64;    // elements per k-tile: one 128-byte row
    static constexpr int kHalf = 32;  // a thread's half k-tile
    static constexpr int kVec = 8;    // elements per 16-byte chunk
    static constexpr int kRowsPerPass = kIgThreads / 4;  // 64
    static constexpr int kARows = kBM / kRowsPerPass;    // 4
    static constexpr int kBRows = (BN + kRowsPerPass - 1) / kRowsPerPass;
    static constexpr int kStageBytes = (kBM + BN) * wgmma::kRowBytes;
    static constexpr int kBarrierBytes = 64;  // the stages' mbarriers (8 bytes each)
    // As many stages as fit (up to 5) in the 227 KB a block may opt in to, beside the
    // mbarriers and the alignment slack: 5 up to BN 96, 4 at 128 and 192.
    static constexpr int kMaxShared = 227 * 1024;
    static constexpr int kStages = (kMaxShared - wgmma::kGroupBytes - kBarrierBytes) / kStageBytes < 5
                                       ? (kMaxShared - wgmma::kGroupBytes - kBarrierBytes) / kStageBytes
                                       : 5;
    // B boxes this many k-tiles ahead (measured: 2 beats 3 at 5 stages, 1 loses 25%).
    static constexpr int kBAhead = 2;
    static constexpr int kLdC = kBM + 4;
    static constexpr int kCBytes = BN * kLdC * 4;
    static constexpr int kStagesBytes = kStages * kStageBytes;
    // The shared-memory epilogue's c tile and its row table (after the main loop) over the stages.
    static constexpr int kEpilogueBytes = kCBytes + kBM * 8;
    static constexpr int kOperandBytes = kStagesBytes > kEpilogueBytes ? kStagesBytes : kEpilogueBytes;
    // + 1024: the stages are aligned up to 1024 bytes inside the dynamic allocation.
    static constexpr int kSharedBytes = wgmma::kGroupBytes + kOperandBytes + kBarrierBytes;
    static_assert(kStageBytes % wgmma::kGroupBytes == 0 && BN % 8 == 0, "stages of whole swizzle groups");
    static_assert(kLdC % 32 == 4, "the accumulator stores are conflict-free for ld = 4 mod 32");
    static_assert(kStages >= 3 && kStages * 8 <= kBarrierBytes && kSharedBytes <= kMaxShared,
                  "stages in shared memory");
    static_assert(kBAhead <= kStages - 2, "a B box goes into a stage every warpgroup is done with");
    // The accumulators go to a channel-last y from registers up to BN 128, and at 192 where A
    // is loaded by TMA. With A copied, 192's register epilogue spills (255 registers, local
    // loads in the main loop), so it keeps the shared-memory epilogue; with A by TMA the
    // copies' state is gone and it fits (242 registers, no spills; v45: 384ch -3.5%).
    __host__ __device__ static constexpr bool register_epilogue(bool a_by_tma) { return BN <= 128 || a_by_tma; }
};

// How a launch loads its operands: both by cp.async, B by TMA (w dense along k), or both by
// TMA (A through x's im2col map as well: a k-tile's A one box of 64 channels, or where cin_g
// is a multiple of 32 but not of 64 two boxes of 32 channels, kTmaABHalves).
enum class OperandLoads { kCopies, kTmaB, kTmaAB, kTmaABHalves };

// Thread 0's walk over the k-tiles' taps where A is loaded by TMA: the next box's first
// channel within the group and its tap (kd, kh, kw); a box is 64 (or 32, kTmaABHalves)
// channels of one tap.
struct BoxTap {
    int c, kw, kh, kd;
    __device__ void advance(const hipconv_conv3d_params &p, int cin_g, int channels) {
        c += channels;
        if (c < cin_g) return;
        c = 0;
        if (++kw < p.kernel[2]) return;
        kw = 0;
        if (++kh < p.kernel[1]) return;
        kh = 0;
        ++kd;
    }
};

// Where tile t of the grid-stride loop lies: co tiles fastest, then groups, then m.
struct TileOrigin {
    int64_t m0;
    int g;
    int n0;
};

template <int BN> __device__ inline TileOrigin tile_origin(int64_t t, const IgGeometry &geo, int groups) {
    const int64_t rest = t / geo.n_tiles;
    return TileOrigin{rest / groups * IgWgmmaConfig<BN>::kBM, (int)(rest % groups), (int)(t % geo.n_tiles) * BN};
}

// A thread's accumulators into y (wgmma_epilogue.h) at flat output positions: acc[h][4j + r]
// is C(m + 64 h + 8 (r / 2), co + 8 j + 2 q + r % 2); rows from m_end on are not written.
template <typename T, int BN, Epilogue kEpilogue>
__device__ inline void store_accumulators_with(const OutputView &o, const float (&acc)[2][BN / 2], int64_t m,
                                               int64_t m_end, int co, int channels) {
    T *const y = static_cast<T *>(o.y);
    auto row_address = [&](int row) -> T * {  // (h, r / 2)
        const int64_t mr = m + 64 * (row / 2) + 8 * (row % 2);
        return mr < m_end ? y + output_offset(o, mr) + co : nullptr;
    };
    store_accumulator_rows<T, BN, kEpilogue>(o, acc, row_address, co, channels);
}

// The epilogue compiled per (SiLU, bias) at BN 128, where it measured faster (fiftieth
// session, H200: U-Net 128ch NDHWC f16 92.3 -> 87.1 us). Elsewhere the run-time tests stay:
// at 96 the four copies measured 0.7% slower (VAE 96ch NDHWC), at 192 they take the
// registers past 255 and spill (176 bytes of stack), and 32 and 64 have no measured row.
template <typename T, int BN>
__device__ inline void store_accumulators(const OutputView &o, const float (&acc)[2][BN / 2], int64_t m, int64_t m_end,
                                          int co, int channels) {
    if constexpr (BN != 128) {
        store_accumulators_with<T, BN, Epilogue::kRunTime>(o, acc, m, m_end, co, channels);
    } else if (o.silu != 0) {
        if (o.bias != nullptr) store_accumulators_with<T, BN, Epilogue::kSiluBias>(o, acc, m, m_end, co, channels);
        else store_accumulators_with<T, BN, Epilogue::kSilu>(o, acc, m, m_end, co, channels);
    } else {
        if (o.bias != nullptr) store_accumulators_with<T, BN, Epilogue::kBias>(o, acc, m, m_end, co, channels);
        else store_accumulators_with<T, BN, Epilogue::kPlain>(o, acc, m, m_end, co, channels);
    }
}

// kLoads kTmaB / kTmaAB: B by TMA from w_map (the 2-D view w[cout][k_g], boxes of 64 x BN);
// kTmaAB: A by TMA from x_map (im2col boxes of 64 channels x 256 positions). A map a path
// does not use is not read.
template <typename T, int BN, OperandLoads kLoads>
__global__ void __launch_bounds__(kIgThreads, 1)
    conv3d_implicit_gemm_wgmma_kernel(hipconv_conv3d_params p, IgGeometry geo, FastSteps steps, OutputView out,
                                      const __grid_constant__ CUtensorMap w_map,
                                      const __grid_constant__ CUtensorMap x_map) {
#if HIPCONV_HAS_WGMMA
    typedef IgWgmmaConfig<BN> Cfg;
    constexpr bool kTmaB = kLoads != OperandLoads::kCopies;
    constexpr bool kTmaA = kLoads == OperandLoads::kTmaAB || kLoads == OperandLoads::kTmaABHalves;
    // kTmaABHalves: a stage's A is two [256][32] boxes (k 0-31, then 32-63), 64-byte swizzle.
    constexpr bool kHalves = kLoads == OperandLoads::kTmaABHalves;
    constexpr int kAHalfBytes = Cfg::kBM * wgmma::kRowBytes64;
    // k-tiles of boxes in flight: kTmaABHalves as many as the stages allow (3 at 5 stages; v56:
    // its warps waited at the stage's mbarrier for 57% of their stall samples with 2).
    constexpr int kAhead = kHalves ? Cfg::kStages - 2 : Cfg::kBAhead;
    constexpr int kStages = Cfg::kStages;
    constexpr int kAcc = BN / 2;
    extern __shared__ __align__(1024) unsigned char ig_wgmma_shared[];
    unsigned char *const smem =
        ig_wgmma_shared + ((wgmma::kGroupBytes - (__cvta_generic_to_shared(ig_wgmma_shared) & 1023)) & 1023);
    float *const c_tile = reinterpret_cast<float *>(smem);
    int64_t *const rows_smem = reinterpret_cast<int64_t *>(smem + Cfg::kCBytes);
    uint64_t *const b_landed = reinterpret_cast<uint64_t *>(smem + Cfg::kOperandBytes);  // kTmaB: stage s's boxes are in

    const int warpgroup = (int)threadIdx.x / 128;
    const int q = (int)threadIdx.x % 4;
    const int row0 = (int)threadIdx.x / 4;
    const int chunk = (q / 2) * 4 + q % 2;  // this thread's first chunk of a row; the second is chunk + 2
    const int channel = (q % 2) * Cfg::kVec;  // its first chunk's channel within its half
    const int kt_count = geo.k_tiles;
    const int cin_g = geo.cin_g;
    const T *const x = static_cast<const T *>(p.x);
    const T *const w = static_cast<const T *>(p.w);
    int walk_group = 0;  // the group whose k-tiles load_tile copies
    int b_row = 0;       // kTmaB: the tile's first w row (the box's row coordinate)
    uint32_t b_parity = 0;  // kTmaB: bit s, the parity of b_landed[s]'s next phase
    OutputPosition a_start{};  // kTmaA: the tile's first output position
    BoxTap a_tap{};            // kTmaA (thread 0): the tap of the next k-tile to load

    ARow arow[kTmaA ? 1 : Cfg::kARows];
    int64_t wrow[kTmaB ? 1 : Cfg::kBRows];  // < 0: past cout_g (or past the tile's BN rows)
    TapWalk walk;

    if constexpr (kTmaB) {
        if (threadIdx.x == 0) {
            for (int s = 0; s < kStages; ++s) tma::init_barrier(&b_landed[s], 1);
            tma::fence_barrier_init();
        }
        __syncthreads();
    }

    // The k-tile at the walk's position into stage `s` (kTmaB: A only); then the walk moves on
    // a k-tile.
    auto load_tile = [&](int s) {
        if constexpr (kTmaA) return;
        unsigned char *const stage = smem + s * Cfg::kStageBytes;
#pragma unroll
        for (int i = 0; i < Cfg::kARows; ++i) {
            const int r = row0 + i * Cfg::kRowsPerPass;
            const T *src = a_row_source<T>(p, arow[i], walk, walk_group, cin_g, channel);
            async_copy16(stage + wgmma::swizzled(r, chunk), src, x);
            async_copy16(stage + wgmma::swizzled(r, chunk + 2), src != nullptr ? src + 2 * Cfg::kVec : nullptr, x);
        }
        if constexpr (!kTmaB) {
#pragma unroll
            for (int j = 0; j < Cfg::kBRows; ++j) {
                const int r = row0 + j * Cfg::kRowsPerPass;
                if (BN % Cfg::kRowsPerPass == 0 || r < BN) {
                    const T *src = walk.inside(p) && wrow[j] >= 0 ? w + (wrow[j] + walk.woff) : nullptr;
                    unsigned char *b = stage + Cfg::kBM * wgmma::kRowBytes;
                    async_copy16(b + wgmma::swizzled(r, chunk), src, x);
                    async_copy16(b + wgmma::swizzled(r, chunk + 2), src != nullptr ? src + 2 * Cfg::kVec : nullptr,
                                 x);
                }
            }
        }
        walk.advance(Cfg::kBK, p, cin_g, steps);
    };
    // kTmaB: k-tile kt's B box (kTmaA: and its A box) into stage kt % kStages, by thread 0
    // (rows past cout and k past k_g read as zeros; rows of the next group past cout_g give
    // columns that are not stored). kTmaA: the k-tiles of a tile in order, from 0.
    auto load_b = [&](int kt) {
        if constexpr (kTmaB) {
            if (threadIdx.x == 0) {
                const int s = kt % kStages;
                unsigned char *const stage = smem + s * Cfg::kStageBytes;
                tma::arrive_expect_bytes(&b_landed[s], ((kTmaA ? Cfg::kBM : 0) + BN) * wgmma::kRowBytes);
                tma::load_tile(stage + Cfg::kBM * wgmma::kRowBytes, &w_map, kt * Cfg::kBK, b_row, &b_landed[s]);
                if constexpr (kTmaA) {
#pragma unroll
                    for (int half = 0; half < (kHalves ? 2 : 1); ++half) {
                        // Past the kernel's last tap (the second half of the last k-tile where
                        // k_g % 64 == 32): a box from batch p.batch, all zeros (B is zero there too).
                        const bool past = a_tap.kd >= p.kernel[0];
                        tma::load_im2col(stage + half * kAHalfBytes, &x_map, walk_group * cin_g + a_tap.c,
                                         a_start.ow * p.stride[2] - p.pad[2], a_start.oh * p.stride[1] - p.pad[1],
                                         a_start.od * p.stride[0] - p.pad[0], past ? p.batch : a_start.n,
                                         (uint16_t)(a_tap.kw * p.dilation[2]), (uint16_t)(a_tap.kh * p.dilation[1]),
                                         (uint16_t)(past ? 0 : a_tap.kd * p.dilation[0]), &b_landed[s]);
                        a_tap.advance(p, cin_g, kHalves ? 32 : 64);
                    }
                }
            }
        }
    };
    // Tile t's loader state (rows, weight rows, walk) and the copies of its first kStages - 2
    // k-tiles into stages 0 .. kStages - 3 (empty commit groups past tiles or k-tiles).
    auto begin_tile = [&](int64_t t) {
        if (t >= geo.tiles) {
            for (int s = 0; s < kStages - 2; ++s) copy_commit();
            return;
        }
        const TileOrigin o = tile_origin<BN>(t, geo, p.groups);
        walk_group = o.g;
        if constexpr (kTmaA) {
            a_start = output_position(p, o.m0);
            a_tap = BoxTap{0, 0, 0, 0};
        } else {
#pragma unroll
            for (int i = 0; i < Cfg::kARows; ++i)
                arow[i] = a_row(p, geo, o.m0 + row0 + i * Cfg::kRowsPerPass, o.g, channel);
        }
        if constexpr (kTmaB) {
            b_row = o.g * geo.cout_g + o.n0;
        } else {
#pragma unroll
            for (int j = 0; j < Cfg::kBRows; ++j) {
                const int r = row0 + j * Cfg::kRowsPerPass;
                const int co = o.n0 + r;
                wrow[j] = r < BN && co < geo.cout_g ? ((int64_t)o.g * geo.cout_g + co) * p.w_stride[0] + channel : -1;
            }
        }
        if constexpr (!kTmaA) walk.start((q / 2) * Cfg::kHalf, p, cin_g, steps);
#pragma unroll
        for (int s = 0; s < kStages - 2; ++s) {
            if (s < kt_count) load_tile(s);
            copy_commit();
        }
        for (int kt = 0; kt < kAhead && kt < kt_count; ++kt) load_b(kt);
    };

    // Accumulators straight to y, where y is channel-last with 16-byte aligned positions:
    // the stages stay untouched, so the next tile's first copies go out before the stores.
    const bool register_epilogue = Cfg::register_epilogue(kTmaA) && out.vector;
    begin_tile(blockIdx.x);
    for (int64_t tile = blockIdx.x; tile < geo.tiles; tile += gridDim.x) {
        const TileOrigin origin = tile_origin<BN>(tile, geo, p.groups);

        float acc[2][kAcc];
#pragma unroll
        for (int h = 0; h < 2; ++h)
#pragma unroll
            for (int i = 0; i < kAcc; ++i) acc[h][i] = 0.f;

        int read_stage = 0, write_stage = kStages - 2;
        for (int kt = 0; kt < kt_count; ++kt) {
            copy_wait<kStages - 3>();
            wgmma::fence_shared_for_async();
            __syncthreads();  // k-tile kt landed for all; k-tile kt-2's stage is free
            if constexpr (kTmaB) {
                tma::wait_barrier(&b_landed[read_stage], (b_parity >> read_stage) & 1u);
                b_parity ^= 1u << read_stage;
            }
            const unsigned char *stage = smem + read_stage * Cfg::kStageBytes;
            const unsigned char *a = stage + warpgroup * 128 * (kHalves ? wgmma::kRowBytes64 : wgmma::kRowBytes);
            const unsigned char *b = stage + Cfg::kBM * wgmma::kRowBytes;
            wgmma::fence_operands(acc[0]);
            wgmma::fence_operands(acc[1]);
            wgmma::fence();
#pragma unroll
            for (int step = 0; step < Cfg::kBK / 16; ++step) {
                const uint64_t b_desc = wgmma::descriptor(b, step * 32);
#pragma unroll
                for (int h = 0; h < 2; ++h) {
                    const uint64_t a_desc =
                        kHalves ? wgmma::descriptor<wgmma::kRowBytes64>(a + (step / 2) * kAHalfBytes + h * 64 * wgmma::kRowBytes64,
                                                        (step % 2) * 32)
                                : wgmma::descriptor(a + h * 64 * wgmma::kRowBytes, step * 32);
                    wgmma::m64k16<BN>::template run<T>(acc[h], a_desc, b_desc);
                }
            }
            wgmma::commit();
            if (kt + kStages - 2 < kt_count) load_tile(write_stage);
            copy_commit();
            if (kt + kAhead < kt_count) load_b(kt + kAhead);
            wgmma::wait<1>();
            wgmma::fence_operands(acc[0]);
            wgmma::fence_operands(acc[1]);
            read_stage = read_stage == kStages - 1 ? 0 : read_stage + 1;
            write_stage = write_stage == kStages - 1 ? 0 : write_stage + 1;
        }
        wgmma::wait<0>();
        wgmma::fence_operands(acc[0]);
        wgmma::fence_operands(acc[1]);
        copy_wait<0>();
        __syncthreads();  // every warpgroup's reads of the stages done

        // acc[h][4j + r] is C(first_accumulator_row() + 64 h + 8 (r / 2), 8j + 2 (lane % 4) + r % 2).
        if (register_epilogue) {
            begin_tile(tile + gridDim.x);
            store_accumulators<T, BN>(out, acc, origin.m0 + first_accumulator_row(), geo.m,
                                      origin.g * geo.cout_g + origin.n0, geo.cout_g - origin.n0);
            continue;
        }
        accumulators_to_shared<BN>(acc, c_tile, Cfg::kLdC);
        __syncthreads();
        write_output_tile<T, kIgThreads>(out, c_tile, Cfg::kLdC, Cfg::kBM, BN, origin.m0,
                                         (int)min((int64_t)Cfg::kBM, geo.m - origin.m0),
                                         origin.g * geo.cout_g + origin.n0, min(BN, geo.cout_g - origin.n0), rows_smem);
        // The c tile lay over the stages: every thread is done with it before the next copies
        // (the B boxes write through the async proxy).
        if constexpr (kTmaB) wgmma::fence_shared_for_async();
        __syncthreads();
        begin_tile(tile + gridDim.x);
    }
#endif
}

bool device_runs_sm90a() {
#if defined(HIPCONV_SM90A_SASS)
    static std::atomic<int64_t> cache[kMaxCachedDevices];  // 1: yes, 2: no
    int64_t answer = 0;
    const hipError_t err = cached_per_device(
        cache,
        [](int device, int64_t *yes) {
            int major = 0, minor = 0;
            hipError_t e = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
            if (e == cudaSuccess) e = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device);
            *yes = e == cudaSuccess && major == 9 && minor == 0 ? 1 : 2;
            return e;
        },
        &answer);
    return err == cudaSuccess && answer == 1;
#else
    return false;
#endif
}

bool tma_allowed() {
    static const bool allowed = switch_left_on("HIPCONV_CONV3D_TMA");
    return allowed;
}

// x's im2col map, where A's k-tiles can be TMA boxes of `channels` (64 or 32) channels of
// one tap (cin_g a multiple of them), x channels-last, no initial frames (the padding reads
// as zeros), and a geometry the encoder takes (corners within its range). False otherwise.
inline bool encode_x_im2col_map(CUtensorMap *map, const hipconv_conv3d_params &p, int64_t cin_g, bool bf16,
                                uint32_t positions, uint32_t channels) {
    if (p.initial_frames != nullptr || cin_g % channels != 0 || p.x_stride[1] != 1) return false;
    tma::Im2colGeometry g{};
    g.dims[0] = (uint64_t)p.cin;
    g.dims[4] = (uint64_t)p.batch;
    g.strides[3] = (uint64_t)p.x_stride[0];
    for (int a = 0; a < 3; ++a) {  // map axis a: w, h, d = conv axis 2 - a
        const int axis = 2 - a;
        g.dims[a + 1] = (uint64_t)p.in[axis];
        g.strides[a] = (uint64_t)p.x_stride[2 + axis];
        g.lower[a] = -p.pad[axis];
        g.out[a] = p.out[axis];
        g.stride[a] = p.stride[axis];
    }
    return tma::encode_im2col_map(map, p.x, bf16, g, positions, channels);
}

template <typename T, int BN, OperandLoads kLoads>
hipconv_status_t launch_wgmma_kernel(const hipconv_conv3d_params &p, const IgGeometry &geo, const CUtensorMap &w_map,
                                     const CUtensorMap &x_map, hipStream_t stream) {
    typedef IgWgmmaConfig<BN> Cfg;
    auto kernel = conv3d_implicit_gemm_wgmma_kernel<T, BN, kLoads>;
    static std::atomic<int64_t> shared_cache[kMaxCachedDevices];
    HIPCONV_RETURN_IF_ERROR(allow_dynamic_shared(kernel, Cfg::kSharedBytes, shared_cache));
    hipLaunchKernelGGL(kernel, dim3(grid_blocks(geo.tiles)), dim3(kIgThreads), Cfg::kSharedBytes, stream, p, geo,
                       fast_steps(p, geo.cin_g), output_view<T>(p), w_map, x_map);
    return last_launch_status();
}

template <typename T, int BN>
hipconv_status_t launch_wgmma_tile(const hipconv_conv3d_params &p, IgGeometry geo, hipStream_t stream) {
    typedef IgWgmmaConfig<BN> Cfg;
    geo.ci_inner = 1;
    geo.k_tiles = (int32_t)ceil_div(geo.k_g, Cfg::kBK);
    geo.n_tiles = ceil_div(geo.cout_g, BN);
    geo.tiles = ceil_div(geo.m, Cfg::kBM) * p.groups * geo.n_tiles;
    constexpr bool kBf16 = std::is_same<T, hipconv_bf16>::value;
    CUtensorMap w_map{}, x_map{};
    const bool w_box = tma_allowed() && weights_dense_along_k(p, geo.cin_g) &&
                       tma::encode_tile_map(&w_map, p.w, kBf16, (uint64_t)geo.k_g, (uint64_t)p.cout,
                                            (uint64_t)p.w_stride[0], BN);
    // A and B by TMA wherever x has an im2col map: boxes of 64 channels, or of 32 where cin_g
    // is a multiple of 32 only (v56, H200: the VAE 96ch row 2198-2204 -> 2026-2028 us against
    // A's copies, with 3 k-tiles of boxes ahead; on the H100 (v45) -0.5% with 2); B alone
    // where it measured faster (v44: the VAE 96ch row -6%, 384ch -7%): the 128-wide co tile
    // (4 stages, 2 k-tiles of B ahead) measured 2% slower with B alone at the U-Net 128ch row
    // and keeps the copies.
    if (w_box && encode_x_im2col_map(&x_map, p, geo.cin_g, kBf16, Cfg::kBM, 64))
        return launch_wgmma_kernel<T, BN, OperandLoads::kTmaAB>(p, geo, w_map, x_map, stream);
    if (w_box && encode_x_im2col_map(&x_map, p, geo.cin_g, kBf16, Cfg::kBM, 32))
        return launch_wgmma_kernel<T, BN, OperandLoads::kTmaABHalves>(p, geo, w_map, x_map, stream);
    if (w_box && BN != 128) return launch_wgmma_kernel<T, BN, OperandLoads::kTmaB>(p, geo, w_map, x_map, stream);
    return launch_wgmma_kernel<T, BN, OperandLoads::kCopies>(p, geo, w_map, x_map, stream);
}

template <typename T>
hipconv_status_t launch_implicit_wgmma(const hipconv_conv3d_params &p, IgGeometry geo, hipStream_t stream) {
    switch (least_padding_tile(geo.cout_g, 192, {192, 128, 96, 64, 32})) {
    case 192: return launch_wgmma_tile<T, 192>(p, geo, stream);
    case 128: return launch_wgmma_tile<T, 128>(p, geo, stream);
    case 96: return launch_wgmma_tile<T, 96>(p, geo, stream);
    case 64: return launch_wgmma_tile<T, 64>(p, geo, stream);
    default: return launch_wgmma_tile<T, 32>(p, geo, stream);
    }
}

template hipconv_status_t launch_implicit_wgmma<__half>(const hipconv_conv3d_params &, IgGeometry, hipStream_t);
template hipconv_status_t launch_implicit_wgmma<hipconv_bf16>(const hipconv_conv3d_params &, IgGeometry, hipStream_t);

}  // namespace conv3d
}  // namespace hipconv

#endif
