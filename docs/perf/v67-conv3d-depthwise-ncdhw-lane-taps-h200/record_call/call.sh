#!/bin/bash
# Record call (58th session): the dev bench of the tree (fin: the taps operands by shuffles, the
# slots' leads only zeroed with TMA) against new (v66) and pl (dev call 10), fin's checks (every
# case, with TMA and without, memcheck and racecheck), then scripts/dev/record3d.sh. Outputs of
# the dev part in $OUT/dev.txt (record3d.sh writes seven files; the device returns eight).
tar xJf .devbin/s58/rec.tar.xz
B=.devbin/zp
{
  echo "=== dev bench"
  for r in 1 2; do for v in new fin pl; do
    NOCHECK=1 CASES="bench ncdhw" $B/bench_$v $v --time-only 2>&1 | grep -E "bench ncdhw"
  done; done
  echo "=== dev checks"
  timeout 100 $B/bench_fin fin --check-only > /tmp/check_fin.txt 2>&1; echo "fin: rc $? $(tail -1 /tmp/check_fin.txt) $(grep -ci fail /tmp/check_fin.txt) fail"
  HIPCONV_CONV3D_TMA=0 timeout 100 $B/bench_fin fin --check-only > /tmp/check_fin_notma.txt 2>&1; echo "fin TMA=0: rc $? $(tail -1 /tmp/check_fin_notma.txt) $(grep -ci fail /tmp/check_fin_notma.txt) fail"
  grep -E "ncdhw|frames|pad|rows|depth|dense|one row|small" /tmp/check_fin.txt | grep -v ndhwc | head -30
  for c in "depth chunks" "causal frames bf16" "two row tiles" "dense 57"; do
    CASES="$c" timeout 40 compute-sanitizer --tool memcheck $B/bench_fin fin --check-only 2>&1 | grep -E "ERROR SUMMARY|FAIL" | sed "s/^/memcheck $c: /"
  done
  CASES="dense frames" timeout 40 compute-sanitizer --tool racecheck $B/bench_fin fin --check-only 2>&1 | grep -E "RACECHECK SUMMARY|FAIL" | sed "s/^/racecheck: /"
} > /tmp/dev.txt 2>&1
SKIP_ROWS_OFF_REUSE=1 BUDGET=400 bash scripts/dev/record3d.sh
cat $OUT/gpu.txt /tmp/dev.txt > $OUT/dev.txt; rm -f $OUT/gpu.txt
cat $OUT/dev.txt
