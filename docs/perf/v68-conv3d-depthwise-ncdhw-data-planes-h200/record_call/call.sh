#!/bin/bash
# Record call (59th session): the dev bench of the tree (fin59: the NCDHW depthwise walk from
# the first plane with data, no box, wait or products on the padding planes) against h67
# (v67), fin59's checks (every case, with TMA and without; memcheck and racecheck over the new
# padding cases), then scripts/dev/record3d.sh. Outputs of the dev part in $OUT/dev.txt.
mkdir -p .devbin/zp && tar xJf .devbin/s59/rec.tar.xz -C .devbin/zp
B=.devbin/zp
{
  echo "=== dev bench"
  for r in 1 2; do for v in h67 fin59; do
    NOCHECK=1 CASES="bench ncdhw" timeout 20 $B/bench_$v $v --time-only 2>&1 | grep -E "bench ncdhw"
  done; done
  echo "=== dev checks"
  timeout 60 $B/bench_fin59 fin59 --check-only > /tmp/check_fin.txt 2>&1; echo "fin59: rc $? $(tail -1 /tmp/check_fin.txt) $(grep -ci fail /tmp/check_fin.txt) fail"
  HIPCONV_CONV3D_TMA=0 timeout 60 $B/bench_fin59 fin59 --check-only > /tmp/check_fin_notma.txt 2>&1; echo "fin59 TMA=0: rc $? $(tail -1 /tmp/check_fin_notma.txt) $(grep -ci fail /tmp/check_fin_notma.txt) fail"
  grep -E "pad d|one frame|frames|depth chunks" /tmp/check_fin.txt | head -20
  for c in "pad d 4" "pad d 3 depth chunks" "one frame"; do
    CASES="$c" timeout 30 compute-sanitizer --tool memcheck $B/bench_fin59 fin59 --check-only 2>&1 | grep -E "ERROR SUMMARY|FAIL" | sed "s/^/memcheck $c: /"
  done
  CASES="pad d 3 depth chunks" timeout 30 compute-sanitizer --tool racecheck $B/bench_fin59 fin59 --check-only 2>&1 | grep -E "RACECHECK SUMMARY|FAIL" | sed "s/^/racecheck: /"
} > /tmp/dev.txt 2>&1
SKIP_ROWS_OFF_REUSE=1 BUDGET=360 bash scripts/dev/record3d.sh
cat $OUT/gpu.txt /tmp/dev.txt > $OUT/dev.txt; rm -f $OUT/gpu.txt
cat $OUT/dev.txt
