// Shared by the conv3d dev benches (conv3d_seed_bench.cu, depthwise_bench.cu,
// implicit_bench.cu): random inputs in [-1, 1], 16-bit element bits (f16 / bf16, rounded to
// nearest), and one case's device buffers: `sets` rotating (x, y) pairs, x a copy of the
// host input and y NaN-poisoned, plus the weights, bias and frames (nullptr where absent),
// all freed when the case ends; and the 16-bit benches' loop over their cases.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "graph_timing.h"

static float frand() { return (rand() % 20001) / 10000.f - 1.f; }

// v rounded to f16 (or bf16), as bits.
static uint16_t bits_of(float v, bool bf16) {
    uint16_t r;
    if (bf16) {
        const __nv_bfloat16 b = __float2bfloat16_rn(v);
        memcpy(&r, &b, 2);
    } else {
        const __half h = __float2half_rn(v);
        memcpy(&r, &h, 2);
    }
    return r;
}

static float value_of(uint16_t bits, bool bf16) {
    if (bf16) {
        const uint32_t u = (uint32_t)bits << 16;
        float f;
        memcpy(&f, &u, 4);
        return f;
    }
    __half h;
    memcpy(&h, &bits, 2);
    return __half2float(h);
}

// A device copy of `bytes` of host memory (nullptr when there is nothing to copy).
static void *upload(const void *host, size_t bytes) {
    if (host == nullptr || bytes == 0) return nullptr;
    void *d;
    CK(cudaMalloc(&d, bytes));
    CK(cudaMemcpy(d, host, bytes, cudaMemcpyHostToDevice));
    return d;
}

struct CaseBuffers {
    std::vector<void *> xs, ys;  // the rotating sets
    void *w = nullptr, *bias = nullptr, *frames = nullptr;

    CaseBuffers(int sets, const void *x, size_t x_bytes, size_t y_bytes) : xs(sets), ys(sets) {
        for (int s = 0; s < sets; ++s) {
            xs[s] = upload(x, x_bytes);
            CK(cudaMalloc(&ys[s], y_bytes));
            CK(cudaMemset(ys[s], 0xff, y_bytes));  // NaN
        }
    }
    CaseBuffers(const CaseBuffers &) = delete;
    CaseBuffers &operator=(const CaseBuffers &) = delete;
    ~CaseBuffers() {
        for (void *d : xs) CK(cudaFree(d));
        for (void *d : ys) CK(cudaFree(d));
        for (void *d : {w, bias, frames})
            if (d != nullptr) CK(cudaFree(d));
    }
};

// Runs every case (only the timed ones with --time-only as argv[2], only the others with
// --check-only) through run_case(case, &us) -> relative norm error (negative: not checked),
// prints a line per case labelled argv[1], and returns the exit status: 0 when every checked
// error is under 1e-3 (f16) / 1e-2 (bf16); the last line counts the cases left unchecked.
template <typename Case, size_t kCount, typename RunCase>
int run_16bit_cases(int argc, char **argv, const Case (&cases)[kCount], const RunCase &run_case) {
    const char *label = argc > 1 ? argv[1] : "variant";
    const bool only_time = argc > 2 && strcmp(argv[2], "--time-only") == 0;
    const bool only_check = argc > 2 && strcmp(argv[2], "--check-only") == 0;
    bool ok = true;
    int unchecked = 0;
    for (const Case &k : cases) {
        if ((only_time && !k.time) || (only_check && k.time)) continue;
        // CASES=TEXT in the environment: only the cases whose name contains TEXT.
        if (getenv("CASES") != nullptr && strstr(k.name, getenv("CASES")) == nullptr) continue;
        double us = 0;
        const double err = run_case(k, &us);
        char error[32] = "unchecked";
        if (err >= 0) snprintf(error, sizeof error, "err %.2e", err);
        if (err < 0) ++unchecked;
        else ok = ok && err < (k.bf16 ? 1e-2 : 1e-3);
        if (k.time)
            printf("%-10s %-28s %-12s %8.2f us\n", label, k.name, error, us);
        else
            printf("%-10s %-28s %s\n", label, k.name, error);
    }
    printf("%s: %s (%d unchecked)\n", label, ok ? "every checked case passed" : "CHECK FAILED", unchecked);
    return ok ? 0 : 1;
}
