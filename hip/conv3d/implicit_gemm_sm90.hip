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
 * kStages stages. Loads: cp.async, four threads per row exactly as the tap-run kernel
 * (q = t % 4: half q / 2 of the k-tile, its chunks q % 2 and q % 2 + 2; A rows t/4 + 64 i,
 * B rows t/4 + 64 j; a TapWalk per thread, no division in the loop).
 *
 * Pipeline per k-tile kt (loads kStages - 2 k-tiles ahead):
 *   wait for k-tile kt's copies; fence them to the async proxy; barrier
 *   issue 4 k-steps x 2 halves of wgmma on stage kt; commit
 *   issue the copies of k-tile kt + kStages - 2 (into the stage k-tile kt - 2 used: its
 *   wgmma finished before every thread's wait at kt - 1, which precedes this barrier)
 *   wait until k-tile kt's wgmma batch is the only one in flight
 * so the copies are issued while the tensor cores run.
 *
 * Epilogue, two ways:
 *   - channel-last y with 16-byte aligned positions (OutputView::vector), BN <= 128: from
 *     the registers (store_accumulators): a quad of lanes transposes its pairs of channels
 *     with shuffles so that each lane stores 8 channels of one position as 16 bytes, a warp
 *     8 positions x 64 contiguous bytes; bias and SiLU on the way. No shared memory and no
 *     barrier, so the block's next tile (if any) has its first copies issued before.
 *   - otherwise: accumulators -> shared c[co][m] (row stride 260 floats: conflict-free) ->
 *     output_tile.h (bias, SiLU, y through y_stride), over the stages' bytes.
 *
 * Launch: 256 threads, IgWgmmaConfig::kSharedBytes of dynamic shared memory (opted in),
 * one block per SM; 1-D grid-stride loop over ceil(m/256) * groups * ceil(cout_g/BN) tiles,
 * co tiles fastest.
 */
#include <atomic>

#include "block_copy.h"
#include "compat.h"
#include "element.h"
#include "implicit_gemm.h"
#include "launch.h"
#include "output_tile.h"
#include "wgmma.h"

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
    // As many stages as fit (up to 5) in the 227 KB a block may opt in to, beside the
    // row table and the alignment slack: 5 up to BN 96, 4 at 128 and 192.
    static constexpr int kMaxShared = 227 * 1024;
    static constexpr int kStages = (kMaxShared - wgmma::kGroupBytes - kBM * 8) / kStageBytes < 5
                                       ? (kMaxShared - wgmma::kGroupBytes - kBM * 8) / kStageBytes
                                       : 5;
    static constexpr int kLdC = kBM + 4;
    static constexpr int kCBytes = BN * kLdC * 4;
    static constexpr int kStagesBytes = kStages * kStageBytes;
    static constexpr int kOperandBytes = kStagesBytes > kCBytes ? kStagesBytes : kCBytes;
    // + 1024: the stages are aligned up to 1024 bytes inside the dynamic allocation.
    static constexpr int kSharedBytes = wgmma::kGroupBytes + kOperandBytes + kBM * 8;
    static_assert(kStageBytes % wgmma::kGroupBytes == 0 && BN % 8 == 0, "stages of whole swizzle groups");
    static_assert(kLdC % 32 == 4, "the accumulator stores are conflict-free for ld = 4 mod 32");
    static_assert(kStages >= 3 && kSharedBytes <= kMaxShared, "stages in shared memory");
    // The accumulators go to a channel-last y from registers up to BN 128; at 192 the kernel
    // already spills (255 registers) and keeps the shared-memory epilogue.
    static constexpr bool kRegisterEpilogue = BN <= 128;
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

// A thread's wgmma accumulators, with bias and SiLU, into a channel-last y whose positions
// are 16-byte aligned (OutputView::vector). acc[h][4j + r] is C(m + 64 h + 8 (r / 2),
// co + 8 j + 2 q + r % 2), q = lane % 4: the four lanes of a quad hold a row's 8 channels
// 8j .. 8j + 7 as four pairs. For each 4 consecutive j a quad swaps pairs (four shuffles)
// so that lane q holds all 8 channels of j = 4 j' + q, one 16-byte store; a warp's store
// then covers 8 rows x 64 contiguous bytes. Rows from m_end on and channels from
// `channels` on (counted from co) are not written. All 32 lanes of each warp call this.
template <typename T, int BN>
__device__ inline void store_accumulators(const OutputView &o, const float (&acc)[2][BN / 2], int64_t m, int64_t m_end,
                                          int co, int channels) {
    static_assert(sizeof(T) == 2 && BN % 32 == 0, "16-bit pairs, whole groups of four j");
    T *const y = static_cast<T *>(o.y);
    const T *const bias = static_cast<const T *>(o.bias);
    const int q = (int)threadIdx.x % 4;
#pragma unroll
    for (int row = 0; row < 4; ++row) {  // (h, r / 2)
        const int64_t mr = m + 64 * (row / 2) + 8 * (row % 2);
        T *const dst = mr < m_end ? y + output_offset(o, mr) + co : nullptr;
#pragma unroll
        for (int j4 = 0; j4 < BN / 32; ++j4) {
            uint32_t pairs[4];  // pairs[jj]: this lane's channels 8 (4 j4 + jj) + 2q, + 1 (then transposed)
#pragma unroll
            for (int jj = 0; jj < 4; ++jj) {
                const int j = 4 * j4 + jj, n = 8 * j + 2 * q;
                float v0 = acc[row / 2][4 * j + 2 * (row % 2)], v1 = acc[row / 2][4 * j + 2 * (row % 2) + 1];
                if (bias != nullptr) {
                    v0 += n < channels ? to_float(bias[co + n]) : 0.f;
                    v1 += n + 1 < channels ? to_float(bias[co + n + 1]) : 0.f;
                }
                pairs[jj] = element_bits(from_float<T>(activate_fast(v0, o.silu != 0))) |
                            element_bits(from_float<T>(activate_fast(v1, o.silu != 0))) << 16;
            }
            // The quad's 4 x 4 matrix pairs[jj] of lane q transposed in two exchange steps
            // (bit 0, then bit 1 of q ^ jj): lane q ends with pair jj of j = 4 j4 + q.
#pragma unroll
            for (int bit = 1; bit <= 2; bit *= 2) {
                const bool upper = (q & bit) != 0;
#pragma unroll
                for (int c = 0; c < 4; ++c) {
                    if (c & bit) continue;
                    const uint32_t send = upper ? pairs[c] : pairs[c + bit];
                    const uint32_t got = __shfl_xor_sync(0xffffffffu, send, bit);
                    if (upper)
                        pairs[c] = got;
                    else
                        pairs[c + bit] = got;
                }
            }
            const int n = 8 * (4 * j4 + q);  // this lane's 8 channels
            if (dst == nullptr || n >= channels) continue;
            if (n + 8 <= channels) {
                *reinterpret_cast<uint4 *>(dst + n) = make_uint4(pairs[0], pairs[1], pairs[2], pairs[3]);
            } else {
#pragma unroll
                for (int e = 0; e < 8; ++e) {
                    const uint16_t bits = (uint16_t)(pairs[e / 2] >> (16 * (e % 2)));
                    if (n + e < channels) *reinterpret_cast<uint16_t *>(dst + n + e) = bits;
                }
            }
        }
    }
}

template <typename T, int BN>
__global__ void __launch_bounds__(kIgThreads, 1)
    conv3d_implicit_gemm_wgmma_kernel(hipconv_conv3d_params p, IgGeometry geo, FastSteps steps, OutputView out) {
#if HIPCONV_HAS_WGMMA
    typedef IgWgmmaConfig<BN> Cfg;
    constexpr int kStages = Cfg::kStages;
    constexpr int kAcc = BN / 2;
    extern __shared__ __align__(1024) unsigned char ig_wgmma_shared[];
    unsigned char *const smem =
        ig_wgmma_shared + ((wgmma::kGroupBytes - (__cvta_generic_to_shared(ig_wgmma_shared) & 1023)) & 1023);
    float *const c_tile = reinterpret_cast<float *>(smem);
    int64_t *const rows_smem = reinterpret_cast<int64_t *>(smem + Cfg::kOperandBytes);

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

    ARow arow[Cfg::kARows];
    int64_t wrow[Cfg::kBRows];  // < 0: past cout_g (or past the tile's BN rows)
    TapWalk walk;

    // The k-tile at the walk's position into `stage`; then the walk moves on a k-tile.
    auto load_tile = [&](unsigned char *stage) {
#pragma unroll
        for (int i = 0; i < Cfg::kARows; ++i) {
            const int r = row0 + i * Cfg::kRowsPerPass;
            const T *src = a_row_source<T>(p, arow[i], walk, walk_group, cin_g, channel);
            async_copy16(stage + wgmma::swizzled(r, chunk), src, x);
            async_copy16(stage + wgmma::swizzled(r, chunk + 2), src != nullptr ? src + 2 * Cfg::kVec : nullptr, x);
        }
#pragma unroll
        for (int j = 0; j < Cfg::kBRows; ++j) {
            const int r = row0 + j * Cfg::kRowsPerPass;
            if (BN % Cfg::kRowsPerPass == 0 || r < BN) {
                const T *src = walk.inside(p) && wrow[j] >= 0 ? w + (wrow[j] + walk.woff) : nullptr;
                unsigned char *b = stage + Cfg::kBM * wgmma::kRowBytes;
                async_copy16(b + wgmma::swizzled(r, chunk), src, x);
                async_copy16(b + wgmma::swizzled(r, chunk + 2), src != nullptr ? src + 2 * Cfg::kVec : nullptr, x);
            }
        }
        walk.advance(Cfg::kBK, p, cin_g, steps);
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
#pragma unroll
        for (int i = 0; i < Cfg::kARows; ++i) arow[i] = a_row(p, geo, o.m0 + row0 + i * Cfg::kRowsPerPass, o.g, channel);
#pragma unroll
        for (int j = 0; j < Cfg::kBRows; ++j) {
            const int r = row0 + j * Cfg::kRowsPerPass;
            const int co = o.n0 + r;
            wrow[j] = r < BN && co < geo.cout_g ? ((int64_t)o.g * geo.cout_g + co) * p.w_stride[0] + channel : -1;
        }
        walk.start((q / 2) * Cfg::kHalf, p, cin_g, steps);
#pragma unroll
        for (int s = 0; s < kStages - 2; ++s) {
            if (s < kt_count) load_tile(smem + s * Cfg::kStageBytes);
            copy_commit();
        }
    };

    // Accumulators straight to y, where y is channel-last with 16-byte aligned positions:
    // the stages stay untouched, so the next tile's first copies go out before the stores.
    const bool register_epilogue = Cfg::kRegisterEpilogue && out.vector;
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
            const unsigned char *stage = smem + read_stage * Cfg::kStageBytes;
            const unsigned char *a = stage + warpgroup * 128 * wgmma::kRowBytes;
            const unsigned char *b = stage + Cfg::kBM * wgmma::kRowBytes;
            wgmma::fence_operands(acc[0]);
            wgmma::fence_operands(acc[1]);
            wgmma::fence();
#pragma unroll
            for (int step = 0; step < Cfg::kBK / 16; ++step) {
                const uint64_t b_desc = wgmma::descriptor(b, step * 32);
#pragma unroll
                for (int h = 0; h < 2; ++h)
                    wgmma::m64k16<BN>::template run<T>(
                        acc[h], wgmma::descriptor(a + h * 64 * wgmma::kRowBytes, step * 32), b_desc);
            }
            wgmma::commit();
            if (kt + kStages - 2 < kt_count) load_tile(smem + write_stage * Cfg::kStageBytes);
            copy_commit();
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

        // d[4j + r] of half h is C(128 wg + 64 h + 16 warp + lane/4 + 8 (r/2), 8j + 2 (lane%4) + r%2).
        const int lane = (int)threadIdx.x % 32;
        const int m_base = warpgroup * 128 + ((int)threadIdx.x % 128) / 32 * 16 + lane / 4;
        if (register_epilogue) {
            begin_tile(tile + gridDim.x);
            store_accumulators<T, BN>(out, acc, origin.m0 + m_base, geo.m, origin.g * geo.cout_g + origin.n0,
                                      geo.cout_g - origin.n0);
            continue;
        }
#pragma unroll
        for (int h = 0; h < 2; ++h)
#pragma unroll
            for (int i = 0; i < kAcc; ++i) {
                const int m = m_base + 64 * h + 8 * ((i % 4) / 2);
                const int n = 8 * (i / 4) + 2 * (lane % 4) + i % 2;
                c_tile[n * Cfg::kLdC + m] = acc[h][i];
            }
        __syncthreads();
        write_output_tile<T, kIgThreads>(out, c_tile, Cfg::kLdC, Cfg::kBM, BN, origin.m0,
                                         (int)min((int64_t)Cfg::kBM, geo.m - origin.m0),
                                         origin.g * geo.cout_g + origin.n0, min(BN, geo.cout_g - origin.n0), rows_smem);
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

template <typename T, int BN>
hipconv_status_t launch_wgmma_tile(const hipconv_conv3d_params &p, IgGeometry geo, hipStream_t stream) {
    typedef IgWgmmaConfig<BN> Cfg;
    auto kernel = conv3d_implicit_gemm_wgmma_kernel<T, BN>;
    geo.ci_inner = 1;
    geo.k_tiles = (int32_t)ceil_div(geo.k_g, Cfg::kBK);
    geo.n_tiles = ceil_div(geo.cout_g, BN);
    geo.tiles = ceil_div(geo.m, Cfg::kBM) * p.groups * geo.n_tiles;
    const FastSteps steps = fast_steps(p, geo.cin_g);
    const OutputView out = output_view<T>(p);
    static std::atomic<int64_t> shared_cache[kMaxCachedDevices];
    HIPCONV_RETURN_IF_ERROR(allow_dynamic_shared(kernel, Cfg::kSharedBytes, shared_cache));
    hipLaunchKernelGGL(kernel, dim3(grid_blocks(geo.tiles)), dim3(kIgThreads), Cfg::kSharedBytes, stream, p, geo, steps,
                       out);
    return last_launch_status();
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
