#!/bin/bash
# Dev call 2 (57th session), on ts (outputs by TMA stores, call 1: -3%): sk (padding planes'
# products and boxes skipped), bk (sk, and dense slots: a plane's rows in one 1-D bulk copy, the
# gaps virtual through per-lane ldmatrix rows), sk_nomma / sk_noio (ablations of sk, timing only).
tar xJf .devbin/s57/c2.tar.xz
B=.devbin/zp
for r in 1 2 3; do
  for v in new ts sk bk; do
    NOCHECK=1 CASES="bench ncdhw" $B/bench_$v $v --time-only 2>&1 | grep -E "bench ncdhw"
  done
  for v in sk_nomma sk_noio; do
    NOCHECK=1 CASES="bench ncdhw f16" $B/bench_$v $v --time-only 2>&1 | grep -E "bench ncdhw"
  done
done
for v in sk bk; do
  timeout 100 $B/bench_$v $v --check-only > $OUT/check_$v.txt 2>&1; echo "rc $?" >> $OUT/check_$v.txt
  echo "$v: $(tail -2 $OUT/check_$v.txt | paste -sd' ') $(grep -ci fail $OUT/check_$v.txt) fail"
done
for c in "depth chunks" "causal frames bf16" "two row tiles" "pad h 2" "one row" "valid depth"; do
  CASES="$c" timeout 60 compute-sanitizer --tool memcheck $B/bench_bk bk --check-only 2>&1 | grep -E "ERROR SUMMARY|FAIL" | sed "s/^/memcheck $c: /"
done
for c in "two row tiles" "causal frames bf16"; do
  CASES="$c" timeout 60 compute-sanitizer --tool racecheck $B/bench_bk bk --check-only 2>&1 | grep -E "RACECHECK SUMMARY|FAIL" | sed "s/^/racecheck $c: /"
done
