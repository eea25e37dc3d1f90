/*
 * The backward's fused channel-first path (hipconv/conv1d.h, "backward"), widths 1..4:
 * x, dy, dx [batch, dim, seqlen] contiguous (time fastest), no packed batch.
 *
 * One block per tile of kThreads·N times of one row (b, c), N = kVectors·E (E = 16 /
 * sizeof(T)); thread i owns the N times t0 = tile·kThreads·N + i·N .. t0+N-1:
 *
 *   times     t0-(w-1) .. t0-1 | t0 .. t0+N-1       | t0+N .. t0+N+w-2
 *   x         left lane's tail | own 16-byte loads  | right lane's head
 *   dy                         | own 16-byte loads  | right lane's head
 *   dz                         | dy·act'(z), z recomputed over both
 *   dx                         | own (16-byte stores)
 *
 * The neighbours' words come by register exchange within the wave; the first and last
 * lanes load theirs (the row's first lane takes the initial states, or zeros). z is
 * recomputed for the w-1 times after the run (the halo), so a run of two vectors per
 * thread halves that overhead against one (measured on an H100). Rows whose start is not
 * 16-byte aligned (seqlen not a multiple of E) and the row's last vector use element
 * loads. Each thread adds its N times to dweight's and dbias's sums; the block sums them
 * (wave butterflies, then the waves in order) into partials[b·tiles_per_row + tile, c].
 * SiLU's flag is tested per time (activation_derivative(z, silu)), unlike the other
 * streaming kernels (activation.h): here the straight-line form took more registers and
 * measured slower (H100, (8,4096,2048,4), across calls: f16 187 against 163 us, 167 when
 * capped at 64 registers; f32 396 against 291).
 * Launch: kThreads threads, grid-stride over rows·tiles_per_row blocks.
 */
#include "backward.h"
#include "packed.h"
#include "vector_rows.h"
#include "wave.h"

namespace hipconv {

namespace {

constexpr int kThreads = 128;
constexpr int kVectors = 2;  // 16-byte vectors per thread, consecutive: E·kVectors times
constexpr int kWaves = kThreads / HIPCONV_WAVE_SIZE;

template <typename T> __host__ __device__ constexpr int64_t tile_times() {
    return (int64_t)kThreads * kVectors * Vec16<T>::kCount;
}

// E elements of a row from time t (zero at and past seqlen): one 16-byte load where the
// row is aligned and they all lie inside it.
template <typename T>
__device__ inline uint4 load_times(const T *row, int64_t t, int64_t seqlen, bool aligned) {
    constexpr int E = Vec16<T>::kCount;
    if (aligned && t + E <= seqlen) return *reinterpret_cast<const uint4 *>(row + t);
    float v[E];
#pragma unroll
    for (int j = 0; j < E; ++j) v[j] = t + j < seqlen ? to_float(row[t + j]) : 0.f;
    return pack<T>(v);  // exact: T -> fp32 -> T
}

template <typename T>
__device__ inline void store_times(T *row, int64_t t, int64_t seqlen, bool aligned, const float *v) {
    constexpr int E = Vec16<T>::kCount;
    if (aligned && t + E <= seqlen) {
        *reinterpret_cast<uint4 *>(row + t) = pack<T>(v);
        return;
    }
#pragma unroll
    for (int j = 0; j < E; ++j)
        if (t + j < seqlen) row[t + j] = from_float<T>(v[j]);
}

template <typename T, int kWidth>
__global__ void __launch_bounds__(kThreads) conv1d_backward_channel_first_kernel(hipconv_conv1d_backward_params p,
                                                                                  int64_t tiles_per_row,
                                                                                  float *partials) {
    constexpr int E = Vec16<T>::kCount;
    constexpr int H = kWidth - 1;
    constexpr int kHistoryWords = (H * (int)sizeof(T) + 3) / 4;  // words of a vector holding H elements
    constexpr int N = kVectors * E;                                 // times per thread
    constexpr int kWindow = H + N + H;                             // x: times t0-H .. t0+N+H-1
    constexpr int kDz = N + H;                                      // dz: times t0 .. t0+N+H-1
    static_assert(H <= E, "the halo must fit in one neighbouring vector");
    const hipconv_conv1d_params &cp = p.conv;
    const int64_t seqlen = cp.seqlen;
    const int lane = wave_lane();
    const bool silu = cp.silu != 0;
    __shared__ float wave_sums[kWaves][kWidth + 1];

    for (int64_t block = blockIdx.x; block < (int64_t)cp.batch * cp.dim * tiles_per_row; block += gridDim.x) {
        // (32-bit divisions where the sizes fit: a 64-bit one is a long software sequence.)
        const QuotientRemainder by_tile = divide(block, tiles_per_row);
        const int64_t row = by_tile.quotient;  // b * dim + c
        const int64_t tile = by_tile.remainder;
        const QuotientRemainder by_channel = divide(row, cp.dim);
        const int64_t c = by_channel.remainder;
        const int64_t t0 = tile * tile_times<T>() + (int64_t)threadIdx.x * N;
        const T *x = static_cast<const T *>(cp.x) + row * seqlen;
        const T *dy = static_cast<const T *>(p.dy) + row * seqlen;
        const bool aligned = (row * seqlen) % E == 0;

        uint4 xv[kVectors], dyv[kVectors];
#pragma unroll
        for (int v = 0; v < kVectors; ++v) {
            xv[v] = load_times(x, t0 + v * E, seqlen, aligned);
            dyv[v] = load_times(dy, t0 + v * E, seqlen, aligned);
        }
        // Neighbours: the left lane's last words of x, the right lane's first words of x, dy.
        uint4 left = make_uint4(0, 0, 0, 0), right_x = left, right_dy = left;
        if (kWidth > 1) {
            const int from_left = (lane + HIPCONV_WAVE_SIZE - 1) % HIPCONV_WAVE_SIZE;
            const int from_right = (lane + 1) % HIPCONV_WAVE_SIZE;
#pragma unroll
            for (int q = 0; q < kHistoryWords; ++q) {
                (&left.x)[4 - kHistoryWords + q] =
                    wave_read_lane(word_of(xv[kVectors - 1], 4 - kHistoryWords + q), from_left);
                (&right_x.x)[q] = wave_read_lane(word_of(xv[0], q), from_right);
                (&right_dy.x)[q] = wave_read_lane(word_of(dyv[0], q), from_right);
            }
            if (lane == 0 && t0 > 0) left = load_times(x, t0 - E, seqlen, aligned);
            if (lane == HIPCONV_WAVE_SIZE - 1) {
                right_x = load_times(x, t0 + N, seqlen, aligned);
                right_dy = load_times(dy, t0 + N, seqlen, aligned);
            }
        }
        float xw[kWindow];
#pragma unroll
        for (int m = 0; m < H; ++m) xw[m] = unpack<T>(left, E - H + m);
        if (t0 == 0) {  // the row's first times: the history is the initial states, or zeros
            const T *initial = static_cast<const T *>(cp.initial_states);
#pragma unroll
            for (int m = 0; m < H; ++m) xw[m] = initial != nullptr ? to_float(initial[row * H + m]) : 0.f;
        }
#pragma unroll
        for (int j = 0; j < N; ++j) xw[H + j] = unpack<T>(xv[j / E], j % E);
#pragma unroll
        for (int m = 0; m < H; ++m) xw[H + N + m] = unpack<T>(right_x, m);

        float taps[kWidth];
        const T *w = static_cast<const T *>(cp.w) + c * kWidth;
#pragma unroll
        for (int k = 0; k < kWidth; ++k) taps[k] = to_float(w[k]);
        const float bias_c = cp.bias != nullptr ? to_float(static_cast<const T *>(cp.bias)[c]) : 0.f;

        float dz[kDz];
#pragma unroll
        for (int i = 0; i < kDz; ++i) {
            float z = bias_c;
#pragma unroll
            for (int k = 0; k < kWidth; ++k) z += taps[k] * xw[i + k];
            const float g = i < N ? unpack<T>(dyv[i / E], i % E) : unpack<T>(right_dy, i - N);
            dz[i] = g * activation_derivative(z, silu);
        }

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
                const int64_t k = t0 + j - (seqlen - H);
                if (k >= 0 && t0 + j < seqlen) dx[j] += to_float(dfinal[k]);
            }
        }
#pragma unroll
        for (int v = 0; v < kVectors; ++v)
            if (t0 + v * E < seqlen)
                store_times(static_cast<T *>(p.dx) + row * seqlen, t0 + v * E, seqlen, aligned, dx + v * E);

        // This thread's share of dweight and dbias (dz is 0 past seqlen), then the block's.
        float sums[kWidth + 1];
#pragma unroll
        for (int k = 0; k <= kWidth; ++k) {
            float s = 0.f;
#pragma unroll
            for (int j = 0; j < N; ++j) s += k < kWidth ? dz[j] * xw[j + k] : dz[j];
            sums[k] = wave_sum(s);
        }
        const int wave = threadIdx.x / HIPCONV_WAVE_SIZE;
        if (lane == 0) {
#pragma unroll
            for (int k = 0; k <= kWidth; ++k) wave_sums[wave][k] = sums[k];
        }
        __syncthreads();
        if (threadIdx.x <= kWidth) {
            float s = 0.f;
            for (int v = 0; v < kWaves; ++v) s += wave_sums[v][threadIdx.x];
            const int64_t b = by_channel.quotient;
            partials[partial_index(b * tiles_per_row + tile, cp.dim, c, kWidth, threadIdx.x)] = s;
        }
        __syncthreads();
    }
}

template <typename T, int kWidth>
hipconv_status_t launch_width(const hipconv_conv1d_backward_params &p, float *partials, hipStream_t stream) {
    const int64_t tiles_per_row = backward_channel_first_tiles<T>(p) / p.conv.batch;
    const int64_t blocks = (int64_t)p.conv.batch * p.conv.dim * tiles_per_row;
    hipLaunchKernelGGL((conv1d_backward_channel_first_kernel<T, kWidth>), dim3(grid_blocks(blocks)), dim3(kThreads), 0,
                       stream, p, tiles_per_row, partials);
    return last_launch_status();
}

bool aligned16(const void *ptr) { return (reinterpret_cast<uintptr_t>(ptr) & 15) == 0; }

}  // namespace

template <typename T> bool backward_channel_first_fits(const hipconv_conv1d_backward_params &p) {
    const hipconv_conv1d_params &c = p.conv;
    return c.width <= kBackwardMaxFusedWidth && p.cu_seqlens == nullptr && c.x_seq_stride == 1 &&
           c.x_dim_stride == c.seqlen && c.x_batch_stride == (int64_t)c.dim * c.seqlen && aligned16(c.x) &&
           aligned16(p.dy) && aligned16(p.dx);
}

template <typename T> int64_t backward_channel_first_tiles(const hipconv_conv1d_backward_params &p) {
    return p.conv.batch * ceil_div(p.conv.seqlen, tile_times<T>());
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
