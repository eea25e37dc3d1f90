/*
 * conv3d implicit_gemm, halo tiles: ImplicitGemm for few channels (32 16-bit input
 * channels, up to 32 output channels, groups 1, stride 1), where the tap-run kernels gather
 * every input position from L2 once per tap (27 times for 3x3x3) and the GEMM is too narrow
 * (n = cout <= 32) to hide it. Here a block stages an output tile's input halo in shared
 * memory once and multiplies every tap out of it; the weights stay in shared memory, as the
 * B fragments the waves multiply, for the block's life.
 *
 *   y[n, co, od, oh, ow] = act(bias[co] + sum_{kd,kh,kw,ci} x[n, ci, od-pd+kd*dd,
 *                          oh-ph+kh*dh, ow-pw+kw*dw] * w[co, ci, kd, kh, kw])
 *   x channel stride 1 in 16-byte chunks (vector_loads_ok); 0 in the padding, initial_frames
 *   before depth 0; y through y_stride (any layout), w through w_stride (ci stride 1).
 *
 * Output tile: kTileD x kTileH x kTileW = 2 x 8 x 16 positions of one n = 16 rows of 16
 * positions along ow, a row one 16 x 16 x 16 step's m. Per tap, the A operand of a row is
 * 16 consecutive halo positions (the row's input row shifted by the tap), B is the tap's
 * [ci][co] slice of the weights, and k runs over the tap's 32 channels (two steps):
 *
 *   fragments   the weights as B fragments, one per (tap, channel step, co step), each the
 *               wave's registers lane by lane (sizeof(FragB) per lane): a plain load each,
 *               conflict-free, no padding (3x3x3: 54 KB); co >= cout zero
 *   halo        (kTileD + (kd-1)dd) x (kTileH + (kh-1)dh) x (kTileW + (kw-1)dw) positions
 *               of 32 channels, kLd = 40 elements a position (80 bytes: an odd number of
 *               16-byte units, so ldmatrix's 8 rows fall in distinct banks; 3x3x3: 56 KB);
 *               after the multiplies, the same bytes hold c[co][m] (fp32, kLdC = 260)
 *   bias        32 floats (0 past cout or without bias)
 *
 *   wave w owns R = 4 rows, (w / G) * 4 .. + 3, and its co steps (w % G) * S .. + S - 1
 *   (S = kWaveCoSteps: 1 on NVIDIA's 8 warps, G = 2 waves a row group; 2 on AMD's 4 waves,
 *   G = 1): R x S accumulators of 16 x 16
 *
 *        tap (kd,kh,kw) ->  A rows of row r = halo[rd+kd*dd][rh+kh*dh][kw*dw .. kw*dw+15]
 *                           (r = rd * kTileH + rh)
 *
 *   kh = 3, dh = 1 (3x3x3): a wave's rows are consecutive along oh, so row i at tap kh
 *   reads row i + kh's A at tap 0; per (kd, kw, channel step) R + 2 A loads serve the three
 *   kh taps instead of 3R. The multiplies are bound by shared-memory wavefronts (NVIDIA:
 *   per HMMA.16816 (6 A + 3 B) x 4 / 24 = 1.5 with the reuse); other kernels take one A load
 *   per row and tap.
 *
 * Per tile: stage the halo, wait, multiply, write y, then the next tile. The halo comes
 *   - on Hopper (sm_90a code, TMA allowed, x channels-last with 16-byte strides): as one TMA
 *     box of kLd channels x the halo's extents (channels 32 .. 39 and positions outside x
 *     read as zeros, so the box lands in the padded layout as is), issued by thread 0 and
 *     waited for on an mbarrier; tiles that read initial frames take the copies below;
 *   - otherwise: by 16-byte copies (block_copy.h: cp.async with zero fill on NVIDIA, a load
 *     and a store elsewhere; four per position, a thread keeps its chunk t % 4 and walks
 *     positions t/4 + 64 j by additions).
 * y channel-last on NVIDIA: the next tile's halo is staged as soon as the multiplies are
 * done, and the accumulators go to y from registers (store_channel_last: a transpose across
 * each quad of lanes, then one 16-byte store of 8 channels a lane). Otherwise c[co][m] into
 * the halo's place, then y (channel-last: 8 channels at a position, lanes along m; else 8
 * positions along ow of a channel; one 16-byte store where y allows), then the next halo.
 * Two blocks an SM on an H100/H200 (3x3x3: 110 KB each) overlap one block's copies and
 * stores with the other's multiplies. AMD's 64 KB of LDS does not hold 3x3x3's fragments
 * and halo, so those shapes stay on implicit_gemm.hip's kernels there (the launcher checks
 * the device's limit).
 *
 * Launch: 256 threads, dynamic shared memory halo_shared_bytes (opted in: fragments, halo,
 * bias, the TMA halos' mbarrier), the blocks the device holds at once (persistent: the
 * fragments are built once per block); a grid-stride loop over n x ceil(od/2) x ceil(oh/8) x
 * ceil(ow/16) tiles, ow tiles fastest.
 */
#include <atomic>
#include <cstdlib>
#include <optional>
#include <type_traits>

#include "activation.h"
#include "block_copy.h"
#include "compat.h"
#include "element.h"
#include "geometry.h"
#include "hipconv/conv3d.h"
#include "implicit_gemm.h"
#include "launch.h"
#include "matrix_core.h"
#include "output_tile.h"
#include "tma.h"

namespace hipconv {
namespace conv3d {

namespace {

constexpr int kCin = 32;  // input channels (cin_g), 16-bit: 64 bytes a position
constexpr int kBN = 32;   // output channels, padded with zero weights
constexpr int kTileD = 2, kTileH = 8, kTileW = 16;
constexpr int kRows = kTileD * kTileH;  // rows of kTileW positions, one m-step each
constexpr int kTileM = kRows * kTileW;  // output positions of a tile
constexpr int kThreads = 256;
constexpr int kWaves = kThreads / mc::kWaveSize;
constexpr int kCoSteps = kBN / mc::kStep;
// Co steps a wave multiplies: 4 rows x 16 co on NVIDIA's 8 warps, 4 rows x 32 co on AMD's 4
// waves (a B fragment load serves 4 rows; the kh reuse 6 A loads 12 row-taps).
#if defined(HIPCONV_PLATFORM_NVIDIA)
constexpr int kWaveCoSteps = 1;
#else
constexpr int kWaveCoSteps = 2;
#endif
constexpr int kCoGroups = kCoSteps / kWaveCoSteps;  // waves sharing a row group
constexpr int kRowsPerWave = kRows * kCoGroups / kWaves;
constexpr int kLd = kCin + 8;           // elements per staged position (80 bytes)
constexpr int kChunks = kCin * 2 / 16;  // 16-byte chunks per position
constexpr int kPositionsPerPass = kThreads / kChunks;
constexpr int kCinSteps = kCin / mc::kStep;
constexpr int kLdC = kTileM + 4;  // floats per co row of the output tile c[co][m]
static_assert(kTileW == mc::kStep, "a row of the tile is one m-step");
static_assert(kWaves % kCoGroups == 0 && kRows % (kWaves / kCoGroups) == 0, "whole rows per wave");
static_assert(kTileH % kRowsPerWave == 0, "a wave's rows consecutive along oh, at one od");
static_assert((kLd * 2) % 32 == 16, "staged positions an odd number of 16-byte units");
static_assert(kThreads % kChunks == 0, "a thread keeps its chunk");
static_assert(kLdC % 32 == 4, "store_transposed is conflict-free for ld = 4 mod 32");

// Host-computed sizes of one launch.
struct HaloGeometry {
    int32_t extent[kAxes];  // halo positions along d, h, w
    int32_t positions;      // their product
    int32_t tiles[kAxes];   // output tiles along od, oh, ow
    int64_t tiles_total;    // batch * product
    int32_t taps;
    int32_t cout;
    int32_t channel_last;  // y with channel stride 1 (else: w stride 1 or any)
    int32_t cout_runs;     // runs of 8 channels, ceil(cout / 8)
    int32_t vector;        // whole runs are single aligned 16-byte stores
    int32_t tma;           // halos by TMA boxes (HaloMaps), except those reading initial frames
    int32_t box_bytes;     // bytes of such a box (its halo, the padding channels included)
};

// The tensor map of x read in halo boxes (NVIDIA sm_90: kLd channels, the 32 of x and 8 of
// zeros, by the halo's extents along w, h and d), used where HaloGeometry::tma.
#if defined(HIPCONV_PLATFORM_NVIDIA)
struct HaloMaps {
    CUtensorMap x;
};
#else
struct HaloMaps {};
#endif

// B fragments of the weights (one per tap, channel step and co step), then the halo, which
// the output tile c[co][m] reuses once the tile's multiplies are done.
template <typename T> __host__ __device__ inline int halo_fragment_bytes(const HaloGeometry &h) {
    return h.taps * kCinSteps * kCoSteps * mc::kWaveSize * (int)sizeof(mc::FragB<T>);
}
__host__ __device__ inline int halo_tile_bytes(const HaloGeometry &h) {
    const int halo = h.positions * kLd * 2, c = kBN * kLdC * 4;
    return halo > c ? halo : c;
}
template <typename T> inline int halo_shared_bytes(const HaloGeometry &h) {
    return halo_fragment_bytes<T>(h) + halo_tile_bytes(h) + kBN * 4 + 8;  // + the bias, the mbarrier
}

// A tile's multiplies, any kernel: per tap, channel step and row one A load (row i's
// halo row shifted by the tap), per tap and channel step the wave's co steps' B fragments.
// `frag`: the fragments of the wave's first co step, plus this lane.
template <typename T>
__device__ inline void multiply_taps(const hipconv_conv3d_params &p, const T *halo, const mc::FragB<T> *frag,
                                     const int (&row_base)[kRowsPerWave], int step_d, int step_h, int step_w,
                                     mc::Acc (&acc)[kRowsPerWave][kWaveCoSteps]) {
    for (int kd = 0; kd < p.kernel[0]; ++kd) {
        for (int kh = 0; kh < p.kernel[1]; ++kh) {
            const T *const tap_row = halo + (kd * step_d + kh * step_h);
            for (int kw = 0; kw < p.kernel[2]; ++kw) {
                const T *const a = tap_row + kw * step_w;
#pragma unroll
                for (int c = 0; c < kCinSteps; ++c, frag += kCoSteps * mc::kWaveSize) {
                    mc::FragB<T> fb[kWaveCoSteps];
#pragma unroll
                    for (int j = 0; j < kWaveCoSteps; ++j) fb[j] = frag[j * mc::kWaveSize];
#pragma unroll
                    for (int i = 0; i < kRowsPerWave; ++i) {
                        mc::FragA<T> fa;
                        mc::load_a(fa, a + row_base[i] + c * mc::kStep, kLd);
#pragma unroll
                        for (int j = 0; j < kWaveCoSteps; ++j) mc::mma(acc[i][j], fa, fb[j]);
                    }
                }
            }
        }
    }
}

// The same for kh = 3 at dilation 1 (3x3x3), with the kh reuse: a wave's rows are
// consecutive along oh, so row i at tap kh reads the halo row of row i + kh at tap 0, and
// R + 2 A loads per (kd, kw, channel step) serve the three kh taps. `rows`: the halo at the
// wave's first row.
template <typename T>
__device__ inline void multiply_taps_kh3(const hipconv_conv3d_params &p, const HaloGeometry &h, const T *rows,
                                         const mc::FragB<T> *frag, int step_d, int step_w,
                                         mc::Acc (&acc)[kRowsPerWave][kWaveCoSteps]) {
    constexpr int kHaloRows = kRowsPerWave + 2;
    constexpr int kTapFragments = kCinSteps * kCoSteps * mc::kWaveSize;
    const int row_step = h.extent[2] * kLd;
    for (int kd = 0; kd < p.kernel[0]; ++kd) {
        for (int kw = 0; kw < p.kernel[2]; ++kw) {
            const T *const a = rows + (kd * step_d + kw * step_w);
            const mc::FragB<T> *const tap0 = frag + (kd * 3 * p.kernel[2] + kw) * kTapFragments;
#pragma unroll
            for (int c = 0; c < kCinSteps; ++c) {
                mc::FragA<T> fa[kHaloRows];
#pragma unroll
                for (int u = 0; u < kHaloRows; ++u) mc::load_a(fa[u], a + u * row_step + c * mc::kStep, kLd);
#pragma unroll
                for (int kh = 0; kh < 3; ++kh) {
                    const mc::FragB<T> *const f = tap0 + kh * p.kernel[2] * kTapFragments + c * kCoSteps * mc::kWaveSize;
                    mc::FragB<T> fb[kWaveCoSteps];
#pragma unroll
                    for (int j = 0; j < kWaveCoSteps; ++j) fb[j] = f[j * mc::kWaveSize];
#pragma unroll
                    for (int i = 0; i < kRowsPerWave; ++i)
#pragma unroll
                        for (int j = 0; j < kWaveCoSteps; ++j) mc::mma(acc[i][j], fa[i + kh], fb[j]);
                }
            }
        }
    }
}

#if defined(HIPCONV_PLATFORM_NVIDIA)
// A wave's accumulators straight to a channel-last y (no shared memory): per accumulator a
// lane's values + bias, activated and rounded to four 16-bit pairs (word 2s + h: row g + 8s
// of the row's 16 positions, n-half h, channel pair q), then transpose_quad (output_tile.h),
// after which lane (g, q) holds the 8 channels 8 (q % 2) .. + 7 of position g + 8 (q / 2):
// one 16-byte store where y allows (h.vector, 8 channels below cout), elements otherwise.
// kSilu is the launch's activation, compiled in (as a run-time test the SiLU's instructions
// issued, predicated off, for every value without it).
template <typename T, bool kSilu>
__device__ inline void store_channel_last_with(const hipconv_conv3d_params &p, const HaloGeometry &h,
                                               const float *bias_smem,
                                               const mc::Acc (&acc)[kRowsPerWave][kWaveCoSteps], int n, int od0,
                                               int oh0, int ow0, int row0, int co_step0) {
    const int lane = mc::lane_id(), g = lane / 4, q = lane % 4;
    T *const y = static_cast<T *>(p.y);
#pragma unroll
    for (int j = 0; j < kWaveCoSteps; ++j) {
        const int pair = (co_step0 + j) * mc::kStep + 2 * q;  // this lane's channels in n-half 0
        const float bias[2][2] = {{bias_smem[pair], bias_smem[pair + 1]}, {bias_smem[pair + 8], bias_smem[pair + 9]}};
        const int co0 = (co_step0 + j) * mc::kStep + 8 * (q % 2);
#pragma unroll
        for (int i = 0; i < kRowsPerWave; ++i) {
            uint32_t w[4];
#pragma unroll
            for (int s = 0; s < 2; ++s)
#pragma unroll
                for (int half = 0; half < 2; ++half) {
                    const float *const v = &acc[i][j].v[half][2 * s];
                    w[2 * s + half] = mc::pack(from_float<T>(activate<kSilu>(v[0] + bias[half][0])),
                                               from_float<T>(activate<kSilu>(v[1] + bias[half][1])));
                }
            transpose_quad(w, q);
            const int r = row0 + i, od = od0 + r / kTileH, oh = oh0 + r % kTileH, ow = ow0 + g + 8 * (q / 2);
            if (od >= p.out[0] || oh >= p.out[1] || ow >= p.out[2]) continue;
            T *const dst = y + (n * p.y_stride[0] + co0 + od * p.y_stride[2] + oh * p.y_stride[3] + ow * p.y_stride[4]);
            if (h.vector && co0 + 8 <= h.cout) {
                *reinterpret_cast<uint4 *>(dst) = make_uint4(w[0], w[1], w[2], w[3]);
            } else {
#pragma unroll
                for (int e = 0; e < 8; ++e)
                    if (co0 + e < h.cout) {
                        const uint16_t bits = (uint16_t)(w[e / 2] >> (16 * (e % 2)));
                        memcpy(dst + e, &bits, sizeof(T));
                    }
            }
        }
    }
}

template <typename T>
__device__ inline void store_channel_last(const hipconv_conv3d_params &p, const HaloGeometry &h,
                                          const float *bias_smem, const mc::Acc (&acc)[kRowsPerWave][kWaveCoSteps],
                                          int n, int od0, int oh0, int ow0, int row0, int co_step0) {
    if (p.silu != 0) store_channel_last_with<T, true>(p, h, bias_smem, acc, n, od0, oh0, ow0, row0, co_step0);
    else store_channel_last_with<T, false>(p, h, bias_smem, acc, n, od0, oh0, ow0, row0, co_step0);
}
#endif

template <typename T>
__global__ void __launch_bounds__(kThreads, 2)
    conv3d_implicit_gemm_halo_kernel(const hipconv_conv3d_params p, const HaloGeometry h,
                                     const HIPCONV_GRID_CONSTANT HaloMaps maps) {
    extern __shared__ uint4 shared_raw[];
    mc::FragB<T> *const fragments = reinterpret_cast<mc::FragB<T> *>(shared_raw);
    T *const halo = reinterpret_cast<T *>(reinterpret_cast<char *>(shared_raw) + halo_fragment_bytes<T>(h));
    float *const c_tile = reinterpret_cast<float *>(halo);
    float *const bias_smem = reinterpret_cast<float *>(reinterpret_cast<char *>(halo) + halo_tile_bytes(h));
    uint64_t *const halo_landed = reinterpret_cast<uint64_t *>(bias_smem + kBN);  // TMA halos' mbarrier
    const T *const x = static_cast<const T *>(p.x);
    const int lane = mc::lane_id(), wave = (int)threadIdx.x / mc::kWaveSize;
    const int co_step0 = (wave % kCoGroups) * kWaveCoSteps, row0 = (wave / kCoGroups) * kRowsPerWave;

    // The weights as the B fragments the waves multiply, fragment (tap, c, j) at
    // fragments[((tap * kCinSteps + c) * kCoSteps + j) * kWaveSize + lane]: one plain
    // conflict-free load per fragment in the main loop, no padding.
    {
        const T *const w = static_cast<const T *>(p.w);
        const int count = h.taps * kCinSteps * kCoSteps;
        for (int f = wave; f < count; f += kWaves) {
            const int j = f % kCoSteps, c = (f / kCoSteps) % kCinSteps, tap = f / (kCoSteps * kCinSteps);
            const int kw = tap % p.kernel[2], kh = (tap / p.kernel[2]) % p.kernel[1];
            const int kd = tap / (p.kernel[2] * p.kernel[1]);
            const T *const base = w + (kd * p.w_stride[2] + kh * p.w_stride[3] + kw * p.w_stride[4] + c * mc::kStep);
            mc::FragB<T> fb;
            mc::gather_b(fb, [&](int k, int n) {
                const int co = j * mc::kStep + n;
                return co < h.cout ? base[co * p.w_stride[0] + k] : from_float<T>(0.f);
            });
            fragments[f * mc::kWaveSize + lane] = fb;
        }
    }

    // Tile t's origin: batch n and output od0, oh0, ow0.
    auto origin = [&](int64_t t, int &n, int &od0, int &oh0, int &ow0) {
        ow0 = (int)(t % h.tiles[2]) * kTileW;
        t /= h.tiles[2];
        oh0 = (int)(t % h.tiles[1]) * kTileH;
        t /= h.tiles[1];
        od0 = (int)(t % h.tiles[0]) * kTileD;
        n = (int)(t / h.tiles[0]);
    };

#if defined(HIPCONV_PLATFORM_NVIDIA)
    // Whether tile t's halo comes by TMA: one box, where it reads no initial frames.
    auto by_tma = [&](int64_t t) {
        if (!h.tma) return false;
        const int64_t od_tile = (t / ((int64_t)h.tiles[2] * h.tiles[1])) % h.tiles[0];
        return p.initial_frames == nullptr || od_tile * kTileD >= p.pad[0];
    };
#else
    (void)maps, (void)halo_landed;
#endif

    // Tile t's halo. By TMA: one box of kLd channels (the padding channels read as zeros)
    // by thread 0, its bytes counted on halo_landed; every thread fences its earlier
    // accesses to the halo's bytes (c[co][m]) for the copy engine first, and the caller's
    // barrier orders them. Otherwise this thread's chunk of positions t/4 + 64 j, walked by
    // additions, each one 16-byte copy (x, the initial frames before depth 0, or zeros in
    // the padding). The offsets within a halo fit 32 bits (the host checks).
    const int chunk = (int)threadIdx.x % kChunks;
    auto stage = [&](int64_t t) {
        int n, od0, oh0, ow0;
        origin(t, n, od0, oh0, ow0);
        const int id0 = od0 - p.pad[0], ih0 = oh0 - p.pad[1], iw0 = ow0 - p.pad[2];
#if defined(HIPCONV_PLATFORM_NVIDIA)
        if (by_tma(t)) {
            if (threadIdx.x == 0) {
                tma::arrive_expect_bytes(halo_landed, (uint32_t)h.box_bytes);
                tma::load_tile5(tma::shared_address(halo), &maps.x, 0, iw0, ih0, id0, n,
                                tma::shared_address(halo_landed));
            }
            return;
        }
#endif
        const int64_t corner = n * p.x_stride[0] + id0 * p.x_stride[2] + ih0 * p.x_stride[3] + iw0 * p.x_stride[4];
        const int sd = (int)p.x_stride[2], sh = (int)p.x_stride[3], sw = (int)p.x_stride[4];
        int pos = (int)threadIdx.x / kChunks;
        int hw = pos % h.extent[2], hh = (pos / h.extent[2]) % h.extent[1], hd = pos / (h.extent[2] * h.extent[1]);
        for (; pos < h.positions; pos += kPositionsPerPass) {
            const int id = id0 + hd, ih = ih0 + hh, iw = iw0 + hw;
            const T *src = nullptr;
            if ((unsigned)ih < (unsigned)p.in[1] && (unsigned)iw < (unsigned)p.in[2]) {
                if ((unsigned)id < (unsigned)p.in[0])
                    src = x + (corner + (hd * sd + hh * sh + hw * sw) + chunk * 8);
                else if (id < 0)
                    src = input_at<T>(p, n, chunk * 8, id, ih, iw);  // initial frames, or 0
            }
            copy16_one(src, halo + pos * kLd + chunk * 8, x);
            hw += kPositionsPerPass;
            while (hw >= h.extent[2]) {
                hw -= h.extent[2];
                if (++hh == h.extent[1]) hh = 0, ++hd;
            }
        }
        copy_commit();
    };

    // A row's first tap in the halo (elements), and the tap steps.
    const mc::FragB<T> *const wave_fragments = fragments + co_step0 * mc::kWaveSize + lane;
    int row_base[kRowsPerWave];
#pragma unroll
    for (int i = 0; i < kRowsPerWave; ++i) {
        const int r = row0 + i;
        row_base[i] = ((r / kTileH) * h.extent[1] + r % kTileH) * h.extent[2] * kLd;
    }
    const int step_d = p.dilation[0] * h.extent[1] * h.extent[2] * kLd;
    const int step_h = p.dilation[1] * h.extent[2] * kLd, step_w = p.dilation[2] * kLd;
    T *const y = static_cast<T *>(p.y);
    const T *const bias = static_cast<const T *>(p.bias);
    const bool silu = p.silu != 0;
    for (int co = (int)threadIdx.x; co < kBN; co += kThreads)
        bias_smem[co] = bias != nullptr && co < h.cout ? to_float(bias[co]) : 0.f;

#if defined(HIPCONV_PLATFORM_NVIDIA)
    if (h.tma && threadIdx.x == 0) {
        tma::init_barrier(halo_landed, 1);
        tma::fence_barrier_init();
    }
    __syncthreads();  // the mbarrier initialised before its first copy
    uint32_t boxes_waited = 0;  // TMA halos landed so far: the parity of the next phase
#endif
    if (blockIdx.x < h.tiles_total) stage(blockIdx.x);
    for (int64_t t = blockIdx.x; t < h.tiles_total; t += gridDim.x) {
#if defined(HIPCONV_PLATFORM_NVIDIA)
        if (by_tma(t)) tma::wait_barrier(halo_landed, boxes_waited++ & 1);
#endif
        copy_wait<0>();
        __syncthreads();  // the halo (the first time: the fragments, the bias) in place for all

        mc::Acc acc[kRowsPerWave][kWaveCoSteps];
#pragma unroll
        for (int i = 0; i < kRowsPerWave; ++i)
#pragma unroll
            for (int j = 0; j < kWaveCoSteps; ++j) mc::zero(acc[i][j]);
        if (p.kernel[1] == 3 && p.dilation[1] == 1)
            multiply_taps_kh3(p, h, halo + row_base[0], wave_fragments, step_d, step_w, acc);
        else
            multiply_taps(p, halo, wave_fragments, row_base, step_d, step_h, step_w, acc);
#if defined(HIPCONV_PLATFORM_NVIDIA)
        if (h.channel_last && !by_tma(t)) tma::fence_shared_for_async();  // cp.async's halo before a TMA one
#endif
        __syncthreads();  // every wave is done with the halo
#if defined(HIPCONV_PLATFORM_NVIDIA)
        if (h.channel_last) {
            // The next halo in flight while the accumulators go to y from registers.
            if (t + gridDim.x < h.tiles_total) stage(t + gridDim.x);
            int n, od0, oh0, ow0;
            origin(t, n, od0, oh0, ow0);
            store_channel_last<T>(p, h, bias_smem, acc, n, od0, oh0, ow0, row0, co_step0);
            continue;
        }
#endif

        // The tile through c[co][m] (in the halo's place), then to y: runs of 8 channels at
        // a position where y is channel-last, else runs of 8 positions along ow of a channel;
        // each one 16-byte store where y allows, elements otherwise.
#pragma unroll
        for (int i = 0; i < kRowsPerWave; ++i)
#pragma unroll
            for (int j = 0; j < kWaveCoSteps; ++j)
                mc::store_transposed(c_tile + (co_step0 + j) * mc::kStep * kLdC + (row0 + i) * kTileW, kLdC,
                                     acc[i][j]);
        __syncthreads();
        int n, od0, oh0, ow0;
        origin(t, n, od0, oh0, ow0);
        auto y_offset = [&](int m, int co, int64_t *at) {
            const int r = m / kTileW, od = od0 + r / kTileH, oh = oh0 + r % kTileH, ow = ow0 + m % kTileW;
            if (od >= p.out[0] || oh >= p.out[1] || ow >= p.out[2]) return false;
            *at = n * p.y_stride[0] + co * p.y_stride[1] + od * p.y_stride[2] + oh * p.y_stride[3] + ow * p.y_stride[4];
            return true;
        };
        if (h.channel_last) {
            // Position m (lanes along m: conflict-free reads), channels co0 .. co0 + 7.
            for (int item = (int)threadIdx.x; item < kTileM * h.cout_runs; item += kThreads) {
                const int m = item % kTileM, co0 = (item / kTileM) * 8;
                int64_t at;
                if (!y_offset(m, co0, &at)) continue;
                float v[8];
#pragma unroll
                for (int e = 0; e < 8; ++e) {
                    const int co = min(co0 + e, kBN - 1);  // past cout: computed, never stored
                    v[e] = activate_fast(c_tile[co * kLdC + m] + bias_smem[co], silu);
                }
                if (h.vector && co0 + 8 <= h.cout) {
                    store16_rounded<T>(y + at, v);
                } else {
#pragma unroll
                    for (int e = 0; e < 8; ++e)
                        if (co0 + e < h.cout) y[at + e] = from_float<T>(v[e]);
                }
            }
        } else {
            // Positions m0 .. m0 + 7 along ow of channel co.
            for (int item = (int)threadIdx.x; item < kTileM / 8 * h.cout; item += kThreads) {
                const int m0 = (item % (kTileM / 8)) * 8, co = item / (kTileM / 8);
                int64_t at;
                if (!y_offset(m0, co, &at)) continue;
                float v[8];
#pragma unroll
                for (int e = 0; e < 8; ++e) v[e] = activate_fast(c_tile[co * kLdC + m0 + e] + bias_smem[co], silu);
                const int left = p.out[2] - (ow0 + m0 % kTileW);
                if (h.vector && left >= 8) {
                    store16_rounded<T>(y + at, v);
                } else {
#pragma unroll
                    for (int e = 0; e < 8; ++e)
                        if (e < left) y[at + e * p.y_stride[4]] = from_float<T>(v[e]);
                }
            }
        }
#if defined(HIPCONV_PLATFORM_NVIDIA)
        tma::fence_shared_for_async();  // this thread's c[co][m] accesses before a TMA halo
#endif
        __syncthreads();  // c[co][m] read by all before the next halo lands there
        if (t + gridDim.x < h.tiles_total) stage(t + gridDim.x);
    }
}

// The most dynamic shared memory a block may have (NVIDIA: by opting in).
#if defined(HIPCONV_PLATFORM_NVIDIA)
constexpr hipDeviceAttribute_t kSharedPerBlock = cudaDevAttrMaxSharedMemoryPerBlockOptin;
#else
constexpr hipDeviceAttribute_t kSharedPerBlock = hipDeviceAttributeMaxSharedMemoryPerBlock;
#endif

// The launch's geometry, or false where the kernel does not apply.
template <typename T> bool halo_geometry(const hipconv_conv3d_params &p, HaloGeometry *h) {
    if (sizeof(T) != 2 || p.groups != 1 || p.cin != kCin || p.cout > kBN || !vector_loads_ok<T>(p)) return false;
    for (int a = 0; a < kAxes; ++a)
        if (p.stride[a] != 1) return false;
    const int tile[kAxes] = {kTileD, kTileH, kTileW};
    h->positions = 1;
    h->tiles_total = p.batch;
    h->taps = 1;
    for (int a = 0; a < kAxes; ++a) {
        h->extent[a] = tile[a] + (p.kernel[a] - 1) * p.dilation[a];
        h->positions *= h->extent[a];
        h->tiles[a] = (int32_t)ceil_div(p.out[a], tile[a]);
        h->tiles_total *= h->tiles[a];
        h->taps *= p.kernel[a];
    }
    h->cout = p.cout;
    int64_t span = 8;  // the halo's offsets from its corner, in 32 bits
    for (int a = 0; a < kAxes; ++a) span += (int64_t)(h->extent[a] - 1) * std::abs(p.x_stride[a + 2]);
    if (span > INT32_MAX) return false;
    const OutputView out = output_view<T>(p);
    h->channel_last = out.channel_last;
    h->cout_runs = (int32_t)ceil_div(p.cout, 8);
    // Channel-last: 8 channels from a multiple of 8. Else: 8 positions from an ow multiple of
    // 8 along a w of stride 1, every other stride a whole number of runs.
    h->vector = out.channel_last ? out.vector
                                 : out.vector_rows && p.y_stride[0] % 8 == 0 && p.y_stride[1] % 8 == 0 &&
                                       p.y_stride[2] % 8 == 0 && p.y_stride[3] % 8 == 0;
    h->tma = 0;
    h->box_bytes = h->positions * kLd * 2;
    int64_t shared = 0;
    return cached_device_attribute<kSharedPerBlock>(&shared) == hipSuccess && halo_shared_bytes<T>(*h) <= shared;
}

// The TMA map of x's halo boxes, and h->tma set, where the device runs the sm_90a code, TMA
// is allowed and takes x (channels-last, 16-byte strides, box extents up to 256).
template <typename T> void encode_halo_maps(const hipconv_conv3d_params &p, HaloGeometry *h, HaloMaps *maps) {
#if defined(HIPCONV_PLATFORM_NVIDIA)
    if (!device_runs_sm90a() || !tma_allowed()) return;
    for (int a = 0; a < kAxes; ++a)
        if (h->extent[a] > 256) return;
    const tma::ChannelsLastBox box{(uint32_t)kLd, (uint32_t)h->extent[2], (uint32_t)h->extent[1],
                                   (uint32_t)h->extent[0]};
    h->tma = tma::encode_channels_last_map(&maps->x, p.x, std::is_same<T, hipconv_bf16>::value, p.batch, p.cin,
                                           p.in, p.x_stride, box, CU_TENSOR_MAP_SWIZZLE_NONE);
#else
    (void)p, (void)h, (void)maps;
#endif
}

}  // namespace

template <typename T>
std::optional<hipconv_status_t> try_launch_implicit_halo(const hipconv_conv3d_params &p, hipStream_t stream) {
    HaloGeometry h;
    if (!halo_geometry<T>(p, &h)) return std::nullopt;
    HaloMaps maps{};
    encode_halo_maps<T>(p, &h, &maps);
    int64_t sms = 0;
    HIPCONV_RETURN_IF_ERROR(cached_device_attribute<hipDeviceAttributeMultiprocessorCount>(&sms));
    auto kernel = conv3d_implicit_gemm_halo_kernel<T>;
    const int bytes = halo_shared_bytes<T>(h);
    static std::atomic<int64_t> shared_cache[kMaxCachedDevices];
    HIPCONV_RETURN_IF_ERROR(allow_dynamic_shared(kernel, bytes, shared_cache));
#if defined(HIPCONV_PLATFORM_NVIDIA)
    // Two blocks an SM want the largest shared-memory carveout (asked once per device).
    static std::atomic<int64_t> carveout_cache[kMaxCachedDevices];
    int64_t carveout_set = 0;
    HIPCONV_RETURN_IF_ERROR(cached_per_device(
        carveout_cache,
        [&](int, int64_t *done) {
            *done = 1;
            return cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                        (int)cudaSharedmemCarveoutMaxShared);
        },
        &carveout_set));
#endif
    int per_sm = 0;
    HIPCONV_RETURN_IF_ERROR(hipOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kThreads, bytes));
    const int64_t resident = sms * (per_sm > 0 ? per_sm : 1);
    const int64_t blocks = h.tiles_total < resident ? h.tiles_total : resident;
    hipLaunchKernelGGL(kernel, dim3((unsigned)blocks), dim3(kThreads), bytes, stream, p, h, maps);
    return last_launch_status();
}

template std::optional<hipconv_status_t> try_launch_implicit_halo<__half>(const hipconv_conv3d_params &, hipStream_t);
template std::optional<hipconv_status_t> try_launch_implicit_halo<hipconv_bf16>(const hipconv_conv3d_params &,
                                                                                hipStream_t);

}  // namespace conv3d
}  // namespace hipconv
