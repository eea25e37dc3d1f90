#!/bin/bash
# s63 call 2: the conv1d and conv3d tests with the largest-error bound
# (hipconv::testing::accuracy_failure), GPU required.
set -u
tar xJf .devbin/s63/d2.tar.xz
export HIPCONV_REQUIRE_GPU=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
cd dist
run() {  # run NAME TIMEOUT [env...]
  local n=$1 t=$2; shift 2; local s=$(date +%s)
  env "$@" timeout $t tests/$n-* > $OUT/test-$n.log 2>&1; local rc=$?
  echo "test $n $* exit $rc ($(( $(date +%s) - s )) s): $(grep -E '^test result' $OUT/test-$n.log | tail -1)"
  grep -E "panicked|FAILED|largest error|HIPCONV_TEST_SEED" $OUT/test-$n.log | head -8
}
run conv3d_fuzz 60 HIPCONV_FUZZ_ROUNDS=300
run update 60
run states 60
run varlen 60
run fuzz 120 HIPCONV_FUZZ_ROUNDS=200
run forward 220
