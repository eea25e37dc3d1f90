#!/bin/bash
# Dev call 10 (58th session): pl (with TMA only the slots' leads zeroed; the taps operands built in
# registers by shuffles from one tap a lane, no shared bands and no bands barrier) against new; pl's
# checks with TMA and without; memcheck and racecheck over three cases.
tar xJf .devbin/s58/c10.tar.xz
B=.devbin/zp
for r in 1 2 3; do for v in new pl; do
  NOCHECK=1 CASES="bench ncdhw" $B/bench_$v $v --time-only 2>&1 | grep -E "bench ncdhw"
done; done
timeout 120 $B/bench_pl pl --check-only > $OUT/check_pl.txt 2>&1; echo "rc $?" >> $OUT/check_pl.txt
echo "pl: $(tail -2 $OUT/check_pl.txt | paste -sd' ') $(grep -ci fail $OUT/check_pl.txt) fail"
HIPCONV_CONV3D_TMA=0 timeout 120 $B/bench_pl pl --check-only > $OUT/check_pl_notma.txt 2>&1; echo "rc $?" >> $OUT/check_pl_notma.txt
echo "pl TMA=0: $(tail -2 $OUT/check_pl_notma.txt | paste -sd' ') $(grep -ci fail $OUT/check_pl_notma.txt) fail"
for c in "dense 57" "causal frames bf16" "pad h 2"; do
  CASES="$c" timeout 60 compute-sanitizer --tool memcheck $B/bench_pl pl --check-only 2>&1 | grep -E "ERROR SUMMARY|FAIL" | sed "s/^/memcheck $c: /"
done
CASES="dense frames" timeout 60 compute-sanitizer --tool racecheck $B/bench_pl pl --check-only 2>&1 | grep -E "RACECHECK SUMMARY|FAIL" | sed "s/^/racecheck: /"
