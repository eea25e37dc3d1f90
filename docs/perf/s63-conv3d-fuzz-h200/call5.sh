#!/bin/bash
# s63 call 5: after commit 3033d6a (the bounds through testing::assert_accurate), the test
# binaries that use it, GPU required.
set -u
tar xJf .devbin/s63/d5.tar.xz
export HIPCONV_REQUIRE_GPU=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
cd dist
for n in conv3d_fuzz update states varlen fuzz backward_chunked backward_varlen forward; do
  s=$(date +%s)
  timeout 150 tests/$n-* > $OUT/test-$n.log 2>&1; rc=$?
  echo "test $n exit $rc ($(( $(date +%s) - s )) s): $(grep -E '^test result' $OUT/test-$n.log | tail -1)"
  grep -E "panicked|FAILED|largest error" $OUT/test-$n.log | head -6
done
