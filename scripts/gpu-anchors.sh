#!/usr/bin/env bash
# One device call for the record (copied to dist/anchors.sh by scripts/gpu-dist.sh): from the
# repository root on the accelerator machine, with dist/ and .anchors/ carried
# (../shared/anchors/stage.sh stages the kit):   bash dist/anchors.sh
# The reference kernel (Dao-AILab/causal-conv1d, from the kit) builds in the background
# while the whole test suite runs with the GPU required, compute-sanitizer memcheck runs
# over the forward, update, varlen and states tests, memcheck and racecheck over the
# backward's, and the examples run; then the bench
# (Auto rows, bias + SiLU rows, state rows) and the kit's compare_dao.py, so the side-by-side
# comes from the same call; then conv3d's bench table and the kit's compare_conv3d.py (cuDNN)
# through dist/conv3d.sh --bench-only. $OUT gets bench.json, anchors.json, side_by_side.json,
# bench.log, conv3d_bench.json, conv3d_anchors.json, conv3d_side_by_side.json and logs.tgz
# (everything else).
set -uo pipefail
root=$PWD
OUT=${OUT:-/tmp/hipconv-anchors}
mkdir -p "$OUT"
mkdir -p /tmp/f
bash scripts/dao-build.sh > /tmp/f/dao_build.log 2>&1 &
build=$!
export HIPCONV_REQUIRE_GPU=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee /tmp/f/gpu.txt; date -u | tee -a /tmp/f/gpu.txt
cd dist
for t in tests/*; do
  n=$(basename "${t%-*}"); "$t" > /tmp/f/test-$n.log 2>&1; rc=$?
  echo "test $n exit $rc: $(grep -E '^test result' /tmp/f/test-$n.log | tail -1)"; [ $rc -eq 0 ] || grep -E "panicked|FAILED" /tmp/f/test-$n.log | head
done
for t in tests/forward-*; do
  timeout 240 compute-sanitizer --tool memcheck --error-exitcode 9 "$t" --test-threads=1 seed_shape_matches_reference_with_every_algorithm channel_last_is_the_same_function_as_channel_first edge_shapes_match_reference_f16 > /tmp/f/memcheck-forward.log 2>&1; echo "memcheck forward exit $?: $(grep -E 'ERROR SUMMARY|test result' /tmp/f/memcheck-forward.log | tr '\n' ' ')"
done
for t in tests/update-* tests/varlen-* tests/states-*; do
  n=$(basename "${t%-*}"); timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 "$t" --test-threads=1 > /tmp/f/memcheck-$n.log 2>&1; echo "memcheck $n exit $?: $(grep -E 'ERROR SUMMARY|test result' /tmp/f/memcheck-$n.log | tr '\n' ' ')"
done
# The backward's kernels (both layouts' fused paths, runs of tiles, packed batches, chunks, errors).
for t in tests/backward-* tests/backward_varlen-* tests/backward_chunked-* tests/backward_errors-*; do
  n=$(basename "${t%-*}")
  for tool in memcheck racecheck; do
    timeout 300 compute-sanitizer --tool $tool --error-exitcode 9 "$t" --test-threads=1 > /tmp/f/$tool-$n.log 2>&1; echo "$tool $n exit $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|test result' /tmp/f/$tool-$n.log | tr '\n' ' ')"
  done
done
examples/causal_conv1d_verify_host 2>&1 | grep -E "mismatches|valid|time per|backend" | head -8
examples/causal_conv1d --layout channel_last 2>&1 | grep -E "valid|time per" | head -3
examples/decode 2>&1 | grep -E "decode step|valid|error" | tail -3
examples/fit 2>&1 | tail -4
examples/fit --dtype bf16 --layout channel_last 2>&1 | tail -2
examples/conv3d_verify_host 2>&1 | grep -E "^==|mismatches|valid|time per" | head -30
examples/bench --family conv1d --auto-only --json /tmp/f/bench.json > /tmp/f/bench.log 2>&1; echo "bench exit $?"; cp /tmp/f/bench.json /tmp/f/bench.log "$OUT/"
cd "$root"
wait $build; tail -1 /tmp/f/dao_build.log
PYTHONUNBUFFERED=1 PYTHONPATH=/tmp/dao/causal-conv1d python3 .anchors/compare_dao.py --ours /tmp/f/bench.json --out /tmp/f > /tmp/f/compare.log 2>&1; echo "compare exit $?"
sed -n '/^copy GB/,$p' /tmp/f/compare.log | grep -v "missing (-%)"
cp /tmp/f/bench.json /tmp/f/anchors.json /tmp/f/side_by_side.json "$OUT/" 2>/dev/null
tar czf "$OUT/logs.tgz" --exclude=f/bench.json --exclude=f/anchors.json --exclude=f/side_by_side.json -C /tmp f
OUT="$OUT" bash dist/conv3d.sh --bench-only
