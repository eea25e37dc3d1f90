#!/bin/bash
# s63 call 1: the conv3d tests with the new random-shape test and the largest-error bound,
# the random shapes at 200 rounds, and under memcheck (12 rounds) and racecheck (3 rounds).
set -u
tar xJf .devbin/s63/d3.tar.xz
export HIPCONV_REQUIRE_GPU=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
cd dist
for t in tests/conv3d-* tests/conv3d_fuzz-* tests/conv3d_errors-* tests/conv3d_verify-*; do
  n=$(basename "${t%-*}"); s=$(date +%s)
  timeout 150 "$t" > $OUT/test-$n.log 2>&1; rc=$?
  echo "test $n exit $rc ($(( $(date +%s) - s )) s): $(grep -E '^test result' $OUT/test-$n.log | tail -1)"
  grep -E "panicked|FAILED|HIPCONV_TEST_SEED" $OUT/test-$n.log | head -8
done
s=$(date +%s)
HIPCONV_FUZZ_ROUNDS=200 timeout 150 tests/conv3d_fuzz-* > $OUT/fuzz200.log 2>&1; echo "fuzz 200 rounds exit $? ($(( $(date +%s) - s )) s)"
grep -E "panicked|test result|SEED" $OUT/fuzz200.log | head -6
s=$(date +%s)
HIPCONV_FUZZ_ROUNDS=12 timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 tests/conv3d_fuzz-* > $OUT/memcheck-fuzz.log 2>&1
echo "memcheck fuzz exit $? ($(( $(date +%s) - s )) s): $(grep -E 'ERROR SUMMARY|test result' $OUT/memcheck-fuzz.log | tr '\n' ' ')"
s=$(date +%s)
HIPCONV_FUZZ_ROUNDS=3 timeout 100 compute-sanitizer --tool racecheck --error-exitcode 9 tests/conv3d_fuzz-* > $OUT/racecheck-fuzz.log 2>&1
echo "racecheck fuzz exit $? ($(( $(date +%s) - s )) s): $(grep -E 'RACECHECK SUMMARY|test result' $OUT/racecheck-fuzz.log | tr '\n' ' ')"
grep -E "SEED" $OUT/memcheck-fuzz.log $OUT/racecheck-fuzz.log
