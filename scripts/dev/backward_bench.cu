// Dev bench of the conv1d backward through its C entry points (hip/conv1d/backward*.hip):
// channel-last f16, bf16 and f32 (or, with the argument "cf", channel-first f16 and f32) with
// bias + SiLU and fp32 dweight/dbias, timed the library
// bench's way (graph_timing.h: a graph of one backward per rotating set, 3 warm-up replays,
// the median of 20), so that builds of two source trees can be compared in one device call.
// Before timing it checks shapes with states against a host double reference (channel-last:
// one per dtype, dim 136 a partial channel tile, seqlen 203 a partial time tile; "cf": seven,
// listed in main), prints the relative
// norm errors of dx, dweight, dbias and dinitial_states, and for each timed shape the FNV
// hashes of dx, dweight and dbias from two runs (equal: deterministic; equal across builds:
// the same arithmetic). `clf32` checks and times channel-last f32 alone. `profile cf|cl
// f16|bf16|f32 B D L` instead launches one shape twice without a graph, for ncu
// (--launch-skip 1 --launch-count 1); `time cf|cl f16|bf16|f32 B D L` checks (up to 2^24
// elements) and times one; `check cf|cl f16|bf16|f32 B D L` checks one of any size;
// `timeline cl f16|bf16|f32 B D L`, in a build by scripts/dev/timeline_backward.sh, prints when
// the tiled channel-last kernel's blocks end in graph replay.
// Build here (the backward's sources, each its own object), run on the GPU:
//   for f in backward backward_channel_first backward_channel_last backward_channel_last_tiled \
//            backward_generic; do nvcc -std=c++17 -O3 -x cu -DHIPCONV_PLATFORM_NVIDIA \
//     -gencode arch=compute_90a,code=sm_90a -Ihip/include -Ihip/common -Ihip/conv1d \
//     -c hip/conv1d/$f.hip -o $f.o; done
//   nvcc -std=c++17 -O3 -gencode arch=compute_90a,code=sm_90a -Ihip/include -Ihip/common \
//     -c scripts/dev/backward_bench.cu -o bench.o
//   nvcc -gencode arch=compute_90a,code=sm_90a *.o -o backward_bench \
//     -L$(dirname $(which nvcc))/../lib -cudart static
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "device_random.h"  // fill, device_random, download, fnv
#include "graph_timing.h"   // CK, capture_graph, graph_median_us
#include "hipconv/conv1d.h"
#ifdef TIMELINE_BENCH
#define TIMELINE_TYPES_ONLY
#include "timeline.h"
void timeline_reset();                                           // in the instrumented kernel's object
unsigned timeline_download(TimelineRecord *out, unsigned capacity);  // (scripts/dev/timeline_backward.sh)
#endif

// A dtype's element type, name, host conversion to fp32 and entry points.
#define BENCH_DTYPE(Name, Element, suffix, to_f32)                                                    \
    struct Name {                                                                                   \
        using T = Element;                                                                          \
        static constexpr const char *kName = #suffix;                                               \
        static float get(T v) { return to_f32(v); }                                                \
        static hipconv_status_t backward(const hipconv_conv1d_backward_params *p, cudaStream_t s) { \
            return hipconv_conv1d_backward_##suffix(p, (hipconv_stream_t)s);                        \
        }                                                                                           \
        static hipconv_status_t workspace(const hipconv_conv1d_backward_params *p, int64_t *bytes) { \
            return hipconv_conv1d_backward_workspace_##suffix(p, bytes);                            \
        }                                                                                           \
    };
BENCH_DTYPE(F16, __half, f16, __half2float)
BENCH_DTYPE(BF16, __nv_bfloat16, bf16, __bfloat162float)
inline float same(float v) { return v; }
BENCH_DTYPE(F32, float, f32, same)
#undef BENCH_DTYPE

// One problem's device buffers (channel-last), `sets` copies of x, dy and dx.
template <typename Dt> struct Problem {
    using T = typename Dt::T;
    int B, D, L, K, sets;
    bool states, last;
    T *w, *bias, *initial = nullptr, *dfinal = nullptr, *dinitial = nullptr;
    float *dweight, *dbias;
    std::vector<T *> x, dy, dx;
    void *workspace = nullptr;
    int64_t workspace_bytes = 0;

    Problem(int B_, int D_, int L_, int K_, int sets_, bool states_, bool last_ = true)
        : B(B_), D(D_), L(L_), K(K_), sets(sets_), states(states_), last(last_) {
        const size_t n = (size_t)B * D * L;
        w = device_random<T>((size_t)D * K, 11, 0.5f);
        bias = device_random<T>(D, 12, 0.5f);
        CK(cudaMalloc(&dweight, (size_t)D * K * 4));
        CK(cudaMalloc(&dbias, (size_t)D * 4));
        if (states) {
            initial = device_random<T>((size_t)B * D * (K - 1), 13, 1.f);
            dfinal = device_random<T>((size_t)B * D * (K - 1), 14, 1.f);
            CK(cudaMalloc(&dinitial, (size_t)B * D * (K - 1) * sizeof(T)));
        }
        for (int s = 0; s < sets; ++s) {
            x.push_back(device_random<T>(n, 100 + s, 1.f));
            dy.push_back(device_random<T>(n, 200 + s, 1.f));
            T *d;
            CK(cudaMalloc(&d, n * sizeof(T)));
            CK(cudaMemset(d, 0xff, n * sizeof(T)));  // NaN
            dx.push_back(d);
        }
        hipconv_conv1d_backward_params p = params(0);
        CK((cudaError_t)Dt::workspace(&p, &workspace_bytes));
        if (workspace_bytes > 0) CK(cudaMalloc(&workspace, workspace_bytes));
        CK(cudaDeviceSynchronize());
    }

    hipconv_conv1d_backward_params params(int s) const {
        hipconv_conv1d_backward_params p{};
        p.conv.x = x[s], p.conv.w = w, p.conv.bias = bias, p.conv.silu = 1;
        p.conv.batch = B, p.conv.dim = D, p.conv.seqlen = L, p.conv.width = K;
        p.conv.x_batch_stride = p.conv.y_batch_stride = (int64_t)D * L;
        p.conv.x_dim_stride = p.conv.y_dim_stride = last ? 1 : L;
        p.conv.x_seq_stride = p.conv.y_seq_stride = last ? D : 1;
        p.conv.initial_states = initial;
        p.dy = dy[s], p.dx = dx[s];
        p.dfinal_states = dfinal, p.dinitial_states = dinitial;
        p.dweight = dweight, p.dbias = dbias, p.dweight_f32 = 1, p.dbias_f32 = 1;
        p.workspace = workspace, p.workspace_bytes = workspace_bytes;
        return p;
    }

    void run(int s, cudaStream_t stream) const {
        const hipconv_conv1d_backward_params p = params(s);
        CK((cudaError_t)Dt::backward(&p, stream));
    }
};

double rel_err(const std::vector<double> &got, const std::vector<double> &want) {
    double num = 0, den = 0;
    for (size_t i = 0; i < got.size(); ++i) num += (got[i] - want[i]) * (got[i] - want[i]), den += want[i] * want[i];
    return std::sqrt(num / den);
}

// A shape with states against a host double reference, in either layout.
template <typename Dt> void check(cudaStream_t stream, int B = 3, int D = 136, int L = 203, bool last = true) {
    using T = typename Dt::T;
    const int K = 4, H = K - 1;
    Problem<Dt> pr(B, D, L, K, 1, true, last);
    auto at = [&](int b, int t, int c) {
        return last ? ((size_t)b * L + t) * D + c : ((size_t)b * D + c) * L + t;
    };
    pr.run(0, stream);
    CK(cudaStreamSynchronize(stream));
    auto f = [](const std::vector<T> &v) {
        std::vector<double> r(v.size());
        for (size_t i = 0; i < v.size(); ++i) r[i] = Dt::get(v[i]);
        return r;
    };
    const auto x = f(download(pr.x[0], (size_t)B * D * L)), dy = f(download(pr.dy[0], (size_t)B * D * L));
    const auto w = f(download(pr.w, (size_t)D * K)), bias = f(download(pr.bias, D));
    const auto initial = f(download(pr.initial, (size_t)B * D * H)), dfinal = f(download(pr.dfinal, (size_t)B * D * H));
    std::vector<double> rdx(x.size()), rdw((size_t)D * K, 0), rdb(D, 0), rdi((size_t)B * D * H);
    for (int b = 0; b < B; ++b)
        for (int c = 0; c < D; ++c) {
            auto xx = [&](int tau) {
                return tau >= 0 ? x[at(b, tau, c)] : initial[((size_t)b * D + c) * H + H + tau];
            };
            std::vector<double> dz(L);
            for (int t = 0; t < L; ++t) {
                double z = bias[c];
                for (int k = 0; k < K; ++k) z += w[(size_t)c * K + k] * xx(t + k - H);
                const double sg = 1 / (1 + std::exp(-z));
                dz[t] = dy[at(b, t, c)] * sg * (1 + z * (1 - sg));
                for (int k = 0; k < K; ++k) rdw[(size_t)c * K + k] += dz[t] * xx(t + k - H);
                rdb[c] += dz[t];
            }
            for (int tau = -H; tau < L; ++tau) {
                double acc = 0;
                for (int k = 0; k < K; ++k) {
                    const int u = tau + H - k;
                    if (u >= 0 && u < L) acc += w[(size_t)c * K + k] * dz[u];
                }
                if (tau - (L - H) >= 0) acc += dfinal[((size_t)b * D + c) * H + tau - (L - H)];
                if (tau >= 0) rdx[at(b, tau, c)] = acc;
                else rdi[((size_t)b * D + c) * H + H + tau] = acc;
            }
        }
    const auto gdw = download(pr.dweight, (size_t)D * K), gdb = download(pr.dbias, D);
    printf("check %s %s (%d,%d,%d,%d) states: rel err dx %.2e dweight %.2e dbias %.2e dinitial %.2e\n", Dt::kName,
           last ? "cl" : "cf", B, D, L, K, rel_err(f(download(pr.dx[0], x.size())), rdx),
           rel_err(std::vector<double>(gdw.begin(), gdw.end()), rdw),
           rel_err(std::vector<double>(gdb.begin(), gdb.end()), rdb), rel_err(f(download(pr.dinitial, rdi.size())), rdi));
}

template <typename Dt> void timed(int B, int D, int L, bool states, cudaStream_t stream, bool last = true) {
    using T = typename Dt::T;
    const double set_bytes = 3.0 * B * D * L * sizeof(T);
    const int sets = std::max(2, (int)std::ceil(150e6 / set_bytes));
    Problem<Dt> pr(B, D, L, 4, sets, states, last);
    uint64_t hashes[2][3];
    for (int rep = 0; rep < 2; ++rep) {
        pr.run(0, stream);
        CK(cudaStreamSynchronize(stream));
        hashes[rep][0] = fnv(download(pr.dx[0], (size_t)B * D * L).data(), (size_t)B * D * L * sizeof(T));
        hashes[rep][1] = fnv(download(pr.dweight, (size_t)D * 4).data(), (size_t)D * 16);
        hashes[rep][2] = fnv(download(pr.dbias, D).data(), (size_t)D * 4);
    }
    const double us = graph_median_us(stream, sets, 20, [&](int s) { pr.run(s, stream); });
    printf("%-4s (%d,%d,%d,4) %s silu%s: %8.2f us  %6.1f GB/s  dx %016llx dw %016llx db %016llx %s\n", Dt::kName, B,
           D, L, last ? "cl" : "cf", states ? " states" : "", us, set_bytes / us * 1e-3, (unsigned long long)hashes[0][0],
           (unsigned long long)hashes[0][1], (unsigned long long)hashes[0][2],
           memcmp(hashes[0], hashes[1], sizeof(hashes[0])) == 0 ? "deterministic" : "NOT DETERMINISTIC");
    for (int s = 0; s < sets; ++s) {
        CK(cudaFree(pr.x[s]));
        CK(cudaFree(pr.dy[s]));
        CK(cudaFree(pr.dx[s]));
    }
}

// Two plain launches of one shape (no graph), for a profiler: ncu --launch-skip 1 --launch-count 1.
template <typename Dt> void profile(int B, int D, int L, bool last, cudaStream_t stream) {
    Problem<Dt> pr(B, D, L, 4, 1, false, last);
    for (int rep = 0; rep < 2; ++rep) pr.run(0, stream);
    CK(cudaStreamSynchronize(stream));
    printf("profiled %s (%d,%d,%d,4) %s silu\n", Dt::kName, B, D, L, last ? "cl" : "cf");
}

#ifdef TIMELINE_BENCH
// The tiled channel-last kernel's blocks in graph replay (scripts/dev/timeline_backward.sh
// builds it instrumented): one graph of a backward per rotating set, replayed 5 times; then,
// over the launches of the last 4 replays (in start order, `grid` blocks each), the median
// of each launch's span (first block start to last block end), of its blocks' median and
// last ends after its start, of its last block's start, and of the gap from its last end to
// the next launch's first start. Launches do not overlap (each waits for the reduction
// before it), so sorted by start each launch's blocks come together.
template <typename Dt> void timeline(int B, int D, int L, cudaStream_t stream) {
    using T = typename Dt::T;
    const int sets = std::max(2, (int)std::ceil(150e6 / (3.0 * B * D * L * sizeof(T))));
    Problem<Dt> pr(B, D, L, 4, sets, false, true);
    const CapturedGraph g = capture_graph(stream, sets, [&](int s) { pr.run(s, stream); });
    CK(cudaGraphLaunch(g.exec, stream));
    CK(cudaStreamSynchronize(stream));
    timeline_reset();
    const int replays = 4, launches = replays * sets;
    for (int r = 0; r < replays; ++r) CK(cudaGraphLaunch(g.exec, stream));
    CK(cudaStreamSynchronize(stream));
    std::vector<TimelineRecord> rec(kTimelineCapacity);
    rec.resize(timeline_download(rec.data(), kTimelineCapacity));
    std::sort(rec.begin(), rec.end(), [](const TimelineRecord &a, const TimelineRecord &b) { return a.start < b.start; });
    const size_t grid = rec.size() / launches;
    auto median = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        return v[v.size() / 2];
    };
    std::vector<double> span, mid_end, first_end, gap, start_spread;
    for (int l = 0; l < launches; ++l) {
        std::vector<double> ends;
        const auto begin = rec.begin() + l * grid;
        const double t0 = begin->start;
        double last = 0;
        for (size_t i = 0; i < grid; ++i) ends.push_back(begin[i].end - t0), last = std::max(last, ends.back());
        span.push_back(last * 1e-3);
        mid_end.push_back(median(ends) * 1e-3);
        first_end.push_back(*std::min_element(ends.begin(), ends.end()) * 1e-3);
        start_spread.push_back((begin[grid - 1].start - t0) * 1e-3);
        if (l + 1 < launches) gap.push_back(((double)begin[grid].start - (t0 + last)) * 1e-3);
    }
    CK(cudaGraphExecDestroy(g.exec));
    CK(cudaGraphDestroy(g.graph));
    printf("timeline %s (%d,%d,%d,4) cl silu: %zu records, %d launches of %zu blocks; median us: span %.2f, "
           "blocks' first end %.2f, median end %.2f, last start %.2f, gap to the next launch %.2f\n",
           Dt::kName, B, D, L, rec.size(), launches, grid, median(span), median(first_end), median(mid_end),
           median(start_spread), median(gap));
}
#endif

// Checks one shape against the host reference (where it has at most 2^24 elements) and times it.
template <typename Dt> void check_and_time(int B, int D, int L, bool last, cudaStream_t stream) {
    if ((int64_t)B * D * L <= (1 << 24)) check<Dt>(stream, B, D, L, last);
    timed<Dt>(B, D, L, false, stream, last);
}

// The shape of the arguments "cf|cl f16|bf16|f32 B D L" (argv[2..6]), handed to
// run(Dt{}, B, D, L, last) with Dt its dtype.
template <typename Run> void with_shape_arguments(char **argv, const Run &run) {
    const bool last = strcmp(argv[2], "cl") == 0;
    const int B = atoi(argv[4]), D = atoi(argv[5]), L = atoi(argv[6]);
    if (strcmp(argv[3], "f16") == 0) run(F16{}, B, D, L, last);
    else if (strcmp(argv[3], "bf16") == 0) run(BF16{}, B, D, L, last);
    else run(F32{}, B, D, L, last);
}

// Arguments: none, the channel-last cases; "cf", the channel-first model shapes instead;
// "clf32", channel-last f32 alone (four check shapes, then the two rows); "profile cf|cl
// f16|bf16|f32 B D L", two plain launches of one shape; "time cf|cl f16|bf16|f32 B D L",
// one shape checked (up to 2^24 elements) and timed.
int main(int argc, char **argv) {
    cudaStream_t stream;
    CK(cudaStreamCreate(&stream));
#ifdef TIMELINE_BENCH
    if (argc == 7 && strcmp(argv[1], "timeline") == 0) {
        with_shape_arguments(argv, [&](auto dtype, int B, int D, int L, bool) { timeline<decltype(dtype)>(B, D, L, stream); });
        return 0;
    }
#endif
    if (argc == 7 && strcmp(argv[1], "check") == 0) {  // any size: the host reference takes a while
        with_shape_arguments(argv, [&](auto dtype, int B, int D, int L, bool last) {
            check<decltype(dtype)>(stream, B, D, L, last);
        });
        return 0;
    }
    if (argc == 7 && (strcmp(argv[1], "time") == 0 || strcmp(argv[1], "profile") == 0)) {
        const bool time = strcmp(argv[1], "time") == 0;
        with_shape_arguments(argv, [&](auto dtype, int B, int D, int L, bool last) {
            using Dt = decltype(dtype);
            if (time) check_and_time<Dt>(B, D, L, last, stream);
            else profile<Dt>(B, D, L, last, stream);
        });
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "cf") == 0) {
        // Channel-first checks: channels split into pieces with partials (dims 136 and 40;
        // rows of several tiles, a partial last one), and whole-channel walks over rows of
        // 777 times (not a whole number of 16-byte vectors: element loads where unaligned).
        check<F16>(stream, 3, 136, 203, false);
        check<F32>(stream, 3, 136, 203, false);
        check<F32>(stream, 2, 40, 2100, false);
        check<F16>(stream, 5, 2200, 777, false);
        check<F32>(stream, 5, 2200, 777, false);
        // Channels enough for two rounds, rows of whole vectors (the ring on sm_90): f32 in
        // runs of at least four tiles (plan_walk), 16-bit whole channels.
        check<F32>(stream, 8, 2500, 512, false);
        check<F16>(stream, 6, 4000, 520, false);
        timed<F16>(8, 4096, 2048, false, stream, false);
        timed<F32>(8, 4096, 2048, false, stream, false);
        timed<F16>(4, 5120, 4096, false, stream, false);
        timed<F32>(4, 5120, 4096, false, stream, false);
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "clf32") == 0) {
        // Channel-last f32 alone: runs ending inside a step (seqlen 203, 1, 5), a partial
        // channel group (dim 136, 6), rows of several tiles (3000), then the two rows.
        check<F32>(stream);
        check<F32>(stream, 2, 6, 5);
        check<F32>(stream, 4, 64, 1);
        check<F32>(stream, 2, 520, 3000);
        timed<F32>(8, 4096, 2048, false, stream);
        timed<F32>(4, 5120, 4096, false, stream);
        return 0;
    }
    check<F16>(stream);
    check<BF16>(stream);
    check<F32>(stream);
    timed<F16>(8, 4096, 2048, false, stream);
    timed<BF16>(8, 4096, 2048, false, stream);
    timed<F16>(4, 5120, 4096, false, stream);
    timed<BF16>(4, 5120, 4096, false, stream);
    timed<F16>(8, 4096, 2048, true, stream);
    timed<BF16>(8, 4096, 2048, true, stream);
    timed<F32>(8, 4096, 2048, false, stream);
    timed<F32>(4, 5120, 4096, false, stream);
    return 0;
}
