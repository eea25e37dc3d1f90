#!/bin/bash
# Dev call 7 (58th session): dn4 (the tree: dense planes at pitch 64 with constant steps, the lane
# table in closed form, the outside rows zeroed without divisions) against new; dn4's checks.
tar xJf .devbin/s58/c7.tar.xz
B=.devbin/zp
for r in 1 2 3; do for v in new dn4; do
  NOCHECK=1 CASES="bench ncdhw" $B/bench_$v $v --time-only 2>&1 | grep -E "bench ncdhw"
done; done
timeout 120 $B/bench_dn4 dn4 --check-only > $OUT/check_dn4.txt 2>&1; echo "rc $?" >> $OUT/check_dn4.txt
echo "dn4: $(tail -2 $OUT/check_dn4.txt | paste -sd' ') $(grep -ci fail $OUT/check_dn4.txt) fail"
for c in "dense 57" "dense frames" "dense 69"; do
  CASES="$c" timeout 60 compute-sanitizer --tool memcheck $B/bench_dn4 dn4 --check-only 2>&1 | grep -E "ERROR SUMMARY|FAIL" | sed "s/^/memcheck $c: /"
done
CASES="dense frames" timeout 60 compute-sanitizer --tool racecheck $B/bench_dn4 dn4 --check-only 2>&1 | grep -E "RACECHECK SUMMARY|FAIL" | sed "s/^/racecheck: /"
