// Dev bench of conv3d's transpose (hip/conv3d/transpose.hip) alone, the relayout in front of
// an NCDHW ImplicitGemm forward: each case checked bit for bit against a host transpose
// (NaN-poisoned outputs; odd sizes, partial tiles, misaligned pointers: the element kernel),
// and the bench's NCDHW x shapes timed as examples/bench times a forward (a graph of K
// transposes over K rotating (src, dst) sets past the L2, 3 warm-up replays, median of 30
// replays / K) beside a device-to-device copy of the same bytes timed the same way.
// Build here, one binary per variant (SRC: a folder holding the hip/ tree to measure):
//   nvcc -std=c++17 -O3 -DHIPCONV_PLATFORM_NVIDIA -gencode arch=compute_90a,code=sm_90a \
//     -I$SRC/hip/include -I$SRC/hip/common -Iscripts/dev -x cu scripts/dev/transpose_bench.cu \
//     -x cu $SRC/hip/conv3d/transpose.hip -o transpose_bench
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "graph_timing.h"
#include "hipconv/conv3d.h"

struct Case {
    const char *name;
    int element_bytes;  // 2 (f16) or 4 (f32)
    int64_t batch;
    int32_t rows, cols;
    int misalign;  // elements added to both pointers
    bool time;
};

static hipconv_status_t transpose(int element_bytes, const hipconv_conv3d_transpose_params &p, cudaStream_t s) {
    return element_bytes == 2 ? hipconv_conv3d_transpose_f16(&p, (hipconv_stream_t)s)
                              : hipconv_conv3d_transpose_f32(&p, (hipconv_stream_t)s);
}

// Returns true when the device result equals the host transpose bit for bit.
static bool run_case(const Case &k, const char *label) {
    const size_t n = (size_t)k.batch * k.rows * k.cols, eb = k.element_bytes;
    const size_t bytes = (n + k.misalign) * eb;
    std::vector<unsigned char> host(bytes), got(bytes), want(bytes, 0xff);
    for (auto &v : host) v = (unsigned char)(rand() & 0xff);
    const unsigned char *src_h = host.data() + k.misalign * eb;
    for (int64_t b = 0; b < k.batch; ++b)
        for (int32_t r = 0; r < k.rows; ++r)
            for (int32_t c = 0; c < k.cols; ++c)
                memcpy(&want[(k.misalign + (b * k.cols + c) * k.rows + r) * eb],
                       &src_h[((b * k.rows + r) * k.cols + c) * eb], eb);
    const int sets = k.time ? std::max(2, (int)(150e6 / (2.0 * bytes)) + 1) : 1;
    std::vector<unsigned char *> srcs(sets), dsts(sets);
    for (int s = 0; s < sets; ++s) {
        CK(cudaMalloc(&srcs[s], bytes));
        CK(cudaMalloc(&dsts[s], bytes));
        CK(cudaMemcpy(srcs[s], host.data(), bytes, cudaMemcpyHostToDevice));
        CK(cudaMemset(dsts[s], 0xff, bytes));
    }
    cudaStream_t stream;
    CK(cudaStreamCreate(&stream));
    auto params = [&](int s) {
        hipconv_conv3d_transpose_params p{};
        p.src = srcs[s] + k.misalign * eb, p.dst = dsts[s] + k.misalign * eb;
        p.batch = k.batch, p.rows = k.rows, p.cols = k.cols;
        return p;
    };
    CK((cudaError_t)transpose(k.element_bytes, params(0), stream));
    CK(cudaStreamSynchronize(stream));
    CK(cudaMemcpy(got.data(), dsts[0], bytes, cudaMemcpyDeviceToHost));
    const bool ok = memcmp(got.data() + k.misalign * eb, want.data() + k.misalign * eb, n * eb) == 0;
    if (k.time) {
        const double us = graph_median_us(stream, sets, 30, [&](int s) {
            const hipconv_conv3d_transpose_params p = params(s);
            CK((cudaError_t)transpose(k.element_bytes, p, stream));
        });
        const double copy_us = graph_median_us(stream, sets, 30, [&](int s) {
            CK(cudaMemcpyAsync(dsts[s], srcs[s], n * eb, cudaMemcpyDeviceToDevice, stream));
        });
        const double gbps = 2.0 * n * eb / us * 1e-3, copy_gbps = 2.0 * n * eb / copy_us * 1e-3;
        printf("%-10s %-34s %s  %8.2f us  %6.0f GB/s  copy %8.2f us (%.0f GB/s)  %.1f%% of copy\n", label, k.name,
               ok ? "exact" : "WRONG", us, gbps, copy_us, copy_gbps, 100.0 * gbps / copy_gbps);
    } else {
        printf("%-10s %-34s %s\n", label, k.name, ok ? "exact" : "WRONG");
    }
    for (int s = 0; s < sets; ++s) {
        CK(cudaFree(srcs[s]));
        CK(cudaFree(dsts[s]));
    }
    CK(cudaStreamDestroy(stream));
    return ok;
}

int main(int argc, char **argv) {
    const char *label = argc > 1 ? argv[1] : "variant";
    // name, element bytes, batch, rows, cols, misalign, time
    const Case cases[] = {
        {"VAE 96ch x (96 x 4*480*832) f16", 2, 1, 96, 4 * 480 * 832, 0, true},
        {"384ch x (384 x 4*120*208) f16", 2, 1, 384, 4 * 120 * 208, 0, true},
        {"U-Net 128ch x (2 x 128 x 32^3) f16", 2, 2, 128, 32 * 32 * 32, 0, true},
        {"U-Net 32ch x (2 x 32 x 64^3) f16", 2, 2, 32, 64 * 64 * 64, 0, true},
        {"VAE-like f32 (96 x 4*240*416)", 4, 1, 96, 4 * 240 * 416, 0, true},
        {"partial tiles f16 (3 x 72 x 1000)", 2, 3, 72, 1000, 0, false},
        {"partial tiles f32 (2 x 36 x 44)", 4, 2, 36, 44, 0, false},
        {"one chunk f16 (8 x 8)", 2, 1, 8, 8, 0, false},
        {"odd rows f16 (7 x 64)", 2, 2, 7, 64, 0, false},
        {"odd cols f32 (32 x 13)", 4, 1, 32, 13, 0, false},
        {"misaligned f16 (64 x 64)", 2, 1, 64, 64, 1, false},
        {"misaligned f32 (32 x 96)", 4, 2, 32, 96, 3, false},
        {"weights f16 (96 x 96*27)", 2, 96, 96, 27, 0, false},
    };
    bool ok = true;
    for (const Case &k : cases) ok = run_case(k, label) && ok;
    printf("%s: %s\n", label, ok ? "all checks passed" : "CHECK FAILED");
    return ok ? 0 : 1;
}
