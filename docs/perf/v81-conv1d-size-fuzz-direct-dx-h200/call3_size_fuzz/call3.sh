#!/bin/bash
# Call 3: tests/fuzz_sizes.rs as committed (a quarter of the rounds in the top four powers
# of two): the default 40 rounds and 120 more, then memcheck and racecheck at 12 rounds as
# scripts/gpu-run.sh runs them, each timed.
cd .devbin && xz -dk fuzz_sizes.xz && chmod +x fuzz_sizes
export HIPCONV_REQUIRE_GPU=1
{
for r in 40 120; do s=$(date +%s)
  HIPCONV_FUZZ_ROUNDS=$r timeout 200 ./fuzz_sizes --nocapture > /tmp/f$r.log 2>&1; rc=$?
  echo "fuzz_sizes $r rounds exit $rc ($(( $(date +%s) - s )) s): $(grep -E '^test result' /tmp/f$r.log) $(grep -o 'HIPCONV_TEST_SEED=[0-9]*' /tmp/f$r.log)"
  [ $rc -eq 0 ] || grep -A4 panicked /tmp/f$r.log | head
done
for tool in memcheck racecheck; do s=$(date +%s)
  HIPCONV_FUZZ_ROUNDS=12 timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 ./fuzz_sizes > /tmp/$tool.log 2>&1; rc=$?
  echo "$tool 12 rounds exit $rc ($(( $(date +%s) - s )) s): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|test result' /tmp/$tool.log | tr '\n' ' ') $(grep -o 'HIPCONV_TEST_SEED=[0-9]*' /tmp/$tool.log)"
done
} 2>&1 | tee $OUT/call3.txt
