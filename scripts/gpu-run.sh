#!/usr/bin/env bash
# Runs on the accelerator machine (copied to dist/run.sh by scripts/gpu-dist.sh): every
# test binary with the GPU required, a memory check of the kernels, the examples, then
# the benchmark and its PyTorch baselines (skip both with HIPCONV_SKIP_BENCH=1, the
# baselines alone with HIPCONV_SKIP_TORCH=1), and with HIPCONV_PROFILE=1 hardware counters
# of the fast paths (ncu).
# The full log goes to $OUT/suite.log (the device tool's folder) or /tmp/hipconv-gpu-run;
# stdout carries each step's tail and the verdict.
set -uo pipefail
cd "$(dirname "$0")"
out=${OUT:-/tmp/hipconv-gpu-run}
mkdir -p "$out"
export HIPCONV_REQUIRE_GPU=1
status=0
log="$out/suite.log"
: >"$log"
step() {  # step NAME COMMAND...: runs, appends to the log, prints its tail, records failure
    local name=$1; shift
    local part="$out/.part"
    echo "=== $name: $*" | tee -a "$log"
    "$@" >"$part" 2>&1
    local rc=$?
    cat "$part" >>"$log"
    case $name in
    bench*) cat "$part" ;;
    example-decode*) grep -E "^step +[0-9] |decode step|prefill|valid|MISMATCH|error" "$part" | tail -n 14 ;;
    *) grep -E "^test result|skipped|panicked|FAILED|SUMMARY|mismatches|valid|time per|backend:" "$part" | tail -n 12 ;;
    esac
    rm -f "$part"
    echo "=== $name: exit $rc" | tee -a "$log"
    [ $rc -eq 0 ] || status=1
}

nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv | tee "$out/gpu.txt"
date -u +"run at %Y-%m-%dT%H:%M:%SZ" | tee -a "$out/gpu.txt"
for t in tests/*; do
    step "test-$(basename "${t%-*}")" "$t"
done
if command -v compute-sanitizer >/dev/null; then
    for t in tests/stages-*; do
        step memcheck-stages compute-sanitizer --tool memcheck --error-exitcode 9 "$t" --test-threads=1
        step racecheck-stages compute-sanitizer --tool racecheck --error-exitcode 9 "$t" --test-threads=1
    done
    # The state passes (initial states applied, final states written) around both fast paths.
    for t in tests/states-*; do
        step memcheck-states compute-sanitizer --tool memcheck --error-exitcode 9 "$t" --test-threads=1
    done
    # Decode updates (shifting, circular, padding rows, bad slots) and packed batches (bad
    # cu_seqlens): bad indices must be reported, never followed. Then random boundaries.
    for t in tests/update-*; do
        step memcheck-update compute-sanitizer --tool memcheck --error-exitcode 9 "$t" --test-threads=1
    done
    for t in tests/varlen-*; do
        step memcheck-varlen compute-sanitizer --tool memcheck --error-exitcode 9 "$t" --test-threads=1
    done
    for t in tests/fuzz-*; do
        step memcheck-fuzz env HIPCONV_FUZZ_ROUNDS=20 compute-sanitizer --tool memcheck --error-exitcode 9 "$t"
    done
    # conv1d at random sizes across the plans, up to 2^25 elements (forward, backward, chunks,
    # packed batches, decode).
    for t in tests/fuzz_sizes-*; do
        for tool in memcheck racecheck; do
            step "$tool-fuzz_sizes" env HIPCONV_FUZZ_ROUNDS=12 compute-sanitizer --tool $tool --error-exitcode 9 "$t"
        done
    done
    # The backward's kernels: both layouts' fused paths, runs of tiles carrying their heads,
    # packed batches, chunked sequences and rejected inputs.
    for t in tests/backward-* tests/backward_varlen-* tests/backward_chunked-* tests/backward_errors-*; do
        for tool in memcheck racecheck; do
            step "$tool-$(basename "${t%-*}")" compute-sanitizer --tool $tool --error-exitcode 9 "$t" --test-threads=1
        done
    done
    # The forward kernels (Direct's streaming and tiled kernels, FusedGemm; vector and element
    # paths, small and large problems, rows ending inside vectors, both layouts, bias + SiLU).
    for t in tests/forward-*; do
        for tool in memcheck racecheck; do
            step "$tool-forward" compute-sanitizer --tool $tool --error-exitcode 9 "$t" --test-threads=1 \
                seed_shape_matches_reference_with_every_algorithm channel_last_is_the_same_function_as_channel_first \
                edge_shapes_match_reference_f16
        done
    done
fi
step example-verify-host examples/causal_conv1d_verify_host
step example examples/causal_conv1d
step example-large examples/causal_conv1d --batch 4 --dim 300 --seqlen 5000 --width 8
step example-direct examples/causal_conv1d --algorithm direct
step example-fused examples/causal_conv1d --algorithm fused_gemm
step example-decode examples/decode
step example-decode-wide examples/decode --batch 3 --dim 300 --width 33 --prompt 517 --tokens 8 --silu
step example-fit examples/fit
step example-fit-bf16 examples/fit --dtype bf16 --layout channel_last
if [ "${HIPCONV_SKIP_BENCH:-0}" != 1 ]; then
    step bench examples/bench --json "$out/bench.json"
    [ -f "$out/bench.json" ] && [ "${HIPCONV_SKIP_TORCH:-0}" != 1 ] && step bench-torch python3 compare_torch.py --ours "$out/bench.json" --json "$out/torch.json"
fi
if [ "${HIPCONV_PROFILE:-0}" = 1 ] && command -v ncu >/dev/null; then
    # Hardware counters of one forward per fast path and layout at (8,4096,2048,4) f16:
    # DRAM throughput, occupancy, warp stalls (docs/PERFORMANCE.md quotes them).
    for layout in channel_first channel_last; do
        for algorithm in direct fused_gemm; do
            step "ncu-$algorithm-$layout" ncu --clock-control none --kernel-name regex:conv1d --launch-count 1 \
                --section SpeedOfLight --section Occupancy --section WarpStateStats \
                --section MemoryWorkloadAnalysis examples/causal_conv1d --batch 8 --dim 4096 --seqlen 2048 \
                --width 4 --reps 1 --algorithm $algorithm --layout $layout
        done
    done
    sed -n '/^=== ncu-/,$p' "$log" >"$out/ncu.txt"
fi
echo "=== overall: $([ $status -eq 0 ] && echo PASSED || echo FAILED)"
exit $status
