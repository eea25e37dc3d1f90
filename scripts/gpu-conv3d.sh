#!/usr/bin/env bash
# conv3d on the accelerator machine in one device call (copied to dist/conv3d.sh by
# scripts/gpu-dist.sh; from the repository root, dist/ and .anchors/ carried):
#     bash dist/conv3d.sh [--no-bench] [--no-sanitizer] [--bench-only] [--auto-only]
# The conv3d tests with the GPU required, compute-sanitizer memcheck and racecheck over them
# (the >2^31-element test excepted: minutes under the sanitizer; racecheck over one case per
# kernel path and a few random shapes), the example with and
# without verify_host, then the conv3d bench table and the kit's compare_conv3d.py (cuDNN
# through PyTorch) in the same call. $OUT gets conv3d_bench.json, conv3d_anchors.json,
# conv3d_side_by_side.json and conv3d_logs.tgz.
set -uo pipefail
root=$PWD
OUT=${OUT:-/tmp/hipconv-conv3d}
bench=1 sanitizer=1 tests=1 bench_args=
for arg in "$@"; do
  case $arg in
    --no-bench) bench=0 ;; --no-sanitizer) sanitizer=0 ;; --bench-only) tests=0 sanitizer=0 ;;
    --auto-only) bench_args=--auto-only ;;  # the bench's Auto row per case only (minutes shorter)
  esac
done
mkdir -p "$OUT" /tmp/c3
export HIPCONV_REQUIRE_GPU=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee /tmp/c3/gpu.txt; date -u | tee -a /tmp/c3/gpu.txt
cd dist
[ $tests = 1 ] && for t in tests/conv3d*; do
  n=$(basename "${t%-*}"); "$t" > /tmp/c3/test-$n.log 2>&1; rc=$?
  echo "test $n exit $rc: $(grep -E '^test result' /tmp/c3/test-$n.log | tail -1)"
  [ $rc -eq 0 ] || grep -E "panicked|FAILED|error" /tmp/c3/test-$n.log | head -12
  grep -E "^conv3d " /tmp/c3/test-$n.log | head -12
done
if [ $sanitizer = 1 ] && command -v compute-sanitizer >/dev/null; then
  # memcheck over every conv3d test but the >2^31-element one; racecheck (far slower on
  # shared-memory kernels) over the errors and verify tests and, of tests/conv3d.rs, the
  # test that runs each kernel path once.
  # The random shapes: 40 rounds under memcheck, 12 under racecheck.
  for t in tests/conv3d-* tests/conv3d_errors-* tests/conv3d_verify-* tests/conv3d_fuzz-*; do
    n=$(basename "${t%-*}")
    filter=; [ "$n" = conv3d ] && filter=every_kernel_path_once_for_the_sanitizers
    for tool in memcheck racecheck; do
      f=$filter; [ $tool = memcheck ] && f=
      rounds=40; [ $tool = racecheck ] && rounds=12
      HIPCONV_FUZZ_ROUNDS=$rounds timeout 300 compute-sanitizer --tool $tool --error-exitcode 9 "$t" --test-threads=1 $f > /tmp/c3/$tool-$n.log 2>&1
      echo "$tool $n ${f:-(all tests)} exit $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|test result' /tmp/c3/$tool-$n.log | tr '\n' ' ')"
    done
  done
fi
[ $tests = 1 ] && examples/conv3d_verify_host 2>&1 | grep -E "^==|launch|mismatches|valid|time per|backend" | head -40
[ $tests = 1 ] && examples/conv3d --padding 1 2>&1 | grep -E "^==|valid|time per" | head -20
[ $tests = 1 ] && examples/conv3d --layout ndhwc --dtype bf16 --cin 32 --cout 48 --depth 5 --height 33 --width 47 --padding causal 2>&1 | grep -E "^==|valid|time per" | head -20
if [ $bench = 1 ]; then
  examples/bench --family conv3d $bench_args --json /tmp/c3/bench.json > /tmp/c3/bench.log 2>&1; echo "bench exit $?"
  cat /tmp/c3/bench.log
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["rows"]=d.pop("conv3d_rows"); json.dump(d, open(sys.argv[2],"w"), indent=1)' /tmp/c3/bench.json "$OUT/conv3d_bench.json"
  cd "$root"
  PYTHONUNBUFFERED=1 python3 .anchors/compare_conv3d.py --ours "$OUT/conv3d_bench.json" --out /tmp/c3 > /tmp/c3/compare.log 2>&1; echo "compare exit $?"
  sed -n '/^| case/,$p' /tmp/c3/compare.log
  cp /tmp/c3/conv3d_anchors.json /tmp/c3/conv3d_side_by_side.json "$OUT/" 2>/dev/null
fi
cd "$root"
tar czf "$OUT/conv3d_logs.tgz" -C /tmp c3
