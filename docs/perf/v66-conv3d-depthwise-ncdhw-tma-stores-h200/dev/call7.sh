#!/bin/bash
# Dev call 7 (57th session): the record call's tests again (its tests.txt did not come back:
# the device tool returns 8 files), then sm (land2, the TMA path's epilogue as two
# stmatrix.x4 a plane, the store box from column -2) and sk2 (land2, padding planes' products
# and boxes skipped) against land2.
tar xJf .devbin/s57/c7.tar.xz
rm -rf dist && tar xJf .devbin/dist3d.tar.xz
mkdir -p /tmp/c3
export HIPCONV_REQUIRE_GPU=1
(cd dist
for n in conv3d conv3d_errors conv3d_verify conv3d_large; do
  t=$(ls tests/$n-* | head -1); s=$(date +%s); timeout 200 "$t" > /tmp/c3/test-$n.log 2>&1; rc=$?
  echo "test $n exit $rc ($(( $(date +%s) - s )) s): $(grep -E '^test result' /tmp/c3/test-$n.log | tail -1)"
  [ $rc -eq 0 ] || grep -E "panicked|FAILED|error" /tmp/c3/test-$n.log | head -8
done
t=$(ls tests/conv3d-* | head -1)
f=every_kernel_path_once_for_the_sanitizers
HIPCONV_CONV3D_ROWS=0 timeout 90 "$t" $f > /tmp/c3/norows.log 2>&1
echo "HIPCONV_CONV3D_ROWS=0 conv3d $f exit $?: $(grep -E '^test result' /tmp/c3/norows.log | tail -1)"
for f in every_kernel_path_once_for_the_sanitizers causal_streaming_chunk_by_chunk_equals_one_pass; do
  HIPCONV_CONV3D_TMA=0 timeout 60 "$t" $f > /tmp/c3/notma-$f.log 2>&1
  echo "HIPCONV_CONV3D_TMA=0 conv3d $f exit $?: $(grep -E '^test result' /tmp/c3/notma-$f.log | tail -1)"
done
timeout 30 examples/conv3d 2>&1 | grep -E "valid|backend" | sort | uniq -c | head -6
) > $OUT/tests.txt 2>&1
unset HIPCONV_REQUIRE_GPU
B=.devbin/zp
for r in 1 2 3; do
  for v in land2 sm sk2; do
    NOCHECK=1 CASES="bench ncdhw" $B/bench_$v $v --time-only 2>&1 | grep -E "bench ncdhw"
  done
done > $OUT/dev_bench.txt
timeout 100 $B/bench_sm sm --check-only > $OUT/check_sm.txt 2>&1; echo "rc $?" >> $OUT/check_sm.txt
HIPCONV_CONV3D_TMA=0 timeout 100 $B/bench_sm sm --check-only > $OUT/check_sm_notma.txt 2>&1; echo "rc $?" >> $OUT/check_sm_notma.txt
{
  echo "sm: $(tail -2 $OUT/check_sm.txt | paste -sd' ') $(grep -ci fail $OUT/check_sm.txt) fail"
  echo "sm TMA=0: $(tail -2 $OUT/check_sm_notma.txt | paste -sd' ') $(grep -ci fail $OUT/check_sm_notma.txt) fail"
  for c in "depth chunks" "two row tiles" "pad h 2"; do
    CASES="$c" timeout 40 compute-sanitizer --tool memcheck $B/bench_sm sm --check-only 2>&1 | grep -E "ERROR SUMMARY|FAIL" | sed "s/^/memcheck $c: /"
  done
  CASES="two row tiles" timeout 40 compute-sanitizer --tool racecheck $B/bench_sm sm --check-only 2>&1 | grep -E "RACECHECK SUMMARY|FAIL" | sed "s/^/racecheck: /"
} > $OUT/dev_checks.txt
echo "=== tests"; cat $OUT/tests.txt; echo "=== dev bench"; cat $OUT/dev_bench.txt; echo "=== dev checks"; cat $OUT/dev_checks.txt
