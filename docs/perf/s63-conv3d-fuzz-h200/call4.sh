#!/bin/bash
# s63 call 4: the backward tests with dx and dinitial_states under the largest-error bound
# (hipconv::testing::accuracy_failure), GPU required.
set -u
tar xJf .devbin/s63/db.tar.xz
export HIPCONV_REQUIRE_GPU=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
cd dist
for n in backward backward_chunked backward_varlen; do
  s=$(date +%s)
  timeout 150 tests/$n-* > $OUT/test-$n.log 2>&1; rc=$?
  echo "test $n exit $rc ($(( $(date +%s) - s )) s): $(grep -E '^test result' $OUT/test-$n.log | tail -1)"
  grep -E "panicked|FAILED|largest error|HIPCONV_TEST_SEED" $OUT/test-$n.log | head -8
done
