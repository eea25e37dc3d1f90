/*
 * conv3d implicit GEMM on Hopper's wgmma with input rows reused across taps (sm_90a code
 * only, 16-bit types): the video-VAE convolution (3x3x3, stride and dilation 1, groups 1,
 * 96 channels in, 65-96 out, x, w and initial frames channels-last - NCDHW inputs arrive as
 * the forward's channels-last copies - y in any layout). The im2col
 * kernel (implicit_gemm_sm90.hip) gathers every input position from L2 once per tap (27
 * times); here a block stages each input row its tile needs once and multiplies every tap
 * that reads it out of shared memory.
 *
 *   y[n, od, oh, ow, co] = act(bias[co] + sum_{kd,kh,kw,ci} x[n, od-pd+kd, oh-ph+kh,
 *                          ow-pw+kw, ci] * w[co, kd, kh, kw, ci])
 *
 * Output tile: 4 output rows (oh0 .. oh0+3) x 64 positions (ow0 .. ow0+63) of one (n, od)
 * = 256 GEMM rows, by all 96 (BN) output channels. Warpgroup g owns output rows 2g and
 * 2g + 1, one m64 half each:
 *
 *            ow0 ............. ow0+63     per tap (kd, kh, kw), output row r's A operand is
 *   oh0    | wg 0, half 0 |                 input row (kd, r + kh) of the tile's 6 x 3,
 *   oh0+1  | wg 0, half 1 |                 positions kw .. kw + 63 of its 66 (a descriptor
 *   oh0+2  | wg 1, half 0 |                 kw rows into the staged row), B the tap's
 *   oh0+3  | wg 1, half 1 |                 [96 co][96 ci] slice of w
 *
 * Input rows: per depth tap kd, 6 rows (ih = oh0 - ph + j, j < 6) of 66 positions (iw0 - 1 ..
 * : iw0 = ow0 - pw) of 96 channels, each one TMA box of channels 0-63 (128-byte rows,
 * 128-byte swizzle) and one of channels 64-95 (64-byte rows, 64-byte swizzle); positions
 * outside x read as zeros, and rows before depth 0 from the initial frames' maps where the
 * launch has frames (zeros, the causal padding, otherwise). A tile's 18 rows
 * are 228 KB against the im2col kernel's 27 x 256 positions (1.33 MB).
 * wgmma reads an operand starting any number of rows into a swizzled tile (the swizzle is a
 * function of the address; fifty-first session's probe on an H200: every shift 0-7 of the
 * 128-, 64- and 32-byte swizzles correct with the descriptor's base offset 0, none with
 * another), so a tap's A is the staged row's descriptor advanced kw rows.
 *
 * Shared memory: kSlots row slots (a ring: row q of the tile, q = 6 kd + j, in slot q % 9),
 * kStages weight stages (tap u in stage u % 5: B's k 0-63 as [96][64] and 64-95 as [96][32],
 * the same swizzles), one mbarrier a stage: tap u's boxes (its weights and the rows it is
 * the first to read: j 0-3 at (kd, 0, 0), j 4 at (kd, 1, 0), j 5 at (kd, 2, 0)) are counted
 * on stage u % 5's mbarrier.
 *
 * Pipeline per tap t of the tile's 27 (thread 0 issues the boxes of tap t + kAhead):
 *   wait for stage t's mbarrier; barrier
 *   6 k-steps x 2 halves of wgmma m64n96k16 on the rows' and the stage's descriptors; commit
 *   thread 0: tap t + 3's boxes (into a stage and slots last read by taps <= t - 2, whose
 *   wgmma every thread waited for before this barrier: a slot's row is last read 2 to 9 taps
 *   after the next row into it is first read - kSlots 9 allows 5 taps ahead)
 *   wait until tap t's batch is the only one in flight
 * Epilogue: y channel-last with 16-byte positions: the accumulators to y from registers
 * (wgmma_epilogue.h), the next tile's first boxes issued before. Otherwise (NCDHW y):
 * through c[co][m] in shared memory over the row slots, then runs of 8 positions along ow
 * of a channel (16-byte stores where y allows), then the next tile's boxes.
 *
 * Launch: 256 threads, RowsConfig::kSharedBytes of dynamic shared memory (opted in), one
 * block an SM; a grid-stride loop over n x od x ceil(oh/4) x ceil(ow/64) tiles, ow fastest.
 */
#include <atomic>
#include <optional>
#include <type_traits>

#include "activation.h"
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

struct RowsConfig {
    static constexpr int kCin = 96;         // input channels: a 64-channel part and a 32-channel part
    static constexpr int kWide = 64;        // the first part's channels (128-byte rows)
    static constexpr int kNarrow = 32;      // the second's (64-byte rows)
    static constexpr int kBN = 96;          // output channels of a tile (cout padded with zero weights)
    static constexpr int kKernel = 3;       // taps along every axis
    static constexpr int kTaps = kKernel * kKernel * kKernel;
    static constexpr int kTileH = 4;        // output rows of a tile
    static constexpr int kTileW = 64;       // output positions of a row: one m64
    static constexpr int kRowsPerKd = kTileH + kKernel - 1;      // 6 input rows a depth tap
    static constexpr int kRowPositions = kTileW + kKernel - 1;  // 66 positions an input row
    static constexpr int kThreads = 256;
    // A row slot: the wide part's 66 x 128 bytes, then the narrow part's 66 x 64, each
    // rounded up to whole 1024-byte swizzle groups.
    static constexpr int kWideRowBytes = (kRowPositions * 128 + 1023) / 1024 * 1024;   // 9216
    static constexpr int kNarrowRowBytes = (kRowPositions * 64 + 1023) / 1024 * 1024;  // 5120
    static constexpr int kSlotBytes = kWideRowBytes + kNarrowRowBytes;
    static constexpr int kRowBoxBytes = kRowPositions * (kWide + kNarrow) * 2;  // 12672 of TMA
    static constexpr int kSlots = 9;
    // A weight stage: [96 co][64 ci] then [96 co][32 ci].
    static constexpr int kBWideBytes = kBN * 128;
    static constexpr int kStageBytes = kBWideBytes + kBN * 64;
    static constexpr int kStages = 5;
    static constexpr int kAhead = 3;  // taps of boxes in flight
    static constexpr int kBarrierBytes = 64;
    // y not channel-last with 16-byte positions: c[co][m] (m = tile row * 64 + position) over
    // the row slots after the taps, kLdC floats a channel (conflict-free stores for 4 mod 32).
    static constexpr int kLdC = kTileH * kTileW + 4;
    static constexpr int kSharedBytes =
        wgmma::kGroupBytes + kSlots * kSlotBytes + kStages * kStageBytes + kBarrierBytes;
    static_assert(kCin == kWide + kNarrow && kBN % 32 == 0, "a wide and a narrow part; whole epilogue groups");
    static_assert(kAhead <= kStages - 2 && kAhead <= 5 && kSlots == 9, "stages and slots free when overwritten");
    static_assert(kStages * 8 <= kBarrierBytes && kSharedBytes <= 227 * 1024, "shared memory an SM");
    static_assert(kSlotBytes % 1024 == 0 && kStageBytes % 1024 == 0, "1024-byte aligned parts");
    static_assert(kBN * kLdC * 4 <= kSlots * kSlotBytes && kLdC % 32 == 4, "the c tile over the row slots");
};

// Host-computed tiles of one launch.
struct RowsGeometry {
    int32_t tiles_w;  // ceil(ow / 64)
    int32_t tiles_h;  // ceil(oh / 4)
    int64_t tiles;    // batch * od * tiles_h * tiles_w
};

// A tile's output origin.
struct RowsTile {
    int n, od, oh0, ow0;
};

__device__ inline RowsTile rows_tile(int64_t t, const RowsGeometry &geo, int out_d) {
    RowsTile o;
    o.ow0 = (int)(t % geo.tiles_w) * RowsConfig::kTileW;
    t /= geo.tiles_w;
    o.oh0 = (int)(t % geo.tiles_h) * RowsConfig::kTileH;
    t /= geo.tiles_h;
    o.od = (int)(t % out_d);
    o.n = (int)(t / out_d);
    return o;
}

namespace {

// y not channel-last with 16-byte positions (NCDHW y, where x and w are channels-last copies):
// the accumulators into c[co][m] over the row slots (every warpgroup's wgmma done and the
// block in step before), then runs of 8 positions of one channel and output row, a thread
// each: one 16-byte store where y's w stride is 1 and the run is aligned and inside the row,
// else element stores. Ends with the block in step and its writes fenced for the next boxes.
template <typename T>
__device__ inline void store_through_shared(const OutputView &o, const float (&acc)[2][RowsConfig::kBN / 2],
                                            float *c, const RowsTile &t, int cout) {
    typedef RowsConfig Cfg;
    constexpr int kRuns = Cfg::kTileW / 8;
    // Row m of c is tile row m / 64, position m % 64 (half h of warpgroup wg: tile row 2 wg + h).
    accumulators_to_shared<Cfg::kBN>(acc, c, Cfg::kLdC);
    __syncthreads();
    T *const y = static_cast<T *>(o.y);
    const T *const bias = static_cast<const T *>(o.bias);
    for (int item = (int)threadIdx.x; item < cout * Cfg::kTileH * kRuns; item += Cfg::kThreads) {
        const int run = item % kRuns, row = item / kRuns % Cfg::kTileH, co = item / (kRuns * Cfg::kTileH);
        const int oh = t.oh0 + row, ow = t.ow0 + 8 * run;
        if (oh >= o.out[1] || ow >= o.out[2]) continue;
        const float b = bias != nullptr ? to_float(bias[co]) : 0.f;
        const float4 *src = reinterpret_cast<const float4 *>(c + co * Cfg::kLdC + row * Cfg::kTileW + 8 * run);
        const float4 lo = src[0], hi = src[1];
        float v[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
#pragma unroll
        for (int e = 0; e < 8; ++e) v[e] = activate_fast(v[e] + b, o.silu != 0);
        const int64_t first = (int64_t)t.n * o.stride[0] + (int64_t)co * o.stride[1] + (int64_t)t.od * o.stride[2] +
                              (int64_t)oh * o.stride[3] + (int64_t)ow * o.stride[4];
        if (o.vector_rows && ow + 8 <= o.out[2] && first % 8 == 0) {
            store16_rounded<T>(y + first, v);
        } else {
#pragma unroll
            for (int e = 0; e < 8; ++e)
                if (ow + e < o.out[2]) y[first + e * o.stride[4]] = from_float<T>(v[e]);
        }
    }
    tma::fence_shared_for_async();
    __syncthreads();
}

// Maps: x_wide / x_narrow the channels-last x in boxes of 64 / 32 channels x 66 positions of
// one row; f_wide / f_narrow the same of the initial frames (read where p.initial_frames is
// set); w_wide / w_narrow the 2-D view w[cout][27 * 96] in boxes of 64 / 32 columns x 96
// rows.
template <typename T>
__global__ void __launch_bounds__(RowsConfig::kThreads, 1)
    conv3d_implicit_gemm_rows_kernel(hipconv_conv3d_params p, RowsGeometry geo, OutputView out,
                                     const __grid_constant__ CUtensorMap x_wide,
                                     const __grid_constant__ CUtensorMap x_narrow,
                                     const __grid_constant__ CUtensorMap f_wide,
                                     const __grid_constant__ CUtensorMap f_narrow,
                                     const __grid_constant__ CUtensorMap w_wide,
                                     const __grid_constant__ CUtensorMap w_narrow) {
#if HIPCONV_HAS_WGMMA
    typedef RowsConfig Cfg;
    constexpr int kAcc = Cfg::kBN / 2;
    extern __shared__ __align__(1024) unsigned char rows_shared[];
    unsigned char *const smem =
        rows_shared + ((wgmma::kGroupBytes - (__cvta_generic_to_shared(rows_shared) & 1023)) & 1023);
    unsigned char *const slots = smem;
    unsigned char *const stages = smem + Cfg::kSlots * Cfg::kSlotBytes;
    uint64_t *const landed = reinterpret_cast<uint64_t *>(stages + Cfg::kStages * Cfg::kStageBytes);

    const int warpgroup = (int)threadIdx.x / 128;
    uint32_t parity = 0;  // bit s: the parity of landed[s]'s next phase

    if (threadIdx.x == 0) {
        for (int s = 0; s < Cfg::kStages; ++s) tma::init_barrier(&landed[s], 1);
        tma::fence_barrier_init();
    }
    __syncthreads();

    // Thread 0: tap u's weights and the input rows it is the first to read, into stage u % 5
    // and their slots, counted on the stage's mbarrier.
    auto issue_tap = [&](const RowsTile &o, int u) {
        const int kd = u / 9, kh = u / 3 % 3, kw = u % 3;
        const int first = kw != 0 ? 0 : kh == 0 ? 0 : kh + 3;  // the first new row's j
        const int count = kw != 0 ? 0 : kh == 0 ? 4 : 1;
        const int s = u % Cfg::kStages;
        unsigned char *const stage = stages + s * Cfg::kStageBytes;
        tma::arrive_expect_bytes(&landed[s], Cfg::kStageBytes + count * Cfg::kRowBoxBytes);
        tma::load_tile(stage, &w_wide, u * Cfg::kCin, 0, &landed[s]);
        tma::load_tile(stage + Cfg::kBWideBytes, &w_narrow, u * Cfg::kCin + Cfg::kWide, 0, &landed[s]);
        const uint32_t bar = tma::shared_address(&landed[s]);
        for (int j = first; j < first + count; ++j) {
            unsigned char *const slot = slots + (kd * Cfg::kRowsPerKd + j) % Cfg::kSlots * Cfg::kSlotBytes;
            const int iw = o.ow0 - p.pad[2], ih = o.oh0 - p.pad[1] + j, id = o.od - p.pad[0] + kd;
            // Before depth 0: frame id + pad0 of the initial frames (below frame 0: zeros).
            const bool frame = id < 0 && p.initial_frames != nullptr;
            const int depth = frame ? id + p.pad[0] : id;
            tma::load_tile5(tma::shared_address(slot), frame ? &f_wide : &x_wide, 0, iw, ih, depth, o.n, bar);
            tma::load_tile5(tma::shared_address(slot + Cfg::kWideRowBytes), frame ? &f_narrow : &x_narrow, Cfg::kWide,
                            iw, ih, depth, o.n, bar);
        }
    };
    auto begin_tile = [&](int64_t t) {
        if (threadIdx.x != 0 || t >= geo.tiles) return;
        const RowsTile o = rows_tile(t, geo, p.out[0]);
        for (int u = 0; u < Cfg::kAhead; ++u) issue_tap(o, u);
    };

    // This thread's accumulator rows: d[4j + r] of half h is C(output row 2 wg + h, position
    // 16 warp + lane / 4 + 8 (r / 2)).
    const int position = ((int)threadIdx.x % 128) / 32 * 16 + (int)threadIdx.x % 32 / 4;
    T *const y = static_cast<T *>(out.y);

    begin_tile(blockIdx.x);
    for (int64_t tile = blockIdx.x; tile < geo.tiles; tile += gridDim.x) {
        const RowsTile o = rows_tile(tile, geo, p.out[0]);
        float acc[2][kAcc];
#pragma unroll
        for (int h = 0; h < 2; ++h)
#pragma unroll
            for (int i = 0; i < kAcc; ++i) acc[h][i] = 0.f;

        for (int t = 0; t < Cfg::kTaps; ++t) {
            const int s = t % Cfg::kStages;
            tma::wait_barrier(&landed[s], (parity >> s) & 1u);
            parity ^= 1u << s;
            __syncthreads();  // every warpgroup's wgmma of tap t - 2 is done: its stage and rows are free
            const int kd = t / 9, kh = t / 3 % 3, kw = t % 3;
            const unsigned char *const b = stages + s * Cfg::kStageBytes;
            wgmma::fence_operands(acc[0]);
            wgmma::fence_operands(acc[1]);
            wgmma::fence();
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int j = 2 * warpgroup + h + kh;  // the input row of output row 2 wg + h
                const unsigned char *const slot = slots + (kd * Cfg::kRowsPerKd + j) % Cfg::kSlots * Cfg::kSlotBytes;
#pragma unroll
                for (int step = 0; step < Cfg::kCin / 16; ++step) {
                    const bool wide = step < Cfg::kWide / 16;
                    const uint64_t a_desc =
                        wide ? wgmma::descriptor(slot + kw * wgmma::kRowBytes, step * 32)
                             : wgmma::descriptor<wgmma::kRowBytes64>(slot + Cfg::kWideRowBytes + kw * wgmma::kRowBytes64,
                                                                     (step - Cfg::kWide / 16) * 32);
                    const uint64_t b_desc =
                        wide ? wgmma::descriptor(b, step * 32)
                             : wgmma::descriptor<wgmma::kRowBytes64>(b + Cfg::kBWideBytes, (step - Cfg::kWide / 16) * 32);
                    wgmma::m64k16<Cfg::kBN>::template run<T>(acc[h], a_desc, b_desc);
                }
            }
            wgmma::commit();
            if (threadIdx.x == 0 && t + Cfg::kAhead < Cfg::kTaps) issue_tap(o, t + Cfg::kAhead);
            wgmma::wait<1>();
            wgmma::fence_operands(acc[0]);
            wgmma::fence_operands(acc[1]);
        }
        wgmma::wait<0>();
        wgmma::fence_operands(acc[0]);
        wgmma::fence_operands(acc[1]);
        __syncthreads();  // every warpgroup's reads of the slots and stages done
        if (!out.vector) {
            store_through_shared<T>(out, acc, reinterpret_cast<float *>(slots), o, p.cout);
            begin_tile(tile + gridDim.x);
            continue;
        }
        begin_tile(tile + gridDim.x);

        auto row_address = [&](int row) -> T * {  // (h, r / 2)
            const int oh = o.oh0 + 2 * warpgroup + row / 2, ow = o.ow0 + position + 8 * (row % 2);
            return oh < p.out[1] && ow < p.out[2] ? y + ((int64_t)o.n * out.stride[0] + (int64_t)o.od * out.stride[2] +
                                                        (int64_t)oh * out.stride[3] + (int64_t)ow * out.stride[4])
                                                  : nullptr;
        };
        store_accumulator_rows<T, Cfg::kBN, Epilogue::kRunTime>(out, acc, row_address, 0, p.cout);
    }
#endif
}

// HIPCONV_CONV3D_ROWS=0 in the environment leaves the row kernel out (its shapes then take
// implicit_gemm_sm90.hip's im2col kernel), for comparison. Read once per process.
bool rows_kernel_allowed() {
    static const bool allowed = switch_left_on("HIPCONV_CONV3D_ROWS");
    return allowed;
}

// Whether the row kernel takes p (besides the device and the maps, checked by the caller).
bool rows_kernel_takes(const hipconv_conv3d_params &p) {
    typedef RowsConfig Cfg;
    if (p.groups != 1 || p.cin != Cfg::kCin || p.cout <= 64 || p.cout > Cfg::kBN || p.x_stride[1] != 1 ||
        (p.initial_frames != nullptr && p.initial_stride[1] != 1) || !weights_dense_along_k(p, Cfg::kCin))
        return false;
    for (int a = 0; a < kAxes; ++a)
        if (p.kernel[a] != Cfg::kKernel || p.stride[a] != 1 || p.dilation[a] != 1) return false;
    return true;
}

}  // namespace

template <typename T>
std::optional<hipconv_status_t> try_launch_implicit_rows(const hipconv_conv3d_params &p, hipStream_t stream) {
    typedef RowsConfig Cfg;
    if (!device_runs_sm90a() || !tma_allowed() || !rows_kernel_allowed() || !rows_kernel_takes(p)) return std::nullopt;
    constexpr bool kBf16 = std::is_same<T, hipconv_bf16>::value;
    CUtensorMap x_wide{}, x_narrow{}, f_wide{}, f_narrow{}, w_wide{}, w_narrow{};
    const tma::ChannelsLastBox wide_box{Cfg::kWide, Cfg::kRowPositions, 1, 1};
    const tma::ChannelsLastBox narrow_box{Cfg::kNarrow, Cfg::kRowPositions, 1, 1};
    const uint64_t k_g = (uint64_t)Cfg::kTaps * Cfg::kCin;
    if (!tma::encode_channels_last_map(&x_wide, p.x, kBf16, p.batch, p.cin, p.in, p.x_stride, wide_box,
                                       CU_TENSOR_MAP_SWIZZLE_128B) ||
        !tma::encode_channels_last_map(&x_narrow, p.x, kBf16, p.batch, p.cin, p.in, p.x_stride, narrow_box,
                                       CU_TENSOR_MAP_SWIZZLE_64B) ||
        !tma::encode_tile_map(&w_wide, p.w, kBf16, k_g, (uint64_t)p.cout, (uint64_t)p.w_stride[0], Cfg::kBN, 64) ||
        !tma::encode_tile_map(&w_narrow, p.w, kBf16, k_g, (uint64_t)p.cout, (uint64_t)p.w_stride[0], Cfg::kBN, 32))
        return std::nullopt;
    if (p.initial_frames != nullptr) {  // [batch, cin, pad0, in[1], in[2]] by initial_stride
        const int frames_dhw[kAxes] = {p.pad[0], p.in[1], p.in[2]};
        if (!tma::encode_channels_last_map(&f_wide, p.initial_frames, kBf16, p.batch, p.cin, frames_dhw,
                                           p.initial_stride, wide_box, CU_TENSOR_MAP_SWIZZLE_128B) ||
            !tma::encode_channels_last_map(&f_narrow, p.initial_frames, kBf16, p.batch, p.cin, frames_dhw,
                                           p.initial_stride, narrow_box, CU_TENSOR_MAP_SWIZZLE_64B))
            return std::nullopt;
    }
    const OutputView out = output_view<T>(p);
    RowsGeometry geo{};
    geo.tiles_w = (int32_t)ceil_div(p.out[2], Cfg::kTileW);
    geo.tiles_h = (int32_t)ceil_div(p.out[1], Cfg::kTileH);
    geo.tiles = (int64_t)p.batch * p.out[0] * geo.tiles_h * geo.tiles_w;
    auto kernel = conv3d_implicit_gemm_rows_kernel<T>;
    static std::atomic<int64_t> shared_cache[kMaxCachedDevices];
    HIPCONV_RETURN_IF_ERROR(allow_dynamic_shared(kernel, Cfg::kSharedBytes, shared_cache));
    hipLaunchKernelGGL(kernel, dim3(grid_blocks(geo.tiles)), dim3(Cfg::kThreads), Cfg::kSharedBytes, stream, p, geo,
                       out, x_wide, x_narrow, f_wide, f_narrow, w_wide, w_narrow);
    return last_launch_status();
}

template std::optional<hipconv_status_t> try_launch_implicit_rows<__half>(const hipconv_conv3d_params &,
                                                                          hipStream_t);
template std::optional<hipconv_status_t> try_launch_implicit_rows<hipconv_bf16>(const hipconv_conv3d_params &,
                                                                                hipStream_t);

}  // namespace conv3d
}  // namespace hipconv

#endif
