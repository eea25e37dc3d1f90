/*
 * The backward's fused channel-last path (hipconv/conv1d.h, "backward"), widths 1..4:
 * x, dy, dx [batch, seqlen, dim] by strides with channels the contiguous axis, no packed
 * batch. It runs what backward_channel_last_tiled.hip does not: f16/bf16 with channels not in
 * 16-byte vectors, and f32 there or where that file's tiles cannot come in by TMA (AMD,
 * devices before sm_90).
 *
 * A thread owns kVec channels (one 4-byte access of a 16-bit type, or 8 bytes of f32, where dim
 * and alignment allow; else one channel) of one batch row and
 * a run of `run` times tau0 .. tau0+run-1, and walks t = tau0 .. tau0+run+w-2 in steps of
 * kStep rows (7 for f32 on NVIDIA, else 4), the next step's rows in flight while it
 * computes the current one:
 *
 *   x rows   t-(w-1) .. t-1 (registers, slide) | t .. t+kStep-1 (current)
 *   dz(t) = dy(t)·act'(z(t))      z(t) from the x window, dz kept for the last w times
 *   dx(t-(w-1)) = sum_k w[k]·dz(t-k)          written once t-(w-1) >= tau0
 *   dweight, dbias sums += dz(t)·x(t+k-(w-1)), dz(t)   for the run's own times
 *
 * Block: kGroups channel groups (lanes; one wave reads kGroups packs, contiguous, per
 * row) × kRuns runs (4 for f32 on NVIDIA, else 8); the block sums its runs in order into
 * partials[b·tiles_per_row + tile, c] (a tile: kRuns·run times). The run length is picked
 * from the problem size so that large problems get long runs (fewer halo rows: w-1 of x
 * before, w-1 of x and dy after) and still fill the device.
 * Launch: kGroups × kRuns threads, grid-stride over batch·tiles_per_row·group blocks.
 */
#include "backward.h"
#include "packed.h"
#include "vector_rows.h"

namespace hipconv {

namespace {

constexpr int kGroups = 32;
constexpr int64_t kMaxRun = 64;
constexpr int64_t kMinRun = 8;
constexpr int64_t kWantThreads = int64_t(1) << 18;  // runs shrink until the grid has this many threads

// Words of one access of kBytes (4 or 8).
template <int kBytes> struct Access;
template <> struct Access<4> {
    using Raw = uint32_t;
    __device__ static uint32_t word(Raw r, int) { return r; }
    __device__ static Raw make(const uint32_t *w) { return w[0]; }
};
template <> struct Access<8> {
    using Raw = uint2;
    __device__ static uint32_t word(const Raw &r, int q) { return q == 0 ? r.x : r.y; }
    __device__ static Raw make(const uint32_t *w) { return make_uint2(w[0], w[1]); }
};

// kVec consecutive channels of one row: one access of kVec·sizeof(T) bytes ...
template <typename T, int kVec> struct Pack {
    using A = Access<kVec * (int)sizeof(T)>;
    static constexpr int kPerWord = 4 / sizeof(T);
    typename A::Raw raw;
    __device__ void load(const T *src, bool inside) {
        raw = inside ? *reinterpret_cast<const typename A::Raw *>(src) : typename A::Raw{};
    }
    __device__ float get(int e) const { return bits_to_float(T(), A::word(raw, e / kPerWord), e % kPerWord); }
    __device__ static void store(T *dst, const float *values) {
        uint32_t w[kVec / kPerWord];
#pragma unroll
        for (int q = 0; q < kVec / kPerWord; ++q) {
            w[q] = 0;
#pragma unroll
            for (int h = 0; h < kPerWord; ++h) w[q] |= float_to_bits(T(), values[q * kPerWord + h]) << (16 * h);
        }
        *reinterpret_cast<typename A::Raw *>(dst) = A::make(w);
    }
};

// ... or one element, any strides.
template <typename T> struct Pack<T, 1> {
    float v;
    __device__ void load(const T *src, bool inside) { v = inside ? to_float(*src) : 0.f; }
    __device__ float get(int) const { return v; }
    __device__ static void store(T *dst, const float *values) { *dst = from_float<T>(values[0]); }
};

// Rows per step (the loads of one step, and the next, in flight per thread), runs per block
// and the blocks per SM the kernel is compiled for. On NVIDIA, f32 takes 7 rows a step in
// blocks of 4 runs at 4 blocks an SM (at most 128 registers: 16 warps an SM, 112 bytes a
// thread in flight). Measured on an H200 at (8,4096,2048,4) / (4,5120,4096,4) f32 with
// bias + SiLU, medians in µs (docs/PERFORMANCE.md, "Backward", sixty-eighth session): 4 rows
// in blocks of 8 runs at 2 blocks an SM (125 registers) 218.6-219.7 / 271.9-272.8; at 4
// blocks of 4 runs: 5 rows 214.5-214.7 / 265.0-265.3, 6 rows 213.5-214.6 / 262.8-263.9,
// 7 rows 212.2-212.4 / 261.6-262.1, 8 rows spill; 8 rows at 3 blocks (166 registers)
// 216.6-217.1 / 265.4-267.4. 16-bit everywhere, and every dtype on AMD (not measured there),
// keep 4 rows in blocks of 8 runs with the bound's second argument 2: HIP reads it as waves
// per execution unit, and 2 leaves the VGPR budget at 256 (4 would cap it at 128 and spill
// to scratch). (8 rows for 16-bit types measured no faster on an H100.)
#if defined(HIPCONV_PLATFORM_NVIDIA)
template <typename T> constexpr bool kLongSteps = sizeof(T) == 4;
#else
template <typename T> constexpr bool kLongSteps = false;
#endif
template <typename T> constexpr int kStep = kLongSteps<T> ? 7 : 4;
template <typename T> constexpr int kRuns = kLongSteps<T> ? 4 : 8;
template <typename T> constexpr int kBlocksPerSm = kLongSteps<T> ? 4 : 2;

// Channels per thread on the vector path: 8-byte accesses for f32 and bf16, 4-byte for
// f16. Few channels per thread keep the per-thread state (taps, sums, windows) small, so
// that enough waves are resident to hide the arithmetic's latency. Measured on an H100 at
// (8,4096,2048,4) with SiLU: f16 64% of copy with 2 channels, 59% with 4; bf16 63% and 70%.
template <typename T> constexpr int kPackChannels = std::is_same<T, __half>::value ? 2 : 8 / (int)sizeof(T);

int64_t run_length(const hipconv_conv1d_backward_params &p, int vec) {
    const int64_t columns = (int64_t)p.conv.batch * (p.conv.dim / vec);
    int64_t run = kMaxRun;
    while (run > kMinRun && columns * ceil_div(p.conv.seqlen, run) < kWantThreads) run /= 2;
    return run;
}

// Channels contiguous, dim a multiple of kPackChannels and every row start aligned to
// one access.
template <typename T> bool vectorizable(const hipconv_conv1d_backward_params &p) {
    constexpr int kVec = kPackChannels<T>;
    const hipconv_conv1d_params &c = p.conv;
    auto aligned = [](const void *ptr) { return (reinterpret_cast<uintptr_t>(ptr) % (kVec * sizeof(T))) == 0; };
    return c.x_dim_stride == 1 && c.dim % kVec == 0 && c.x_seq_stride % kVec == 0 && c.x_batch_stride % kVec == 0 &&
           aligned(c.x) && aligned(p.dy) && aligned(p.dx);
}

// dx at time tau = sum_k w[k]·dz(tau+H-k) (dz_window[H-k]), plus dfinal_states where tau
// is among the last width-1 times.
template <typename T, int kWidth, int kVec>
__device__ inline void store_dx(const hipconv_conv1d_backward_params &p, T *dx, int64_t tau, int64_t stride, int64_t b,
                                int64_t c0, const float (&taps)[kVec][kWidth], const float (&dz_window)[kWidth][kVec]) {
    constexpr int H = kWidth - 1;
    float out[kVec];
#pragma unroll
    for (int e = 0; e < kVec; ++e) {
        float acc = 0.f;
#pragma unroll
        for (int k = 0; k < kWidth; ++k) acc += taps[e][k] * dz_window[H - k][e];
        out[e] = acc;
    }
    const int64_t k = tau - (p.conv.seqlen - H);  // index in final_states
    if (H > 0 && p.dfinal_states != nullptr && k >= 0) {
        const T *dfinal = static_cast<const T *>(p.dfinal_states);
#pragma unroll
        for (int e = 0; e < kVec; ++e) out[e] += to_float(dfinal[(b * p.conv.dim + c0 + e) * H + k]);
    }
    Pack<T, kVec>::store(dx + tau * stride, out);
}

template <typename T, int kWidth, int kVec, bool kSilu>
__global__ void __launch_bounds__(kGroups *kRuns<T>, kBlocksPerSm<T>) conv1d_backward_channel_last_kernel(
    hipconv_conv1d_backward_params p, int64_t run, int64_t tiles_per_row, int64_t group_blocks, float *partials) {
    constexpr int H = kWidth - 1;
    constexpr int kSums = kVec * (kWidth + 1);  // per thread: dweight (kWidth) and dbias per channel
    const hipconv_conv1d_params &cp = p.conv;
    const int64_t groups = cp.dim / kVec;
    __shared__ float run_sums[kRuns<T>][kGroups][kSums];
    allow_dependent_launch();  // the reduction of the partials may be placed (launch_dependent)

    for (int64_t block = blockIdx.x; block < cp.batch * tiles_per_row * group_blocks; block += gridDim.x) {
        const QuotientRemainder by_group = divide(block, group_blocks);
        const int64_t tile = by_group.quotient;  // b * tiles_per_row + tile of the row
        const int64_t group = by_group.remainder * kGroups + threadIdx.x;
        const QuotientRemainder by_row = divide(tile, tiles_per_row);
        const int64_t b = by_row.quotient;
        const int64_t tau0 = by_row.remainder * kRuns<T> * run + threadIdx.y * run;
        const int64_t tau_end = min(tau0 + run, (int64_t)cp.seqlen);  // own times: tau0 .. tau_end-1
        const bool active = group < groups && tau0 < cp.seqlen;
        const int64_t c0 = (active ? group : 0) * kVec;
        const int64_t offset = b * cp.x_batch_stride + c0 * cp.x_dim_stride;
        const T *x = static_cast<const T *>(cp.x) + offset;
        const T *dy = static_cast<const T *>(p.dy) + offset;
        T *dx = static_cast<T *>(p.dx) + offset;
        const int64_t stride = cp.x_seq_stride;

        float taps[kVec][kWidth], bias[kVec];
#pragma unroll
        for (int e = 0; e < kVec; ++e) {
            const int64_t c = c0 + e;
#pragma unroll
            for (int k = 0; k < kWidth; ++k) taps[e][k] = to_float(static_cast<const T *>(cp.w)[c * kWidth + k]);
            bias[e] = cp.bias != nullptr ? to_float(static_cast<const T *>(cp.bias)[c]) : 0.f;
        }

        // The walk keeps x as fp32 in `window`: rows t-H .. t-1 (history), then the step's.
        // It starts from rows tau0-H .. tau0-1 (before 0: the initial states, or zeros).
        float window[H + kStep<T>][kVec];
        const T *initial = static_cast<const T *>(cp.initial_states);
#pragma unroll
        for (int r = 0; r < H; ++r) {
            const int64_t tau = tau0 - H + r;
            Pack<T, kVec> row;
            row.load(x + (tau >= 0 ? tau : 0) * stride, active && tau >= 0);
#pragma unroll
            for (int e = 0; e < kVec; ++e) {
                window[r][e] = row.get(e);
                if (tau < 0 && initial != nullptr && active)
                    window[r][e] = to_float(initial[(b * cp.dim + c0 + e) * H + H + tau]);
            }
        }

        const int64_t t_end = min(tau_end + H, (int64_t)cp.seqlen);  // dz needed up to t_end-1
        auto load_step = [&](Pack<T, kVec> *xr, Pack<T, kVec> *gr, int64_t t) {
#pragma unroll
            for (int j = 0; j < kStep<T>; ++j) {
                const bool inside = active && t + j < t_end;
                xr[j].load(x + (inside ? t + j : 0) * stride, inside);
                gr[j].load(dy + (inside ? t + j : 0) * stride, inside);
            }
        };
        Pack<T, kVec> cur_x[kStep<T>], cur_dy[kStep<T>];
        load_step(cur_x, cur_dy, tau0);

        float dz_window[kWidth][kVec];  // dz at t-H .. t (index H: the newest)
#pragma unroll
        for (int r = 0; r < kWidth; ++r)
#pragma unroll
            for (int e = 0; e < kVec; ++e) dz_window[r][e] = 0.f;
        float sums[kSums];
#pragma unroll
        for (int i = 0; i < kSums; ++i) sums[i] = 0.f;

        for (int64_t t = tau0; t < (active ? t_end : tau0); t += kStep<T>) {
            Pack<T, kVec> next_x[kStep<T>], next_dy[kStep<T>];
            load_step(next_x, next_dy, t + kStep<T>);
#pragma unroll
            for (int j = 0; j < kStep<T>; ++j)
#pragma unroll
                for (int e = 0; e < kVec; ++e) window[H + j][e] = cur_x[j].get(e);
#pragma unroll
            for (int j = 0; j < kStep<T>; ++j) {
                const int64_t tt = t + j;
                if (tt >= t_end) break;
                float dz[kVec];
#pragma unroll
                for (int e = 0; e < kVec; ++e) {
                    float z = bias[e];
#pragma unroll
                    for (int k = 0; k < kWidth; ++k) z += taps[e][k] * window[j + k][e];
                    dz[e] = cur_dy[j].get(e) * activation_derivative<kSilu>(z);
                }
                if (tt < tau_end) {
#pragma unroll
                    for (int e = 0; e < kVec; ++e) {
#pragma unroll
                        for (int k = 0; k < kWidth; ++k) sums[e * (kWidth + 1) + k] += dz[e] * window[j + k][e];
                        sums[e * (kWidth + 1) + kWidth] += dz[e];
                    }
                }
#pragma unroll
                for (int r = 0; r < H; ++r)
#pragma unroll
                    for (int e = 0; e < kVec; ++e) dz_window[r][e] = dz_window[r + 1][e];
#pragma unroll
                for (int e = 0; e < kVec; ++e) dz_window[H][e] = dz[e];
                const int64_t tau = tt - H;
                if (tau >= tau0) store_dx<T, kWidth, kVec>(p, dx, tau, stride, b, c0, taps, dz_window);
            }
            // Slide: the last H rows of the window become its history.
#pragma unroll
            for (int r = 0; r < H; ++r)
#pragma unroll
                for (int e = 0; e < kVec; ++e) window[r][e] = window[kStep<T> + r][e];
#pragma unroll
            for (int j = 0; j < kStep<T>; ++j) {
                cur_x[j] = next_x[j];
                cur_dy[j] = next_dy[j];
            }
        }
        // The run's last dx, whose sums reach past t_end, where dz is 0 (past seqlen) or
        // not needed: shift the window on by one zero row per time.
        if (active) {
            for (int64_t tau = t_end - H; tau < tau_end; ++tau) {
#pragma unroll
                for (int r = 0; r < H; ++r)
#pragma unroll
                    for (int e = 0; e < kVec; ++e) dz_window[r][e] = dz_window[r + 1][e];
#pragma unroll
                for (int e = 0; e < kVec; ++e) dz_window[H][e] = 0.f;
                if (tau >= tau0) store_dx<T, kWidth, kVec>(p, dx, tau, stride, b, c0, taps, dz_window);
            }
        }

        // The block's partials: its runs summed in order.
#pragma unroll
        for (int i = 0; i < kSums; ++i) run_sums[threadIdx.y][threadIdx.x][i] = active ? sums[i] : 0.f;
        __syncthreads();
        const int64_t first_channel = by_group.remainder * kGroups * kVec;
        for (int i = threadIdx.y * kGroups + threadIdx.x; i < kGroups * kSums; i += kGroups * kRuns<T>) {
            const int g = i / kSums, v = i % kSums;
            const int64_t c = first_channel + (int64_t)g * kVec + v / (kWidth + 1);
            if (c >= cp.dim) continue;
            float s = 0.f;
            for (int r = 0; r < kRuns<T>; ++r) s += run_sums[r][g][v];
            partials[partial_index(tile, cp.dim, c, kWidth, v % (kWidth + 1))] = s;
        }
        __syncthreads();
    }
}

template <typename T, int kWidth, int kVec>
hipconv_status_t launch_pack(const hipconv_conv1d_backward_params &p, float *partials, hipStream_t stream) {
    const int64_t run = run_length(p, kVec);
    const int64_t tiles_per_row = ceil_div(p.conv.seqlen, kRuns<T> * run);
    const int64_t group_blocks = ceil_div(p.conv.dim / kVec, kGroups);
    const int64_t blocks = p.conv.batch * tiles_per_row * group_blocks;
    return with_silu(p.conv.silu != 0, [&](auto silu) {
        hipLaunchKernelGGL((conv1d_backward_channel_last_kernel<T, kWidth, kVec, decltype(silu)::value>),
                           dim3(grid_blocks(blocks)), dim3(kGroups, kRuns<T>), 0, stream, p, run, tiles_per_row,
                           group_blocks, partials);
        return last_launch_status();
    });
}

template <typename T, int kWidth>
hipconv_status_t launch_width(const hipconv_conv1d_backward_params &p, float *partials, hipStream_t stream) {
    if (vectorizable<T>(p)) return launch_pack<T, kWidth, kPackChannels<T>>(p, partials, stream);
    return launch_pack<T, kWidth, 1>(p, partials, stream);
}

}  // namespace

template <typename T> bool backward_channel_last_fits(const hipconv_conv1d_backward_params &p) {
    const hipconv_conv1d_params &c = p.conv;
    return c.width <= kBackwardMaxFusedWidth && p.cu_seqlens == nullptr && c.x_dim_stride < c.x_seq_stride;
}

template <typename T> int64_t backward_channel_last_tiles(const hipconv_conv1d_backward_params &p) {
    const int vec = vectorizable<T>(p) ? kPackChannels<T> : 1;
    return p.conv.batch * ceil_div(p.conv.seqlen, kRuns<T> * run_length(p, vec));
}

template <typename T>
hipconv_status_t launch_backward_channel_last(const hipconv_conv1d_backward_params &p, float *partials,
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
    template bool backward_channel_last_fits<T>(const hipconv_conv1d_backward_params &);            \
    template int64_t backward_channel_last_tiles<T>(const hipconv_conv1d_backward_params &);        \
    template hipconv_status_t launch_backward_channel_last<T>(const hipconv_conv1d_backward_params &, float *, \
                                                              hipStream_t);
HIPCONV_INSTANTIATE(__half)
HIPCONV_INSTANTIATE(hipconv_bf16)
HIPCONV_INSTANTIATE(float)
#undef HIPCONV_INSTANTIATE

}  // namespace hipconv
