#!/bin/bash
# The conv3d test binary of 2943f5b (two new cases: depth padding 4, one frame), its
# every-algorithm test on the GPU with the GPU required.
xz -dk .devbin/s59t/conv3d_test.xz && chmod +x .devbin/s59t/conv3d_test
HIPCONV_REQUIRE_GPU=1 timeout 170 .devbin/s59t/conv3d_test every_algorithm_matches_the_f64_reference 2>&1 | tail -5
echo "exit ${PIPESTATUS[0]}"
