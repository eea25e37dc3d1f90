#!/bin/bash
# Dev call 8 (60th session): fin60 (the tree) against dr5 (dense planes as dr, each lane's
# window offsets kept in registers: dr's per-plane address arithmetic gone); dr5's checks,
# memcheck and racecheck over dense cases.
mkdir -p .devbin/zp && tar xJf .devbin/s60/c8.tar.xz -C .devbin/zp
B=.devbin/zp
for r in 1 2 3; do for v in fin60 dr5; do
  NOCHECK=1 CASES="bench ncdhw" timeout 20 $B/bench_$v $v --time-only 2>&1 | grep -E "bench ncdhw"
done; done
timeout 60 $B/bench_dr5 dr5 --check-only > /tmp/c.txt 2>&1; echo "dr5: rc $? $(tail -1 /tmp/c.txt) $(grep -ci fail /tmp/c.txt) fail"
grep -iE "fail|dense" /tmp/c.txt | head -8
for c in "dense 57 rows" "dense frames bf16 silu" "dense pad d 3"; do
  CASES="$c" timeout 30 compute-sanitizer --tool memcheck $B/bench_dr5 dr5 --check-only 2>&1 | grep -E "ERROR SUMMARY|FAIL" | sed "s/^/memcheck $c: /"
done
CASES="dense pad d 3" timeout 40 compute-sanitizer --tool racecheck $B/bench_dr5 dr5 --check-only 2>&1 | grep -E "RACECHECK SUMMARY|FAIL" | sed "s/^/racecheck: /"
