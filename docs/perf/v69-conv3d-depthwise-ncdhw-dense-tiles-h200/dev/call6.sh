#!/bin/bash
# Dev call 6 (60th session): fin60 (the tree: dense output tiles) against dr (dense planes too:
# each plane's rows as one 1-D bulk copy into a dense slot, the gaps virtual through each
# lane's ldmatrix row, the fifty-eighth session's dn5 lanes); dr's checks, memcheck and
# racecheck over dense cases.
mkdir -p .devbin/zp && tar xJf .devbin/s60/c6.tar.xz -C .devbin/zp
B=.devbin/zp
for r in 1 2 3; do for v in fin60 dr; do
  NOCHECK=1 CASES="bench ncdhw" timeout 20 $B/bench_$v $v --time-only 2>&1 | grep -E "bench ncdhw"
done; done
timeout 60 $B/bench_dr dr --check-only > /tmp/c.txt 2>&1; echo "dr: rc $? $(tail -1 /tmp/c.txt) $(grep -ci fail /tmp/c.txt) fail"
grep -iE "fail|dense|bench ncdhw|waves" /tmp/c.txt | head -12
for c in "dense 57 rows" "dense frames bf16 silu" "dense pad d 3"; do
  CASES="$c" timeout 30 compute-sanitizer --tool memcheck $B/bench_dr dr --check-only 2>&1 | grep -E "ERROR SUMMARY|FAIL" | sed "s/^/memcheck $c: /"
done
CASES="dense 57 rows" timeout 40 compute-sanitizer --tool racecheck $B/bench_dr dr --check-only 2>&1 | grep -E "RACECHECK SUMMARY|FAIL" | sed "s/^/racecheck: /"
