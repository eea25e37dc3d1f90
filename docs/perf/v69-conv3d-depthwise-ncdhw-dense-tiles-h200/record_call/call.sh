#!/bin/bash
# Record call (60th session): the dev bench of the tree (fin60: NCDHW dense output tiles at
# pitch 64, one 1-D bulk store a tile, a plane barrier every two planes there) against fin59
# (v68), fin60's checks (every case, with TMA and without; memcheck and racecheck over dense
# cases), then scripts/dev/record3d.sh. Outputs of the dev part in $OUT/dev.txt.
mkdir -p .devbin/zp && tar xJf .devbin/s60/rec.tar.xz -C .devbin/zp
B=.devbin/zp
{
  echo "=== dev bench"
  for r in 1 2; do for v in fin59 fin60; do
    NOCHECK=1 CASES="bench ncdhw" timeout 20 $B/bench_$v $v --time-only 2>&1 | grep -E "bench ncdhw"
  done; done
  echo "=== dev checks"
  timeout 60 $B/bench_fin60 fin60 --check-only > /tmp/check_fin.txt 2>&1; echo "fin60: rc $? $(tail -1 /tmp/check_fin.txt) $(grep -ci fail /tmp/check_fin.txt) fail"
  HIPCONV_CONV3D_TMA=0 timeout 60 $B/bench_fin60 fin60 --check-only > /tmp/check_fin_notma.txt 2>&1; echo "fin60 TMA=0: rc $? $(tail -1 /tmp/check_fin_notma.txt) $(grep -ci fail /tmp/check_fin_notma.txt) fail"
  grep -E "dense|bench ncdhw|waves" /tmp/check_fin.txt | head -20
  for c in "dense 57 rows" "dense frames bf16 silu" "dense 69 rows silu"; do
    CASES="$c" timeout 30 compute-sanitizer --tool memcheck $B/bench_fin60 fin60 --check-only 2>&1 | grep -E "ERROR SUMMARY|FAIL" | sed "s/^/memcheck $c: /"
  done
  CASES="dense 57 rows" timeout 40 compute-sanitizer --tool racecheck $B/bench_fin60 fin60 --check-only 2>&1 | grep -E "RACECHECK SUMMARY|FAIL" | sed "s/^/racecheck: /"
} > /tmp/dev.txt 2>&1
SKIP_ROWS_OFF_REUSE=1 BUDGET=360 bash scripts/dev/record3d.sh
cat $OUT/gpu.txt /tmp/dev.txt > $OUT/dev.txt; rm -f $OUT/gpu.txt
cat $OUT/dev.txt
