/*
 * conv3d implicit_gemm: the 3-D convolution as one GEMM per group on matrix cores, with the
 * patch matrix never written (hipconv/conv3d.h, ImplicitGemm).
 *
 *   C[m, co] = sum_k A[m, k] * W[co, k]   per group g; m = (n, od, oh, ow), co < cout_g
 *   A[m, k]  = x[n, g*cin_g + ci, id, ih, iw] (0 in the padding, initial_frames before depth 0)
 *   W[co, k] = w[g*cout_g + co, ci, kd, kh, kw] through w_stride
 *   y[n, g*cout_g + co, od, oh, ow] = act(bias + C[m, co]) through y_stride (output_tile.h)
 * k order: (kd, kh, kw, ci) with ci innermost on the vector path and wherever w's ci stride
 * is 1; (ci, kd, kh, kw) otherwise (NCDHW-ordered w), so that the W gathers run along w.
 *
 * Block tile 128 (m) x BN (co), BN in {32, 64, 96, 128} per launch (the least padding of
 * cout_g; ties to the wider; f32 and AMD stop at 64 and 96), k-tile = 64 bytes of k (32
 * 16-bit elements, 16 f32). 256 threads: 8 warps on NVIDIA as 4 (m) x 2 (n), 4 waves on AMD
 * as 2 x 2; each wave runs (wave tile / 16)^2 steps of 16x16x16 per 16 of k (matrix_core.h):
 *
 *            n0 ...................... n0+BN-1
 *          +-------------+-------------+
 *     m0   |  wave 0     |  wave 1     |     NVIDIA: wave tile 32 x BN/2
 *      :   +-------------+-------------+     AMD:    wave tile 64 x BN/2
 *      :   |  wave 2     |  wave 3     |     (2 x 1 .. 4 x 4 steps of 16x16)
 *      :   +-----  ...  -+-----  ...  -+
 *   m0+127 |  wave 6     |  wave 7     |
 *          +-------------+-------------+
 *
 * Shared memory per stage: A[128][40] and B[BN][40] (16-bit; f32 [..][20]): 64 bytes of k
 * per row plus one 16-byte chunk, so a row is 80 bytes, an odd number of 16-byte units, and
 * ldmatrix's 8 rows fall in distinct banks. A tap table per k-tile (TapEntry: the tap's
 * displacements and the x and w offsets of each k) is built by one wave ahead of the loads,
 * so no thread divides by the kernel sizes in the main loop; each thread keeps its rows'
 * output positions (RowInfo) in registers for the whole tile.
 *
 * Loads (the two kinds of kernel, chosen per launch):
 *   vector   x NDHWC-like (channel stride 1), cin_g a multiple of 16 bytes' worth, w with ci
 *            stride 1, all 16-byte aligned: one 16-byte copy per (row, tap, 8-channel chunk)
 *            - a thread owns chunk column t % 4 and rows t/4, t/4 + 64 of A, and B rows
 *            likewise. NVIDIA: cp.async (zero fill through src-size 0 for padding rows),
 *            kIgStages = 4 stages in flight. AMD: the next k-tile staged in registers while
 *            the current one is multiplied (two buffers).
 *   element  anything else (NCDHW, cin_g not a multiple of 8, unaligned): element loads
 *            staged in registers, two buffers. A: a thread owns one row (t % 128) and pairs
 *            of k, so the lanes of a wave run along m: along ow, contiguous in NCDHW x. B:
 *            lanes along k, contiguous in w in the chosen k order.
 *
 * Epilogue: accumulators -> shared c[co][m] (row stride 132 floats, store_transposed) ->
 * output_tile.h (bias, SiLU, y through y_stride; 16-byte stores along channels for NDHWC).
 *
 * NVIDIA, vector loads with cin_g a multiple of 32 elements (16 f32): the tap-run kernel
 * below (conv3d_implicit_gemm_fast_kernel: 256 x BN tiles, k-tiles of 128 bytes, no table);
 * f16/bf16 with cin_g a multiple of 32 on a compute capability 9.0 device with sm_90a code
 * in the build: its wgmma twin in implicit_gemm_sm90.hip (co tiles up to 192) instead.
 * Before all of these, f16/bf16 with groups 1, 32 input and at most 32 output channels and
 * stride 1 run the halo-tile kernel (implicit_gemm_halo.hip: an output tile's input halo
 * staged once, every tap multiplied out of it) where its shared memory fits the device.
 * What the kernels share (IgGeometry, RowInfo, TapWalk, ...) is in implicit_gemm.h.
 *
 * Launch: 256 threads, dynamic shared memory IgConfig::kSharedBytes (opted in past 48 KB on
 * NVIDIA); 1-D grid-stride loop over ceil(m/128) * groups * ceil(cout_g/BN) tiles, co tiles
 * fastest (neighbouring blocks share A rows).
 */
#include <algorithm>

#include "block_copy.h"
#include "compat.h"
#include "element.h"
#include "geometry.h"
#include "hipconv/conv3d.h"
#include "implicit_gemm.h"
#include "launch.h"
#include "matrix_core.h"
#include "output_tile.h"

namespace hipconv {
namespace conv3d {

constexpr int kIgBlockM = 128;
constexpr int kIgWaves = kIgThreads / mc::kWaveSize;  // 8 NVIDIA, 4 AMD
constexpr int kIgWavesN = 2;
constexpr int kIgWavesM = kIgWaves / kIgWavesN;
constexpr int kIgTileBytes = 64;                     // k per row of a k-tile, in bytes
constexpr int kIgChunks = kIgTileBytes / 16;         // 16-byte chunks per row of a k-tile
constexpr int kIgRowBytes = kIgTileBytes + 16;       // staged row: 80 bytes
constexpr int kIgLdC = kIgBlockM + 4;                // floats per row of c[co][m]
#if HIPCONV_WAVE_SIZE == 32
constexpr int kIgStages = 4;  // cp.async stages (the element kernels use 2 of them)
#else
constexpr int kIgStages = 2;
#endif
static_assert(kIgRowBytes % 32 == 16, "staged rows an odd number of 16-byte units");
static_assert(kIgLdC % 32 == 4, "store_transposed is conflict-free for ld = 4 mod 32");

template <typename T, int BN> struct IgConfig {
    static constexpr int kBK = kIgTileBytes / (int)sizeof(T);  // 32 / 16
    static constexpr int kVec = 16 / (int)sizeof(T);
    static constexpr int kLds = kIgRowBytes / (int)sizeof(T);  // 40 / 20
    static constexpr int kWaveM = kIgBlockM / kIgWavesM;
    static constexpr int kWaveN = BN / kIgWavesN;
    static constexpr int kFragsM = kWaveM / mc::kStep;
    static constexpr int kFragsN = kWaveN / mc::kStep;
    static constexpr int kStageElems = (kIgBlockM + BN) * kLds;
    static constexpr int kStagesBytes = kIgStages * kStageElems * (int)sizeof(T);
    static constexpr int kCBytes = BN * kIgLdC * 4;
    static constexpr int kOperandBytes = kStagesBytes > kCBytes ? kStagesBytes : kCBytes;
    static constexpr int kTableBytes = kIgStages * kBK * 32;
    static constexpr int kSharedBytes = kOperandBytes + kTableBytes + kIgBlockM * 8;
    // vector loads: A chunks per thread, B chunks per thread (the last pass partial)
    static constexpr int kAChunks = kIgBlockM * kIgChunks / kIgThreads;  // 2
    static constexpr int kBChunks = (BN * kIgChunks + kIgThreads - 1) / kIgThreads;
    // element loads per thread
    static constexpr int kAElems = kIgBlockM * kBK / kIgThreads;  // 16 / 8
    static constexpr int kBRowsPerPass = kIgThreads / kBK;        // 8 / 16
    static constexpr int kBElems = BN / kBRowsPerPass;
    static_assert(kWaveN % mc::kStep == 0 && kWaveM % mc::kStep == 0, "wave tile of whole steps");
    static_assert(kBK % mc::kStep == 0, "k-tile of whole steps");
    static_assert(BN % kBRowsPerPass == 0, "B element passes");
};

// One k of a k-tile: its tap's displacements, channel, and offsets in x (from a row's base)
// and in w (from an output channel's row). ci < 0: past k_g (reads zero).
struct TapEntry {
    int32_t dd, dh, dw, ci;
    int64_t xoff, woff;
};
static_assert(sizeof(TapEntry) == 32, "TapEntry layout");

__device__ inline void fill_entry(TapEntry &e, int k, const hipconv_conv3d_params &p, const IgGeometry &geo) {
    if (k >= geo.k_g) {
        e.ci = -1;
        e.dd = e.dh = e.dw = 0;
        e.xoff = e.woff = 0;
        return;
    }
    int ci, kd, kh, kw;
    if (geo.ci_inner) {
        int tap = k / geo.cin_g;
        ci = k - tap * geo.cin_g;
        int q = tap / p.kernel[2];
        kw = tap - q * p.kernel[2];
        kd = q / p.kernel[1];
        kh = q - kd * p.kernel[1];
    } else {
        int q = k / p.kernel[2];
        kw = k - q * p.kernel[2];
        int r = q / p.kernel[1];
        kh = q - r * p.kernel[1];
        ci = r / p.kernel[0];
        kd = r - ci * p.kernel[0];
    }
    e.dd = kd * p.dilation[0];
    e.dh = kh * p.dilation[1];
    e.dw = kw * p.dilation[2];
    e.ci = ci;
    e.xoff = ci * p.x_stride[1] + e.dd * p.x_stride[2] + e.dh * p.x_stride[3] + e.dw * p.x_stride[4];
    e.woff = ci * p.w_stride[1] + kd * p.w_stride[2] + kh * p.w_stride[3] + kw * p.w_stride[4];
}

// Where A(row, k of e) lives: nullptr in the padding (and past m or k_g).
template <typename T>
__device__ inline const T *a_source(const hipconv_conv3d_params &p, const IgGeometry &geo, const RowInfo &r,
                                    const TapEntry &e, int g) {
    if (r.n < 0 || e.ci < 0) return nullptr;
    const int id = r.id0 + e.dd, ih = r.ih0 + e.dh, iw = r.iw0 + e.dw;
    if ((unsigned)ih >= (unsigned)p.in[1] || (unsigned)iw >= (unsigned)p.in[2] || id >= p.in[0]) return nullptr;
    if (id >= 0) return static_cast<const T *>(p.x) + (r.base + e.xoff);
    return input_at<T>(p, r.n, g * geo.cin_g + e.ci, id, ih, iw);  // initial frames, or zero
}

// The vector path's per-thread sources: chunk column t % 4; A rows t/4 + 64 i; B rows
// (t + 256 j) / 4 of the co tile.
template <typename T, int BN> struct VectorLoads {
    typedef IgConfig<T, BN> Cfg;
    RowInfo rows[Cfg::kAChunks];
    int64_t wrow[Cfg::kBChunks];  // w offset of the output channel's row; < 0: past cout_g

    __device__ void setup(const hipconv_conv3d_params &p, const IgGeometry &geo, int64_t m0, int n0, int g) {
#pragma unroll
        for (int i = 0; i < Cfg::kAChunks; ++i)
            rows[i] = row_info(p, geo, m0 + (int)threadIdx.x / kIgChunks + i * (kIgThreads / kIgChunks), g);
#pragma unroll
        for (int j = 0; j < Cfg::kBChunks; ++j) {
            const int co = n0 + ((int)threadIdx.x + j * kIgThreads) / kIgChunks;
            wrow[j] = co < geo.cout_g ? ((int64_t)g * geo.cout_g + co) * p.w_stride[0] : -1;
        }
    }

    // f(slot, dst element offset in the stage, src or nullptr) for each of this thread's
    // chunks; slot (0 .. kAChunks + kBChunks - 1) is a compile-time index once unrolled.
    template <typename F>
    __device__ void each(const hipconv_conv3d_params &p, const IgGeometry &geo, const TapEntry *table, int g,
                         const F &f) const {
        const int cc = threadIdx.x % kIgChunks;
        const TapEntry e = table[cc * Cfg::kVec];
#pragma unroll
        for (int i = 0; i < Cfg::kAChunks; ++i) {
            const int row = (int)threadIdx.x / kIgChunks + i * (kIgThreads / kIgChunks);
            f(i, row * Cfg::kLds + cc * Cfg::kVec, a_source<T>(p, geo, rows[i], e, g));
        }
        const T *w = static_cast<const T *>(p.w);
#pragma unroll
        for (int j = 0; j < Cfg::kBChunks; ++j) {
            const int chunk = (int)threadIdx.x + j * kIgThreads;
            if (chunk < BN * kIgChunks) {
                const T *src = wrow[j] >= 0 && e.ci >= 0 ? w + (wrow[j] + e.woff) : nullptr;
                f(Cfg::kAChunks + j, (kIgBlockM + chunk / kIgChunks) * Cfg::kLds + cc * Cfg::kVec, src);
            }
        }
    }
};

// The vector path through registers: issue() loads the next k-tile, commit() stores it.
template <typename T, int BN> struct VectorStage {
    typedef IgConfig<T, BN> Cfg;
    static constexpr int kCount = Cfg::kAChunks + Cfg::kBChunks;
    uint4 v[kCount];

    __device__ void issue(const VectorLoads<T, BN> &loads, const hipconv_conv3d_params &p, const IgGeometry &geo,
                          const TapEntry *table, int g) {
        loads.each(p, geo, table, g, [&](int slot, int, const T *src) {
            v[slot] = src != nullptr ? *reinterpret_cast<const uint4 *>(src) : make_uint4(0, 0, 0, 0);
        });
    }
    __device__ void commit(const VectorLoads<T, BN> &loads, const hipconv_conv3d_params &p, const IgGeometry &geo,
                           const TapEntry *table, T *stage, int g) const {
        // Same walk, destinations only (the sources are recomputed but not read).
        loads.each(p, geo, table, g,
                   [&](int slot, int dst, const T *) { *reinterpret_cast<uint4 *>(stage + dst) = v[slot]; });
    }
};

// The element path through registers. A: row t % 128, k = 2 (t / 128 + 2 j) + h. B: k = t % BK,
// rows t / BK + (256 / BK) j.
template <typename T, int BN> struct ElementStage {
    typedef IgConfig<T, BN> Cfg;
    RowInfo row;
    int n0;
    T a[Cfg::kAElems];
    T b[Cfg::kBElems];

    __device__ void setup(const hipconv_conv3d_params &p, const IgGeometry &geo, int64_t m0, int n0_, int g) {
        row = row_info(p, geo, m0 + (int)threadIdx.x % kIgBlockM, g);
        n0 = n0_;
    }

    __device__ void issue(const hipconv_conv3d_params &p, const IgGeometry &geo, const TapEntry *table, int g) {
        const int pair0 = (int)threadIdx.x / kIgBlockM;
#pragma unroll
        for (int i = 0; i < Cfg::kAElems; ++i) {
            const int k = 2 * (pair0 + 2 * (i / 2)) + i % 2;
            const T *src = a_source<T>(p, geo, row, table[k], g);
            a[i] = src != nullptr ? *src : from_float<T>(0.f);
        }
        const int k = (int)threadIdx.x % Cfg::kBK;
        const TapEntry e = table[k];
        const T *w = static_cast<const T *>(p.w);
#pragma unroll
        for (int j = 0; j < Cfg::kBElems; ++j) {
            const int co = n0 + (int)threadIdx.x / Cfg::kBK + j * Cfg::kBRowsPerPass;
            b[j] = co < geo.cout_g && e.ci >= 0 ? w[((int64_t)g * geo.cout_g + co) * p.w_stride[0] + e.woff]
                                                : from_float<T>(0.f);
        }
    }

    __device__ void commit(T *stage) const {
        const int r = (int)threadIdx.x % kIgBlockM, pair0 = (int)threadIdx.x / kIgBlockM;
#pragma unroll
        for (int i = 0; i < Cfg::kAElems; ++i) stage[r * Cfg::kLds + 2 * (pair0 + 2 * (i / 2)) + i % 2] = a[i];
        const int k = (int)threadIdx.x % Cfg::kBK;
        T *bs = stage + kIgBlockM * Cfg::kLds;
#pragma unroll
        for (int j = 0; j < Cfg::kBElems; ++j)
            bs[((int)threadIdx.x / Cfg::kBK + j * Cfg::kBRowsPerPass) * Cfg::kLds + k] = b[j];
    }
};

// One staged k-tile's steps into the wave's accumulators.
template <typename T, int BN, int kFragsM, int kFragsN>
__device__ inline void multiply_stage(mc::Acc (&acc)[kFragsM][kFragsN], const T *stage, int wave_m, int wave_n) {
    typedef IgConfig<T, BN> Cfg;
    static_assert(kFragsM == Cfg::kFragsM && kFragsN == Cfg::kFragsN, "the wave's accumulators");
    const T *as = stage + wave_m * Cfg::kLds;
    const T *bs = stage + (kIgBlockM + wave_n) * Cfg::kLds;
#pragma unroll
    for (int kk = 0; kk < Cfg::kBK; kk += mc::kStep) {
        mc::FragA<T> fa[Cfg::kFragsM];
        mc::FragB<T> fb[Cfg::kFragsN];
#pragma unroll
        for (int i = 0; i < Cfg::kFragsM; ++i) mc::load_a(fa[i], as + i * mc::kStep * Cfg::kLds + kk, Cfg::kLds);
#pragma unroll
        for (int j = 0; j < Cfg::kFragsN; ++j) mc::load_b(fb[j], bs + j * mc::kStep * Cfg::kLds + kk, Cfg::kLds);
#pragma unroll
        for (int i = 0; i < Cfg::kFragsM; ++i)
#pragma unroll
            for (int j = 0; j < Cfg::kFragsN; ++j) mc::mma(acc[i][j], fa[i], fb[j]);
    }
}

// Tables of k-tiles first .. first+count-1 into their slots (tile % kIgStages).
template <typename T, int BN>
__device__ inline void fill_tables(TapEntry *tables, int first, int count, const hipconv_conv3d_params &p,
                                   const IgGeometry &geo) {
    constexpr int kBK = IgConfig<T, BN>::kBK;
    for (int i = threadIdx.x; i < count * kBK; i += kIgThreads) {
        const int tile = first + i / kBK;
        fill_entry(tables[(tile % kIgStages) * kBK + i % kBK], tile * kBK + i % kBK, p, geo);
    }
}

template <typename T, int BN, bool kVector>
__global__ void __launch_bounds__(kIgThreads, sizeof(T) == 2 && kVector ? 2 : 1)
    conv3d_implicit_gemm_kernel(hipconv_conv3d_params p, IgGeometry geo, OutputView out) {
    typedef IgConfig<T, BN> Cfg;
    constexpr int kBK = Cfg::kBK;
    extern __shared__ uint4 ig_shared[];
    T *const stages = reinterpret_cast<T *>(ig_shared);
    float *const c_tile = reinterpret_cast<float *>(ig_shared);
    TapEntry *const tables = reinterpret_cast<TapEntry *>(reinterpret_cast<char *>(ig_shared) + Cfg::kOperandBytes);
    int64_t *const rows_smem = reinterpret_cast<int64_t *>(tables + kIgStages * kBK);

    const int wave = (int)threadIdx.x / mc::kWaveSize;
    const int wave_m = (wave / kIgWavesN) * Cfg::kWaveM;
    const int wave_n = (wave % kIgWavesN) * Cfg::kWaveN;
    const int groups = p.groups;
    const int kt_count = geo.k_tiles;
    auto stage_of = [&](int kt) { return stages + (kt % kIgStages) * Cfg::kStageElems; };
    auto table_of = [&](int kt) { return tables + (kt % kIgStages) * kBK; };

    for (int64_t tile = blockIdx.x; tile < geo.tiles; tile += gridDim.x) {
        const int nt = (int)(tile % geo.n_tiles);
        const int64_t rest = tile / geo.n_tiles;
        const int g = (int)(rest % groups);
        const int64_t m0 = rest / groups * kIgBlockM;
        const int n0 = nt * BN;

        mc::Acc acc[Cfg::kFragsM][Cfg::kFragsN];
#pragma unroll
        for (int i = 0; i < Cfg::kFragsM; ++i)
#pragma unroll
            for (int j = 0; j < Cfg::kFragsN; ++j) mc::zero(acc[i][j]);

#if HIPCONV_HAS_ASYNC_COPY
        constexpr bool kAsync = kVector;
#else
        constexpr bool kAsync = false;
#endif
        if constexpr (kAsync) {
#if HIPCONV_HAS_ASYNC_COPY
            // kIgStages k-tiles in flight: wait for tile kt, refill the stage tile kt-1 used.
            VectorLoads<T, BN> loads;
            loads.setup(p, geo, m0, n0, g);
            const void *any = p.x;
            fill_tables<T, BN>(tables, 0, kIgStages, p, geo);
            __syncthreads();
#pragma unroll
            for (int s = 0; s < kIgStages - 1; ++s) {
                if (s < kt_count) {
                    T *stage = stage_of(s);
                    loads.each(p, geo, table_of(s), g,
                               [&](int, int dst, const T *src) { async_copy16(stage + dst, src, any); });
                }
                copy_commit();
            }
            for (int kt = 0; kt < kt_count; ++kt) {
                copy_wait<kIgStages - 2>();
                __syncthreads();  // tile kt landed for all; tile kt-1's stage and table are free
                const int next = kt + kIgStages - 1;
                if (next < kt_count) {
                    T *stage = stage_of(next);
                    loads.each(p, geo, table_of(next), g,
                               [&](int, int dst, const T *src) { async_copy16(stage + dst, src, any); });
                }
                copy_commit();
                // Tile kt+kIgStages's table, into tile kt's slot (tile kt was loaded long ago).
                if ((int)threadIdx.x < kBK)
                    fill_entry(table_of(kt)[threadIdx.x], (kt + kIgStages) * kBK + (int)threadIdx.x, p, geo);
                multiply_stage<T, BN>(acc, stage_of(kt), wave_m, wave_n);
            }
            copy_wait<0>();
            __syncthreads();
#endif
        } else {
            // Two buffers through registers: tile kt+1 is loaded while tile kt is multiplied.
            typedef typename std::conditional<kVector, VectorStage<T, BN>, ElementStage<T, BN>>::type Stage;
            Stage staged;
            VectorLoads<T, BN> loads;  // the vector path's sources
            if constexpr (kVector) loads.setup(p, geo, m0, n0, g);
            else staged.setup(p, geo, m0, n0, g);
            auto issue = [&](int kt) {
                if constexpr (kVector) staged.issue(loads, p, geo, table_of(kt), g);
                else staged.issue(p, geo, table_of(kt), g);
            };
            auto commit = [&](int kt) {
                if constexpr (kVector) staged.commit(loads, p, geo, table_of(kt), stage_of(kt), g);
                else staged.commit(stage_of(kt));
            };
            fill_tables<T, BN>(tables, 0, 2, p, geo);
            __syncthreads();
            issue(0);
            commit(0);
            __syncthreads();
            for (int kt = 0; kt < kt_count; ++kt) {
                if (kt + 1 < kt_count) issue(kt + 1);
                multiply_stage<T, BN>(acc, stage_of(kt), wave_m, wave_n);
                if (kt + 1 < kt_count) commit(kt + 1);
                // Tile kt+2's table, into the slot of tile kt+2-kIgStages (loaded long ago; the
                // loads in flight use tile kt+1's).
                if ((int)threadIdx.x < kBK)
                    fill_entry(table_of(kt + 2)[threadIdx.x], (kt + 2) * kBK + (int)threadIdx.x, p, geo);
                __syncthreads();
            }
        }

        // Accumulators -> c[co][m] -> y.
#pragma unroll
        for (int i = 0; i < Cfg::kFragsM; ++i)
#pragma unroll
            for (int j = 0; j < Cfg::kFragsN; ++j)
                mc::store_transposed(c_tile + (wave_n + j * mc::kStep) * kIgLdC + wave_m + i * mc::kStep, kIgLdC,
                                     acc[i][j]);
        __syncthreads();
        write_output_tile<T, kIgThreads>(out, c_tile, kIgLdC, kIgBlockM, BN, m0, (int)min((int64_t)kIgBlockM, geo.m - m0),
                                         g * geo.cout_g + n0, min(BN, geo.cout_g - n0), rows_smem);
    }
}

#if defined(HIPCONV_PLATFORM_NVIDIA)
// ---------------------------------------------------------------------------------------
// NVIDIA tap-run path (cp.async; x channel stride 1, cin_g a multiple of half a k-tile):
// k-tiles of 128 bytes (64 16-bit elements, 32 f32), rows staged at 144 bytes (9 16-byte
// units: ldmatrix conflict-free), kFastStages stages, one barrier per k-tile, no tap table.
// Each half k-tile (64 bytes) lies in one tap and is a contiguous channel run of x and of w.
// Block tile 256 (m) x BN, 8 warps as 4 (m) x 2 (n) of 64 x BN/2 (one block per SM).
// Four threads per row: q = t % 4 takes half q / 2 and its chunks q % 2 and q % 2 + 2 (so
// that lanes q, q^1 fetch whole 32-byte sectors), A rows t/4 + 64 i (i < 4), B rows t/4 + 64 j.
// A thread walks its half's k = kt*BK + (q/2)*BK/2 incrementally: ci += BK per k-tile and,
// when it passes cin_g, the tap (kd, kh, kw) advances by host-computed offset steps (no
// division, no table). Per row and k-tile: one bounds check of (id, ih, iw), one pointer.
// The copies of k-tile kt + kFastStages - 1 are issued in pieces between k-tile kt's MMA
// steps (A row s at step s, the B rows at the last): an LDGSTS reads its address registers
// late, so issuing them back to back made each next address wait on the scoreboard (ncu:
// 17% of the stall samples at the VAE 96-channel row); spread out, that wait is hidden.
constexpr int kFastTileBytes = 128;
constexpr int kFastRowBytes = kFastTileBytes + 16;  // 144
constexpr int kFastStages = 4;
constexpr int kFastRowsPerPass = kIgThreads / 4;  // 64
constexpr int kFastBM = 256;                       // m per block: 8 warps of 64 x BN/2
constexpr int kFastLdC = kFastBM + 4;
static_assert(kFastLdC % 32 == 4, "store_transposed is conflict-free for ld = 4 mod 32");
static_assert(kFastRowBytes % 32 == 16, "staged rows an odd number of 16-byte units");

template <typename T, int BN> struct FastConfig {
    static constexpr int kBK = kFastTileBytes / (int)sizeof(T);
    static constexpr int kHalf = kBK / 2;
    static constexpr int kVec = 16 / (int)sizeof(T);
    static constexpr int kLds = kFastRowBytes / (int)sizeof(T);
    static constexpr int kWaveM = kFastBM / kIgWavesM;
    static constexpr int kWaveN = BN / kIgWavesN;
    static constexpr int kFragsM = kWaveM / mc::kStep;
    static constexpr int kFragsN = kWaveN / mc::kStep;
    static constexpr int kStageElems = (kFastBM + BN) * kLds;
    static constexpr int kStagesBytes = kFastStages * kStageElems * (int)sizeof(T);
    static constexpr int kCBytes = BN * kFastLdC * 4;
    static constexpr int kOperandBytes = kStagesBytes > kCBytes ? kStagesBytes : kCBytes;
    static constexpr int kSharedBytes = kOperandBytes + kFastBM * 8;
    static constexpr int kARows = kFastBM / kFastRowsPerPass;  // 4
    static constexpr int kBRows = (BN + kFastRowsPerPass - 1) / kFastRowsPerPass;       // 1 .. 2
    static_assert(kWaveN % mc::kStep == 0 && kWaveM % mc::kStep == 0, "wave tile of whole steps");
};

template <typename T, int BN>
__global__ void __launch_bounds__(kIgThreads, 1)
    conv3d_implicit_gemm_fast_kernel(hipconv_conv3d_params p, IgGeometry geo, FastSteps steps, OutputView out) {
    typedef FastConfig<T, BN> Cfg;
    constexpr int kBK = Cfg::kBK;
    constexpr int kLds = Cfg::kLds;
    constexpr int kVec = Cfg::kVec;
    extern __shared__ uint4 ig_shared[];
    T *const stages = reinterpret_cast<T *>(ig_shared);
    float *const c_tile = reinterpret_cast<float *>(ig_shared);
    int64_t *const rows_smem = reinterpret_cast<int64_t *>(reinterpret_cast<char *>(ig_shared) + Cfg::kOperandBytes);

    const int wave = (int)threadIdx.x / mc::kWaveSize;
    const int wave_m = (wave / kIgWavesN) * Cfg::kWaveM;
    const int wave_n = (wave % kIgWavesN) * Cfg::kWaveN;
    const int q = (int)threadIdx.x % 4;
    const int row0 = (int)threadIdx.x / 4;
    // Element offset of this thread's first chunk within a staged row (the second is 2 chunks on).
    const int col = (q / 2) * Cfg::kHalf + (q % 2) * kVec;
    const int kt_count = geo.k_tiles;
    const int cin_g = geo.cin_g;
    const T *const x = static_cast<const T *>(p.x);
    const T *const w = static_cast<const T *>(p.w);

    for (int64_t tile = blockIdx.x; tile < geo.tiles; tile += gridDim.x) {
        const int nt = (int)(tile % geo.n_tiles);
        const int64_t rest = tile / geo.n_tiles;
        const int g = (int)(rest % p.groups);
        const int64_t m0 = rest / p.groups * kFastBM;
        const int n0 = nt * BN;

        // This thread's A rows (the walk's xoff holds the half's channels) and B rows.
        ARow arow[Cfg::kARows];
#pragma unroll
        for (int i = 0; i < Cfg::kARows; ++i) arow[i] = a_row(p, geo, m0 + row0 + i * kFastRowsPerPass, g, (q % 2) * kVec);
        int64_t wrow[Cfg::kBRows];  // < 0: past cout_g (or past the tile's BN rows)
#pragma unroll
        for (int j = 0; j < Cfg::kBRows; ++j) {
            const int r = row0 + j * kFastRowsPerPass;
            const int co = n0 + r;
            wrow[j] = r < BN && co < geo.cout_g ? ((int64_t)g * geo.cout_g + co) * p.w_stride[0] + (q % 2) * kVec : -1;
        }
        // The walk: this thread's half k-tile is channels ci .. ci + kHalf - 1 of its tap.
        TapWalk walk;
        walk.start((q / 2) * Cfg::kHalf, p, cin_g, steps);
        // The k-tile at the walk's position into `stage`, in pieces: A row i (i < kARows), then
        // the B rows; then the walk moves on by one k-tile (next_tile).
        auto load_a_row = [&](T *stage, int i) {
            const T *src = a_row_source<T>(p, arow[i], walk, g, cin_g, col % Cfg::kHalf);
            T *dst = stage + (row0 + i * kFastRowsPerPass) * kLds + col;
            async_copy16(dst, src, x);
            async_copy16(dst + 2 * kVec, src != nullptr ? src + 2 * kVec : nullptr, x);
        };
        auto load_b_rows = [&](T *stage) {
#pragma unroll
            for (int j = 0; j < Cfg::kBRows; ++j) {
                if (BN % kFastRowsPerPass == 0 || row0 + j * kFastRowsPerPass < BN) {
                    const T *src = walk.inside(p) && wrow[j] >= 0 ? w + (wrow[j] + walk.woff) : nullptr;
                    T *dst = stage + (kFastBM + row0 + j * kFastRowsPerPass) * kLds + col;
                    async_copy16(dst, src, x);
                    async_copy16(dst + 2 * kVec, src != nullptr ? src + 2 * kVec : nullptr, x);
                }
            }
        };
        auto next_tile = [&]() { walk.advance(kBK, p, cin_g, steps); };
        auto load_tile = [&](T *stage) {
#pragma unroll
            for (int i = 0; i < Cfg::kARows; ++i) load_a_row(stage, i);
            load_b_rows(stage);
            next_tile();
        };

        mc::Acc acc[Cfg::kFragsM][Cfg::kFragsN];
#pragma unroll
        for (int i = 0; i < Cfg::kFragsM; ++i)
#pragma unroll
            for (int j = 0; j < Cfg::kFragsN; ++j) mc::zero(acc[i][j]);

#pragma unroll
        for (int s = 0; s < kFastStages - 1; ++s) {
            if (s < kt_count) load_tile(stages + s * Cfg::kStageElems);
            copy_commit();
        }
        // Per k-tile: its MMA steps, with the copies of the k-tile kFastStages - 1 ahead issued
        // between them (a piece per step), so that the copies' address registers are free again
        // by the time the next piece needs them (an LDGSTS reads them late: rewriting them at
        // once waits on the scoreboard) and the copy issue overlaps the tensor cores.
        constexpr int kSteps = kBK / mc::kStep;
        constexpr int kRowsPerStep = (Cfg::kARows + kSteps - 1) / kSteps;
        int read_stage = 0, write_stage = kFastStages - 1;
        for (int kt = 0; kt < kt_count; ++kt) {
            copy_wait<kFastStages - 2>();
            __syncthreads();  // tile kt landed for all; the stage tile kt-1 used is free
            const bool issue = kt + kFastStages - 1 < kt_count;
            T *const write = stages + write_stage * Cfg::kStageElems;
            const T *stage = stages + read_stage * Cfg::kStageElems;
            const T *as = stage + wave_m * kLds;
            const T *bs = stage + (kFastBM + wave_n) * kLds;
#pragma unroll
            for (int step = 0; step < kSteps; ++step) {
                const int kk = step * mc::kStep;
                mc::FragA<T> fa[Cfg::kFragsM];
                mc::FragB<T> fb[Cfg::kFragsN];
#pragma unroll
                for (int i = 0; i < Cfg::kFragsM; ++i) mc::load_a(fa[i], as + i * mc::kStep * kLds + kk, kLds);
#pragma unroll
                for (int j = 0; j < Cfg::kFragsN; ++j) mc::load_b(fb[j], bs + j * mc::kStep * kLds + kk, kLds);
                if (issue) {
#pragma unroll
                    for (int r = 0; r < kRowsPerStep; ++r)
                        if (step * kRowsPerStep + r < Cfg::kARows) load_a_row(write, step * kRowsPerStep + r);
                    if (step == kSteps - 1) load_b_rows(write);
                }
#pragma unroll
                for (int i = 0; i < Cfg::kFragsM; ++i)
#pragma unroll
                    for (int j = 0; j < Cfg::kFragsN; ++j) mc::mma(acc[i][j], fa[i], fb[j]);
            }
            if (issue) next_tile();
            copy_commit();
            read_stage = read_stage == kFastStages - 1 ? 0 : read_stage + 1;
            write_stage = write_stage == kFastStages - 1 ? 0 : write_stage + 1;
        }
        copy_wait<0>();
        __syncthreads();

#pragma unroll
        for (int i = 0; i < Cfg::kFragsM; ++i)
#pragma unroll
            for (int j = 0; j < Cfg::kFragsN; ++j)
                mc::store_transposed(c_tile + (wave_n + j * mc::kStep) * kFastLdC + wave_m + i * mc::kStep, kFastLdC,
                                     acc[i][j]);
        __syncthreads();
        write_output_tile<T, kIgThreads>(out, c_tile, kFastLdC, kFastBM, BN, m0, (int)min((int64_t)kFastBM, geo.m - m0),
                                         g * geo.cout_g + n0, min(BN, geo.cout_g - n0), rows_smem);
    }
}

template <typename T, int BN>
hipconv_status_t launch_implicit_fast(const hipconv_conv3d_params &p, IgGeometry geo, const OutputView &out,
                                      hipStream_t stream) {
    auto kernel = conv3d_implicit_gemm_fast_kernel<T, BN>;
    constexpr int kBytes = FastConfig<T, BN>::kSharedBytes;
    geo.k_tiles = (int32_t)ceil_div(geo.k_g, FastConfig<T, BN>::kBK);
    geo.tiles = ceil_div(geo.m, kFastBM) * p.groups * geo.n_tiles;
    const FastSteps steps = fast_steps(p, geo.cin_g);
    static std::atomic<int64_t> shared_cache[kMaxCachedDevices];
    HIPCONV_RETURN_IF_ERROR(allow_dynamic_shared(kernel, kBytes, shared_cache));
    hipLaunchKernelGGL(kernel, dim3(grid_blocks(geo.tiles)), dim3(kIgThreads), kBytes, stream, p, geo, steps, out);
    return last_launch_status();
}
#endif

template <typename T, int BN, bool kVector>
hipconv_status_t launch_implicit(const hipconv_conv3d_params &p, const IgGeometry &geo, const OutputView &out,
                                 hipStream_t stream) {
    auto kernel = conv3d_implicit_gemm_kernel<T, BN, kVector>;
    constexpr int kBytes = IgConfig<T, BN>::kSharedBytes;
    static std::atomic<int64_t> shared_cache[kMaxCachedDevices];  // one per kernel
    HIPCONV_RETURN_IF_ERROR(allow_dynamic_shared(kernel, kBytes, shared_cache));
    hipLaunchKernelGGL(kernel, dim3(grid_blocks(geo.tiles)), dim3(kIgThreads), kBytes, stream, p, geo, out);
    return last_launch_status();
}

template <typename T, int BN>
hipconv_status_t launch_implicit_bn(const hipconv_conv3d_params &p, IgGeometry geo, hipStream_t stream) {
    typedef IgConfig<T, BN> Cfg;
    const bool vector = vector_loads_ok<T>(p);
    geo.ci_inner = vector || p.w_stride[1] == 1 || p.cin / p.groups == 1;
    geo.k_tiles = (int32_t)ceil_div(geo.k_g, Cfg::kBK);
    geo.n_tiles = ceil_div(geo.cout_g, BN);
    geo.tiles = ceil_div(geo.m, kIgBlockM) * p.groups * geo.n_tiles;
    const OutputView out = output_view<T>(p);
#if defined(HIPCONV_PLATFORM_NVIDIA)
    // Half k-tiles of whole taps: the tap-run kernel.
    if (vector && geo.cin_g % FastConfig<T, BN>::kHalf == 0) return launch_implicit_fast<T, BN>(p, geo, out, stream);
#endif
    return vector ? launch_implicit<T, BN, true>(p, geo, out, stream)
                  : launch_implicit<T, BN, false>(p, geo, out, stream);
}

template <typename T>
hipconv_status_t launch_conv3d_implicit_gemm(const hipconv_conv3d_params &p, hipStream_t stream) {
    if (!valid_params(p)) return (hipconv_status_t)hipErrorInvalidValue;
    const int64_t m = output_positions(p);
    const int64_t cin_g = p.cin / p.groups;
    const int64_t k_g = cin_g * p.kernel[0] * p.kernel[1] * p.kernel[2];
    if (m > INT32_MAX || k_g > INT32_MAX - 1024) return (hipconv_status_t)hipErrorInvalidValue;
    IgGeometry geo{};
    geo.m = (int32_t)m;
    geo.cin_g = (int32_t)cin_g;
    geo.cout_g = p.cout / p.groups;
    geo.k_g = (int32_t)k_g;
    // The co tile with the least padding of cout_g (ties: the wider). f32 and AMD (64 KB of
    // LDS holds c[96][132] but not c[128][132]) stop short of 128.
#if HIPCONV_WAVE_SIZE == 32
    constexpr int kWidest16 = 128;
#else
    constexpr int kWidest16 = 96;
#endif
    const int widest = sizeof(T) == 2 ? kWidest16 : 64;
    // 32 channels in and at most 32 out: the halo-tile kernel, where its tiles fit.
    if constexpr (sizeof(T) == 2)
        if (const std::optional<hipconv_status_t> status = try_launch_implicit_halo<T>(p, stream)) return *status;
#if defined(HIPCONV_PLATFORM_NVIDIA)
    // Hopper, 16-bit: the video VAE's 3x3x3 at 96 channels channels-last, the row-reuse
    // kernel; otherwise, half k-tiles of whole taps, the wgmma kernel (its own co tiles).
    if constexpr (sizeof(T) == 2) {
        if (const std::optional<hipconv_status_t> status = try_launch_implicit_rows<T>(p, stream)) return *status;
        if (vector_loads_ok<T>(p) && cin_g % 32 == 0 && device_runs_sm90a()) return launch_implicit_wgmma<T>(p, geo, stream);
    }
#endif
    const int bn = least_padding_tile(geo.cout_g, widest, {128, 96, 64, 32});
    if constexpr (sizeof(T) == 2) {
#if HIPCONV_WAVE_SIZE == 32
        if (bn == 128) return launch_implicit_bn<T, 128>(p, geo, stream);
#endif
        if (bn == 96) return launch_implicit_bn<T, 96>(p, geo, stream);
    }
    if (bn == 64) return launch_implicit_bn<T, 64>(p, geo, stream);
    return launch_implicit_bn<T, 32>(p, geo, stream);
}

}  // namespace conv3d

template <typename T>
hipconv_status_t launch_conv3d_implicit_gemm(const hipconv_conv3d_params &p, hipStream_t stream) {
    return conv3d::launch_conv3d_implicit_gemm<T>(p, stream);
}

}  // namespace hipconv

HIPCONV_EXPORT_PER_DTYPE(conv3d_implicit_gemm, hipconv_conv3d_params)
