#!/bin/bash
# Dev call 2 (56th session). NCDHW toeplitz kernel: fin (HEAD); pf (an item's first boxes issued
# before its taps are built); xi (pf, planes to slots in turn across items, a block's next item's
# first boxes during its last planes); xip (xi on one resident wave of blocks); ablations (wrong
# results, timing only): nomma, nomma_nowo (no matrix steps, no y stores), nomma_nowo_noepi (and
# no output tile writes: boxes, waits and barriers only), noio (no boxes, no y stores).
tar xJf .devbin/s56/c2.tar.xz
B=.devbin/zp
for r in 1 2; do
  for v in fin pf xi xip nomma nomma_nowo nomma_nowo_noepi noio; do
    NOCHECK=1 CASES="bench ncdhw" $B/bench_$v $v --time-only 2>&1 | grep -E "bench ncdhw"
  done
  NOCHECK=1 CASES="waves ncdhw" $B/bench_xip xip --time-only 2>&1 | grep -E "waves"
done
for v in pf xip; do
  timeout 120 $B/bench_$v $v --check-only > $OUT/check_$v.txt 2>&1; echo "rc $?" >> $OUT/check_$v.txt
  echo "$v: $(tail -2 $OUT/check_$v.txt | paste -sd' ') $(grep -ci fail $OUT/check_$v.txt) fail"
done
for c in "waves ncdhw c165" "depth chunks" "causal frames bf16"; do
  CASES="$c" timeout 120 compute-sanitizer --tool memcheck $B/bench_xip xip --check-only 2>&1 | grep -E "ERROR SUMMARY|FAIL" | sed "s/^/memcheck $c: /"
done
for c in "two row tiles" "depth chunks"; do
  CASES="$c" timeout 60 compute-sanitizer --tool racecheck $B/bench_xip xip --check-only 2>&1 | grep -E "RACECHECK SUMMARY|FAIL" | sed "s/^/racecheck $c: /"
done
