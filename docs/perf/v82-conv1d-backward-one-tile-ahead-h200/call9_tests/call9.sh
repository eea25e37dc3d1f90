#!/bin/bash
# Call 9: the backward test binaries built from this session's tree (the tiled channel-last
# kernel's boxes one tile ahead), with the GPU required; memcheck and racecheck over the
# channel-last tiles and runs tests and backward_chunked; fuzz_sizes under both (12 rounds).
cd .devbin
for f in backward backward_chunked fuzz_sizes; do xz -dk $f.xz; chmod +x $f; done
export HIPCONV_REQUIRE_GPU=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
{
for t in backward backward_chunked fuzz_sizes; do
  echo "[$SECONDS s] == $t"; ./$t --test-threads=1 2>&1 | grep -E "^test |test result|skipped|panicked"
done
for tool in memcheck racecheck; do
  echo "[$SECONDS s] == $tool backward channel_last"; timeout 90 compute-sanitizer --tool $tool --error-exitcode 9 ./backward --test-threads=1 channel_last 2>&1 | grep -E "ERROR SUMMARY|RACECHECK SUMMARY|test result"; echo "exit ${PIPESTATUS[0]}"
  echo "[$SECONDS s] == $tool backward_chunked"; timeout 90 compute-sanitizer --tool $tool --error-exitcode 9 ./backward_chunked --test-threads=1 2>&1 | grep -E "ERROR SUMMARY|RACECHECK SUMMARY|test result"; echo "exit ${PIPESTATUS[0]}"
  echo "[$SECONDS s] == $tool fuzz_sizes"; HIPCONV_FUZZ_ROUNDS=12 timeout 90 compute-sanitizer --tool $tool --error-exitcode 9 ./fuzz_sizes 2>&1 | grep -E "ERROR SUMMARY|RACECHECK SUMMARY|test result"; echo "exit ${PIPESTATUS[0]}"
done
} 2>&1 | tee $OUT/call9.txt
