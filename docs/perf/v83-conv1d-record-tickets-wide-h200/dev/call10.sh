#!/bin/bash
# Call 10: the conv1d test binaries of f4104eb's dist that call 9 did not run, with the GPU required.
tar xJf .devbin/dist10.tar.xz
export HIPCONV_REQUIRE_GPU=1
for t in dist/tests/*; do
  n=$(basename "${t%-*}"); s=$(date +%s)
  timeout 90 "$t" > /tmp/test-$n.log 2>&1; rc=$?
  echo "test $n exit $rc ($(( $(date +%s) - s )) s): $(grep -E '^test result' /tmp/test-$n.log | tail -1)"
  [ $rc -eq 0 ] || grep -E "panicked|FAILED|error" /tmp/test-$n.log | head -8
done 2>&1 | tee $OUT/call10_tests.txt
