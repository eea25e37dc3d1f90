// Dev bench of hip/conv1d/update.hip alone, for comparing builds of the decode update
// without the library build: the bench's update rows (batch 256, dim 4096, width 4,
// state_len 3; 1 and 4 tokens; shifting and circular; without and with bias + SiLU; f16,
// bf16, f32; x and y
// channel-first, as examples/bench times them), each as the median of 8 rounds of 30
// launches over rotating sets (x, y, state) past the 50 MB L2, and a hash of y and the
// new state after one launch on fixed inputs, so that two builds can be compared bitwise.
// INDICES=1 passes state_indices (the slots reversed), as the library's bench does.
// The library's bench (examples/bench) is the number of record; this is for comparing
// variants within one device call. Build here (UPDATE_DIR: the folder holding the
// update.hip to measure) and run on the GPU:
//   nvcc -std=c++17 -O3 -x cu -DHIPCONV_PLATFORM_NVIDIA -gencode arch=compute_90a,code=sm_90a \
//     -Ihip/include -Ihip/common -I$UPDATE_DIR scripts/dev/update_bench.cu -o update_bench \
//     -L$(dirname $(which nvcc))/../lib -cudart static
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>
#include "update.hip"
using namespace hipconv;
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA %s at %d\n", cudaGetErrorString(e_), __LINE__); exit(1);} } while (0)

constexpr int kB = 256, kD = 4096, kW = 4, kL = 3;

uint64_t fnv(const std::vector<uint8_t> &bytes, uint64_t h = 1469598103934665603ull) {
    for (uint8_t b : bytes) h = (h ^ b) * 1099511628211ull;
    return h;
}

// Random bits for a buffer of `bytes`, as finite values of element size `size` (exponent
// kept small so that 16-bit types stay finite).
void fill_random(std::vector<uint8_t> &v, int size) {
    for (size_t i = 0; i < v.size(); i += size) {
        const float f = (rand() % 2001) / 1000.f - 1.f;
        if (size == 4) memcpy(&v[i], &f, 4);
        else {
            const uint16_t bits = size == 2 ? (uint16_t)(rand() & 0x3bff) : 0;
            memcpy(&v[i], &bits, 2);
        }
    }
}

// INDICES=1: slots through state_indices, in reversed order (as examples/bench times the rows).
bool with_indices() {
    const char *v = getenv("INDICES");
    return v != nullptr && v[0] == '1';
}

template <typename T> void row(const char *name, int tokens, bool circular, bool silu) {
    const size_t xn = (size_t)kB * kD * tokens, sn = (size_t)kB * kD * kL;
    const int sets = std::max(2, (int)(150e6 / ((2 * xn + 2 * sn) * sizeof(T))));
    std::vector<T *> xs(sets), ys(sets), ss(sets);
    T *w, *bias;
    int32_t *cache, *status, *indices;
    CK(cudaMalloc(&w, (size_t)kD * kW * sizeof(T)));
    CK(cudaMalloc(&bias, (size_t)kD * sizeof(T)));
    CK(cudaMalloc(&cache, kB * sizeof(int32_t)));
    CK(cudaMalloc(&indices, kB * sizeof(int32_t)));
    CK(cudaMalloc(&status, 4 * sizeof(int32_t)));
    CK(cudaMemset(status, 0, 4 * sizeof(int32_t)));
    std::vector<uint8_t> hw((size_t)kD * kW * sizeof(T)), hb((size_t)kD * sizeof(T)), hx(xn * sizeof(T)),
        hs(sn * sizeof(T));
    srand(11);
    fill_random(hw, sizeof(T)), fill_random(hb, sizeof(T)), fill_random(hx, sizeof(T)), fill_random(hs, sizeof(T));
    std::vector<int32_t> hc(kB);
    for (int b = 0; b < kB; ++b) hc[b] = (b * 7) % 13;
    CK(cudaMemcpy(w, hw.data(), hw.size(), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(bias, hb.data(), hb.size(), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(cache, hc.data(), kB * 4, cudaMemcpyHostToDevice));
    std::vector<int32_t> reversed(kB);
    for (int b = 0; b < kB; ++b) reversed[b] = kB - 1 - b;
    CK(cudaMemcpy(indices, reversed.data(), kB * 4, cudaMemcpyHostToDevice));
    for (int r = 0; r < sets; ++r) {
        CK(cudaMalloc(&xs[r], xn * sizeof(T)));
        CK(cudaMalloc(&ys[r], xn * sizeof(T)));
        CK(cudaMalloc(&ss[r], sn * sizeof(T)));
        CK(cudaMemcpy(xs[r], hx.data(), hx.size(), cudaMemcpyHostToDevice));
        CK(cudaMemcpy(ss[r], hs.data(), hs.size(), cudaMemcpyHostToDevice));
        CK(cudaMemset(ys[r], 0xff, xn * sizeof(T)));
    }
    hipconv_conv1d_update_params p{};
    p.conv.w = w, p.conv.bias = silu ? bias : nullptr, p.conv.batch = kB, p.conv.dim = kD, p.conv.seqlen = tokens;
    p.conv.width = kW, p.conv.silu = silu;
    p.conv.x_batch_stride = p.conv.y_batch_stride = (int64_t)kD * tokens;
    p.conv.x_dim_stride = p.conv.y_dim_stride = tokens, p.conv.x_seq_stride = p.conv.y_seq_stride = 1;
    p.conv_state = nullptr, p.n_slots = kB, p.state_len = kL, p.cache_seqlens = circular ? cache : nullptr;
    p.status = status;
    p.state_indices = with_indices() ? indices : nullptr;
    auto launch = [&](int r) {
        p.conv.x = xs[r], p.conv.y = ys[r], p.conv_state = ss[r];
        CK((cudaError_t)launch_conv1d_update<T>(p, 0));
    };
    launch(0);
    CK(cudaDeviceSynchronize());
    std::vector<uint8_t> hy(xn * sizeof(T));
    CK(cudaMemcpy(hy.data(), ys[0], hy.size(), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hs.data(), ss[0], hs.size(), cudaMemcpyDeviceToHost));
    const uint64_t hash = fnv(hs, fnv(hy));
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    std::vector<float> ts;
    for (int round = 0; round < 9; ++round) {
        const int reps = 30;
        CK(cudaEventRecord(a));
        for (int i = 0; i < reps; ++i) launch(i % sets);
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        float ms;
        CK(cudaEventElapsedTime(&ms, a, b));
        if (round) ts.push_back(ms * 1000 / reps);
    }
    std::sort(ts.begin(), ts.end());
    const double bytes = (2.0 * xn + 2.0 * sn) * sizeof(T);
    const double us = ts[ts.size() / 2];
    printf("update %-9s tokens %d %-4s %-5s %-7s %8.2f us  %7.1f GB/s  hash %016llx\n",
           circular ? "circular" : "shifting", tokens, silu ? "silu" : "", name, with_indices() ? "indices" : "", us,
           bytes / us / 1e3, (unsigned long long)hash);
    for (int r = 0; r < sets; ++r) cudaFree(xs[r]), cudaFree(ys[r]), cudaFree(ss[r]);
    cudaFree(w), cudaFree(bias), cudaFree(cache), cudaFree(status), cudaFree(indices);
    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
}

template <typename T> void rows(const char *name) {
    for (int tokens : {1, 4})
        for (bool circular : {false, true})
            for (bool silu : {false, true}) row<T>(name, tokens, circular, silu);
}

// argv[1], if given: only the rows of that dtype (f16, bf16, f32).
int main(int argc, char **argv) {
    const std::string only = argc > 1 ? argv[1] : "";
    if (only.empty() || only == "f16") rows<__half>("f16");
    if (only.empty() || only == "bf16") rows<__nv_bfloat16>("bf16");
    if (only.empty() || only == "f32") rows<float>("f32");
    return 0;
}
