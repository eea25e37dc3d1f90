#!/bin/bash
# Record call (57th session): the dev bench of the tree (land2 = ts + tw3b as landed) against
# new (v65) and tw3b (call 5), its checks (every case, the threads' path with TMA off, memcheck),
# then scripts/dev/record3d.sh.
tar xJf .devbin/s57/c6.tar.xz
B=.devbin/zp
for r in 1 2; do
  for v in new land2 tw3b; do
    NOCHECK=1 CASES="bench ncdhw" $B/bench_$v $v --time-only 2>&1 | grep -E "bench ncdhw"
  done
done > $OUT/dev_bench.txt
timeout 100 $B/bench_land2 land2 --check-only > $OUT/check_land2.txt 2>&1; echo "rc $?" >> $OUT/check_land2.txt
HIPCONV_CONV3D_TMA=0 timeout 100 $B/bench_land2 land2 --check-only > $OUT/check_land2_notma.txt 2>&1; echo "rc $?" >> $OUT/check_land2_notma.txt
{
  echo "land2: $(tail -2 $OUT/check_land2.txt | paste -sd' ') $(grep -ci fail $OUT/check_land2.txt) fail"
  echo "land2 TMA=0: $(tail -2 $OUT/check_land2_notma.txt | paste -sd' ') $(grep -ci fail $OUT/check_land2_notma.txt) fail"
  for c in "depth chunks" "causal frames bf16" "two row tiles" "pad h 2"; do
    CASES="$c" timeout 40 compute-sanitizer --tool memcheck $B/bench_land2 land2 --check-only 2>&1 | grep -E "ERROR SUMMARY|FAIL" | sed "s/^/memcheck $c: /"
  done
  CASES="two row tiles" timeout 40 compute-sanitizer --tool racecheck $B/bench_land2 land2 --check-only 2>&1 | grep -E "RACECHECK SUMMARY|FAIL" | sed "s/^/racecheck: /"
} > $OUT/dev_checks.txt
SKIP_ROWS_OFF_REUSE=1 BUDGET=420 bash scripts/dev/record3d.sh
echo "=== dev bench"; cat $OUT/dev_bench.txt; echo "=== dev checks"; cat $OUT/dev_checks.txt
