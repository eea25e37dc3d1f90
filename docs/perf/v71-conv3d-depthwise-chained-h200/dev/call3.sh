#!/bin/bash
# Call 3 (65th session): the new test of four dependent depthwise forwards (the chained
# matrix-core depthwise kernels), with the GPU required, then under memcheck and racecheck;
# and the seed's dependent-forwards test beside it.
xz -dk .devbin/s65t/conv3d_test.xz && chmod +x .devbin/s65t/conv3d_test
export HIPCONV_REQUIRE_GPU=1
T=.devbin/s65t/conv3d_test
$T each_ --test-threads=1 --nocapture 2>&1 | grep -E "conv3d|test result"
HIPCONV_CHAINED_LAUNCH=0 $T each_depthwise --test-threads=1 2>&1 | grep -E "test result"
for tool in memcheck racecheck; do
  compute-sanitizer --tool $tool --error-exitcode 9 $T each_depthwise --test-threads=1 2>&1 | grep -E "SUMMARY|test result"; echo "$tool exit ${PIPESTATUS[0]}"
done
