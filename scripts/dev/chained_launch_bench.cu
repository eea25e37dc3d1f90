// Dev bench of chained launches (hip/common/dependent_launch.h): the streaming forward
// kernels (direct_channel_first.hip, direct_channel_last.hip) and the decode update
// (update.hip) timed the library bench's way (a graph of K launches over rotating sets past
// 3 x 50 MB, 3 warm-up replays, the median of 20 replays / K), run once with
// HIPCONV_CHAINED_LAUNCH=0 and once without it, in the same device call. Before timing, each
// case runs a dependent chain (16 forwards, each reading the y the one before wrote; 16 decode
// steps on one state) in a graph and prints a hash of the result, which must be the same in
// both runs; a forward chain's last step is also checked against a host double reference
// computed from that step's input as read back ("ok" within 1e-3 for f16, 1e-5 for f32).
// Arguments: none, every case; "forward", the forward cases; "seed", the seed shape's
// (for nsys); "profile", one plain launch of the seed shape's forward per dtype and layout
// (for ncu -k regex:conv1d_direct); "timeline", in a build of scripts/dev/timeline_build.sh
// only, when each block of the seed shape's chained forwards starts and ends inside the
// replayed graph (scripts/dev/timeline.h).
// Build here (each .hip its own object: their anonymous namespaces share names), run on the GPU:
//   for f in direct_channel_first direct_channel_last; do
//     nvcc -std=c++17 -O3 -x cu -DHIPCONV_PLATFORM_NVIDIA -gencode arch=compute_90a,code=sm_90a \
//       -Ihip/include -Ihip/common -Ihip/conv1d -c hip/conv1d/$f.hip -o $f.o; done
//   nvcc -std=c++17 -O3 -x cu -DHIPCONV_PLATFORM_NVIDIA -gencode arch=compute_90a,code=sm_90a \
//     -Ihip/include -Ihip/common -Ihip/conv1d -c scripts/dev/chained_launch_bench.cu -o bench.o
//   nvcc -gencode arch=compute_90a,code=sm_90a *.o -o chained_launch_bench \
//     -L$(dirname $(which nvcc))/../lib -cudart static
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <cuda_fp16.h>

#include "direct_paths.h"
#include "graph_timing.h"  // CK, graph_median_us
#include "update.hip"
#ifdef TIMELINE_DEFINE
#include "timeline.h"
#endif
using namespace hipconv;

template <typename T> float h2f(T v);
template <> float h2f<__half>(__half v) { return __half2float(v); }
template <> float h2f<float>(float v) { return v; }
template <typename T> T f2h(float v);
template <> __half f2h<__half>(float v) { return __float2half(v); }
template <> float f2h<float>(float v) { return v; }

uint64_t fnv(const void *data, size_t bytes, uint64_t h = 1469598103934665603ull) {
    const uint8_t *b = static_cast<const uint8_t *>(data);
    for (size_t i = 0; i < bytes; ++i) h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

template <typename T> std::vector<T> random_values(size_t n, unsigned seed, float scale) {
    srand(seed);
    std::vector<T> v(n);
    for (auto &e : v) e = f2h<T>(scale * ((rand() % 2001) / 1000.f - 1.f));
    return v;
}

template <typename T> T *upload(const std::vector<T> &v) {
    T *d;
    CK(cudaMalloc(&d, v.size() * sizeof(T)));
    CK(cudaMemcpy(d, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
    return d;
}

int rotating_sets(double bytes_per_set) { return std::clamp((int)std::ceil(150e6 / bytes_per_set), 3, 256); }

hipconv_conv1d_params forward_params(int B, int D, int L, int K, bool last, const void *w) {
    hipconv_conv1d_params p{};
    p.w = w;
    p.batch = B, p.dim = D, p.seqlen = L, p.width = K;
    p.x_batch_stride = p.y_batch_stride = (int64_t)D * L;
    p.x_dim_stride = p.y_dim_stride = last ? 1 : L;
    p.x_seq_stride = p.y_seq_stride = last ? D : 1;
    return p;
}

template <typename T> hipconv_status_t forward(const hipconv_conv1d_params &p, bool last, cudaStream_t s) {
    if (!(last ? direct_channel_last_fits<T>(p) : direct_channel_first_fits<T>(p))) {
        printf("the streaming kernel does not take this case\n");
        exit(1);
    }
    return last ? launch_direct_channel_last<T>(p, s) : launch_direct_channel_first<T>(p, s);
}

// The host reference of one forward (no bias, no activation), in double.
std::vector<double> host_forward(const std::vector<double> &x, const std::vector<double> &w, int B, int D, int L,
                                 int K, bool last) {
    std::vector<double> y(x.size());
    auto at = [&](int b, int c, int t) { return (size_t)b * D * L + (last ? (size_t)t * D + c : (size_t)c * L + t); };
    for (int b = 0; b < B; ++b)
        for (int c = 0; c < D; ++c)
            for (int t = 0; t < L; ++t) {
                double acc = 0;
                for (int k = 0; k < K; ++k)
                    if (t + k - (K - 1) >= 0) acc += w[(size_t)c * K + k] * x[at(b, c, t + k - (K - 1))];
                y[at(b, c, t)] = acc;
            }
    return y;
}

template <typename T> void forward_case(const char *name, int B, int D, int L, int K, bool last, cudaStream_t s) {
    const size_t n = (size_t)B * D * L;
    // Taps in [0.5/K, 1.5/K]: 16 chained forwards smooth the values and keep them in range.
    std::vector<T> hw = random_values<T>((size_t)D * K, 7, 0.5f / K);
    for (auto &v : hw) v = f2h<T>(h2f(v) + 1.f / K);
    T *w = upload(hw);
    hipconv_conv1d_params p = forward_params(B, D, L, K, last, w);

    // The dependent chain: ys[i+1] = conv(ys[i]), 16 forwards in one graph.
    constexpr int kChain = 16;
    const std::vector<T> hx = random_values<T>(n, 3, 1.f);
    std::vector<T *> chain(kChain + 1);
    chain[0] = upload(hx);
    for (int i = 1; i <= kChain; ++i) {
        CK(cudaMalloc(&chain[i], n * sizeof(T)));
        CK(cudaMemset(chain[i], 0xff, n * sizeof(T)));  // NaN
    }
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    for (int i = 0; i < kChain; ++i) {
        p.x = chain[i], p.y = chain[i + 1];
        CK((cudaError_t)forward<T>(p, last, s));
    }
    CK(cudaStreamEndCapture(s, &graph));
    CK(cudaGraphInstantiate(&exec, graph, 0));
    CK(cudaGraphLaunch(exec, s));
    CK(cudaStreamSynchronize(s));
    std::vector<T> out(n);
    CK(cudaMemcpy(out.data(), chain[kChain], n * sizeof(T), cudaMemcpyDeviceToHost));
    // Reference: each step from the device's previous output (rounding is the device's).
    std::vector<T> prev(n);
    CK(cudaMemcpy(prev.data(), chain[kChain - 1], n * sizeof(T), cudaMemcpyDeviceToHost));
    std::vector<double> xd(n), wd(hw.size());
    for (size_t i = 0; i < n; ++i) xd[i] = h2f(prev[i]);
    for (size_t i = 0; i < hw.size(); ++i) wd[i] = h2f(hw[i]);
    const std::vector<double> ref = host_forward(xd, wd, B, D, L, K, last);
    double num = 0, den = 0;
    for (size_t i = 0; i < n; ++i) num += (h2f(out[i]) - ref[i]) * (h2f(out[i]) - ref[i]), den += ref[i] * ref[i];
    const double err = std::sqrt(num / den);
    const uint64_t hash = fnv(out.data(), n * sizeof(T));
    CK(cudaGraphExecDestroy(exec));
    CK(cudaGraphDestroy(graph));
    for (T *c : chain) CK(cudaFree(c));

    // Timing over rotating sets.
    const int sets = rotating_sets(2.0 * n * sizeof(T));
    std::vector<T *> xs(sets), ys(sets);
    for (int r = 0; r < sets; ++r) {
        xs[r] = upload(hx);
        CK(cudaMalloc(&ys[r], n * sizeof(T)));
    }
    const double us = graph_median_us(s, sets, 20, [&](int r) {
        p.x = xs[r], p.y = ys[r];
        CK((cudaError_t)forward<T>(p, last, s));
    });
    printf("forward %-5s (%d,%d,%d,%d) %-13s %9.2f us %7.1f GB/s  chain err %.1e %s hash %016llx\n", name, B, D, L,
           K, last ? "channel_last" : "channel_first", us, 2.0 * n * sizeof(T) / us / 1e3, err,
           err < (sizeof(T) == 2 ? 1e-3 : 1e-5) ? "ok " : "BAD", (unsigned long long)hash);
    for (int r = 0; r < sets; ++r) { CK(cudaFree(xs[r])); CK(cudaFree(ys[r])); }
    CK(cudaFree(w));
}

template <typename T> void update_case(const char *name, int tokens, bool circular, cudaStream_t s) {
    constexpr int kB = 256, kD = 4096, kW = 4, kL = 3;
    const size_t xn = (size_t)kB * kD * tokens, sn = (size_t)kB * kD * kL;
    const std::vector<T> hw = random_values<T>((size_t)kD * kW, 7, 0.5f), hx = random_values<T>(xn, 3, 1.f),
                         hs = random_values<T>(sn, 5, 1.f);
    std::vector<int32_t> hc(kB);
    for (int b = 0; b < kB; ++b) hc[b] = (b * 7) % 13;
    T *w = upload(hw);
    int32_t *cache = upload(hc), *status;
    CK(cudaMalloc(&status, 4 * sizeof(int32_t)));
    CK(cudaMemset(status, 0, 4 * sizeof(int32_t)));
    hipconv_conv1d_update_params p{};
    p.conv.w = w, p.conv.batch = kB, p.conv.dim = kD, p.conv.seqlen = tokens, p.conv.width = kW;
    p.conv.x_batch_stride = p.conv.y_batch_stride = (int64_t)kD * tokens;
    p.conv.x_dim_stride = p.conv.y_dim_stride = tokens, p.conv.x_seq_stride = p.conv.y_seq_stride = 1;
    p.n_slots = kB, p.state_len = kL, p.cache_seqlens = circular ? cache : nullptr, p.status = status;

    // The dependent chain: 16 decode steps on one state (each reads the state the one before
    // wrote), every step's y kept; the hash covers the last y and the final state.
    constexpr int kChain = 16;
    T *state = upload(hs);
    std::vector<T *> xs(kChain), ys(kChain);
    for (int i = 0; i < kChain; ++i) {
        xs[i] = upload(random_values<T>(xn, 100 + i, 1.f));
        CK(cudaMalloc(&ys[i], xn * sizeof(T)));
        CK(cudaMemset(ys[i], 0xff, xn * sizeof(T)));
    }
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    for (int i = 0; i < kChain; ++i) {
        p.conv.x = xs[i], p.conv.y = ys[i], p.conv_state = state;
        CK((cudaError_t)launch_conv1d_update<T>(p, s));
    }
    CK(cudaStreamEndCapture(s, &graph));
    CK(cudaGraphInstantiate(&exec, graph, 0));
    CK(cudaGraphLaunch(exec, s));
    CK(cudaStreamSynchronize(s));
    std::vector<T> y(xn), st(sn);
    CK(cudaMemcpy(y.data(), ys[kChain - 1], xn * sizeof(T), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(st.data(), state, sn * sizeof(T), cudaMemcpyDeviceToHost));
    const uint64_t hash = fnv(st.data(), sn * sizeof(T), fnv(y.data(), xn * sizeof(T)));
    CK(cudaGraphExecDestroy(exec));
    CK(cudaGraphDestroy(graph));
    for (int i = 0; i < kChain; ++i) { CK(cudaFree(xs[i])); CK(cudaFree(ys[i])); }
    CK(cudaFree(state));

    const int sets = rotating_sets((2.0 * xn + 2.0 * sn) * sizeof(T));
    std::vector<T *> rx(sets), ry(sets), rs(sets);
    for (int r = 0; r < sets; ++r) {
        rx[r] = upload(hx), rs[r] = upload(hs);
        CK(cudaMalloc(&ry[r], xn * sizeof(T)));
    }
    const double us = graph_median_us(s, sets, 20, [&](int r) {
        p.conv.x = rx[r], p.conv.y = ry[r], p.conv_state = rs[r];
        CK((cudaError_t)launch_conv1d_update<T>(p, s));
    });
    printf("update  %-5s tokens %d %-8s %9.2f us %7.1f GB/s  chain hash %016llx\n", name, tokens,
           circular ? "circular" : "shifting", us, (2.0 * xn + 2.0 * sn) * sizeof(T) / us / 1e3,
           (unsigned long long)hash);
    for (int r = 0; r < sets; ++r) { CK(cudaFree(rx[r])); CK(cudaFree(ry[r])); CK(cudaFree(rs[r])); }
    CK(cudaFree(w)); CK(cudaFree(cache)); CK(cudaFree(status));
}

// One plain launch of the seed shape's forward, f16 and f32, both layouts (for ncu).
void profile_seed(cudaStream_t s) {
    for (bool last : {false, true})
        for (int bytes : {2, 4}) {
            const size_t n = 64 * 2048;
            void *x, *y, *w;
            CK(cudaMalloc(&x, n * bytes));
            CK(cudaMalloc(&y, n * bytes));
            CK(cudaMalloc(&w, 64 * 4 * bytes));
            CK(cudaMemset(x, 0, n * bytes));
            CK(cudaMemset(w, 0, 64 * 4 * bytes));
            hipconv_conv1d_params p = forward_params(1, 64, 2048, 4, last, w);
            p.x = x, p.y = y;
            CK((cudaError_t)(bytes == 2 ? forward<__half>(p, last, s) : forward<float>(p, last, s)));
            CK(cudaStreamSynchronize(s));
            CK(cudaFree(x));
            CK(cudaFree(y));
            CK(cudaFree(w));
        }
}

#ifdef TIMELINE_DEFINE
// The seed shape's forward, one layout and dtype, in a graph of `sets` chained launches over
// rotating sets: per launch (median over the launches of 5 replays) the release (first
// block's start after the wait), the spread of block starts, the span to the last block's
// end, the gap from that end to the next launch's release, and the blocks' own cycles.
template <typename T> void timeline_case(const char *name, bool last, cudaStream_t s) {
    const int B = 1, D = 64, L = 2048, K = 4;
    const size_t n = (size_t)B * D * L;
    T *w = upload(random_values<T>((size_t)D * K, 7, 0.5f));
    hipconv_conv1d_params p = forward_params(B, D, L, K, last, w);
    const int sets = rotating_sets(2.0 * n * sizeof(T));
    std::vector<T *> xs(sets), ys(sets);
    for (int r = 0; r < sets; ++r) {
        xs[r] = upload(random_values<T>(n, 3, 1.f));
        CK(cudaMalloc(&ys[r], n * sizeof(T)));
    }
    const double us = graph_median_us(s, sets, 20, [&](int r) {
        p.x = xs[r], p.y = ys[r];
        CK((cudaError_t)forward<T>(p, last, s));
    });
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    for (int r = 0; r < sets; ++r) {
        p.x = xs[r], p.y = ys[r];
        CK((cudaError_t)forward<T>(p, last, s));
    }
    CK(cudaStreamEndCapture(s, &graph));
    CK(cudaGraphInstantiate(&exec, graph, 0));
    for (int i = 0; i < 3; ++i) CK(cudaGraphLaunch(exec, s));
    std::vector<double> release, spread, span, gap, period, first_end, cycles;
    bool ordered = true;
    unsigned blocks_per_launch = 0;
    for (int replay = 0; replay < 5; ++replay) {
        const unsigned zero = 0;
        CK(cudaStreamSynchronize(s));
        CK(cudaMemcpyToSymbol(g_timeline_count, &zero, sizeof(zero)));
        CK(cudaGraphLaunch(exec, s));
        CK(cudaStreamSynchronize(s));
        unsigned count = 0;
        CK(cudaMemcpyFromSymbol(&count, g_timeline_count, sizeof(count)));
        std::vector<TimelineRecord> rec(count);
        CK(cudaMemcpyFromSymbol(rec.data(), g_timeline, count * sizeof(TimelineRecord)));
        std::sort(rec.begin(), rec.end(), [](const TimelineRecord &a, const TimelineRecord &b) { return a.start < b.start; });
        blocks_per_launch = count / sets;
        std::vector<double> rel(sets), end(sets);
        for (int l = 0; l < sets; ++l) {
            unsigned long long lo = ~0ull, hi_start = 0, lo_end = ~0ull, hi = 0;
            for (unsigned b = 0; b < blocks_per_launch; ++b) {
                const TimelineRecord &r = rec[(size_t)l * blocks_per_launch + b];
                lo = std::min(lo, r.start), hi_start = std::max(hi_start, r.start);
                lo_end = std::min(lo_end, r.end), hi = std::max(hi, r.end);
                cycles.push_back((double)r.cycles);
            }
            rel[l] = (double)lo, end[l] = (double)hi;
            if (l > 0 && lo < end[l - 1] - 0.5) ordered = false;
            if (l > 0 && l + 1 < sets) {
                spread.push_back((double)(hi_start - lo));
                span.push_back((double)(hi - lo));
                first_end.push_back((double)(lo_end - lo));
            }
        }
        for (int l = 1; l + 1 < sets; ++l) gap.push_back(rel[l + 1] - end[l]), period.push_back(rel[l + 1] - rel[l]);
    }
    auto median = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        return v.empty() ? 0.0 : v[v.size() / 2];
    };
    printf("timeline %-4s %-13s %d launches x %u blocks: %.3f us/launch (events); ns: period %.0f, release spread "
           "%.0f, first block end %.0f, span %.0f, gap %.0f; block cycles %.0f%s\n",
           name, last ? "channel_last" : "channel_first", sets, blocks_per_launch, us, median(period), median(spread),
           median(first_end), median(span), median(gap), median(cycles), ordered ? "" : " (launches overlap)");
    CK(cudaGraphExecDestroy(exec));
    CK(cudaGraphDestroy(graph));
    for (int r = 0; r < sets; ++r) { CK(cudaFree(xs[r])); CK(cudaFree(ys[r])); }
    CK(cudaFree(w));
}
#endif

// argv[1] = "forward": the forward cases only; "profile": profile_seed only.
int main(int argc, char **argv) {
    const bool updates = !(argc > 1 && std::string(argv[1]) == "forward");
    if (argc > 1 && std::string(argv[1]) == "profile") {
        profile_seed(0);
        return 0;
    }
#ifdef TIMELINE_DEFINE
    if (argc > 1 && std::string(argv[1]) == "timeline") {  // the seed shape's timelines (timeline_build.sh)
        cudaStream_t s;
        CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
        for (int round = 0; round < 2; ++round)
            for (bool last : {false, true}) {
                timeline_case<__half>("f16", last, s);
                timeline_case<float>("f32", last, s);
            }
        CK(cudaStreamDestroy(s));
        return 0;
    }
#endif
    if (argc > 1 && std::string(argv[1]) == "seed") {  // the seed shape's forward cases only (for nsys)
        cudaStream_t s;
        CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
        for (bool last : {false, true}) {
            forward_case<__half>("f16", 1, 64, 2048, 4, last, s);
            forward_case<float>("f32", 1, 64, 2048, 4, last, s);
        }
        CK(cudaStreamDestroy(s));
        return 0;
    }
    const char *env = getenv("HIPCONV_CHAINED_LAUNCH");
    printf("HIPCONV_CHAINED_LAUNCH=%s\n", env ? env : "(unset)");
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    for (bool last : {false, true}) {
        forward_case<__half>("f16", 1, 64, 2048, 4, last, s);
        forward_case<float>("f32", 1, 64, 2048, 4, last, s);
        forward_case<__half>("f16", 4, 2048, 2048, 4, last, s);
        forward_case<float>("f32", 4, 2048, 2048, 4, last, s);
        forward_case<__half>("f16", 8, 4096, 2048, 4, last, s);
        forward_case<__half>("f16", 3, 100, 1001, 3, last, s);  // odd sizes: the tail paths
        forward_case<__half>("f16", 2, 2000, 37, 4, last, s);   // channel groups past 128
        forward_case<float>("f32", 5, 12, 3001, 2, last, s);
        // Mid sizes (2^22 .. 2^25 elements): channel-last's word kernel at 8 (16-bit) or 4
        // (f32) rows a thread.
        forward_case<__half>("f16", 2, 1024, 4096, 4, last, s);
        forward_case<float>("f32", 16, 512, 1024, 3, last, s);
        forward_case<__half>("f16", 7, 776, 1000, 2, last, s);
        forward_case<__half>("f16", 1, 64, 65536, 4, last, s);
        forward_case<float>("f32", 1, 64, 65536, 4, last, s);
    }
    for (int tokens : {1, 4})
        for (bool circular : {false, true}) {
            if (!updates) break;
            update_case<__half>("f16", tokens, circular, s);
            update_case<float>("f32", tokens, circular, s);
        }
    CK(cudaStreamDestroy(s));
    return 0;
}
