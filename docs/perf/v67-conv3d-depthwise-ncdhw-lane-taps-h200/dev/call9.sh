#!/bin/bash
# Dev call 9 (58th session): dn5 (dn4, and the bulk copies' sources, sizes and the planes with rows worked out once an item;
# the tree) against new; its checks.
tar xJf .devbin/s58/c9.tar.xz
B=.devbin/zp
for r in 1 2 3; do for v in new dn5; do
  NOCHECK=1 CASES="bench ncdhw" $B/bench_$v $v --time-only 2>&1 | grep -E "bench ncdhw"
done; done
timeout 120 $B/bench_dn5 dn5 --check-only > $OUT/check_dn5.txt 2>&1; echo "rc $?" >> $OUT/check_dn5.txt
echo "dn5: $(tail -2 $OUT/check_dn5.txt | paste -sd' ') $(grep -ci fail $OUT/check_dn5.txt) fail"
for c in "dense 57" "dense frames" "dense 69"; do
  CASES="$c" timeout 60 compute-sanitizer --tool memcheck $B/bench_dn5 dn5 --check-only 2>&1 | grep -E "ERROR SUMMARY|FAIL" | sed "s/^/memcheck $c: /"
done
CASES="dense frames" timeout 60 compute-sanitizer --tool racecheck $B/bench_dn5 dn5 --check-only 2>&1 | grep -E "RACECHECK SUMMARY|FAIL" | sed "s/^/racecheck: /"
