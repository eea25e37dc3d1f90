#!/bin/bash
# Call 4: tests/fuzz_sizes.rs with the chunked, packed and decode rounds added: the default
# 60 rounds and 300 more, then memcheck and racecheck at 12 rounds as
# scripts/gpu-run.sh runs them, each timed.
cd .devbin && xz -dk fuzz_sizes.xz && chmod +x fuzz_sizes
export HIPCONV_REQUIRE_GPU=1
{
for r in 60 300; do s=$(date +%s)
  HIPCONV_FUZZ_ROUNDS=$r timeout 240 ./fuzz_sizes --nocapture > /tmp/f$r.log 2>&1; rc=$?
  echo "fuzz_sizes $r rounds exit $rc ($(( $(date +%s) - s )) s): $(grep -E '^test result' /tmp/f$r.log) $(grep -o 'HIPCONV_TEST_SEED=[0-9]*' /tmp/f$r.log)"
  [ $rc -eq 0 ] || grep -A4 panicked /tmp/f$r.log | head
done
for tool in memcheck racecheck; do s=$(date +%s)
  HIPCONV_FUZZ_ROUNDS=12 timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 ./fuzz_sizes --nocapture > /tmp/$tool.log 2>&1; rc=$?
  echo "$tool 12 rounds exit $rc ($(( $(date +%s) - s )) s): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|test result' /tmp/$tool.log | tr '\n' ' ') $(grep -o 'HIPCONV_TEST_SEED=[0-9]*' /tmp/$tool.log)"
done
} 2>&1 | tee $OUT/call4.txt
