#!/bin/bash
# Dev call 5 (60th session): fin60 (the tree: dense output tiles) against fp (planes of up to
# 56 rows of 56 whole in one 8-warp block: no halo rows between row tiles, two blocks an SM);
# fp's checks.
mkdir -p .devbin/zp && tar xJf .devbin/s60/c5.tar.xz -C .devbin/zp
B=.devbin/zp
for r in 1 2 3; do for v in fin60 fp; do
  NOCHECK=1 CASES="bench ncdhw" timeout 20 $B/bench_$v $v --time-only 2>&1 | grep -E "bench ncdhw"
done; done
timeout 60 $B/bench_fp fp --check-only > /tmp/c.txt 2>&1; echo "fp: rc $? $(tail -1 /tmp/c.txt) $(grep -ci fail /tmp/c.txt) fail"
grep -i fail /tmp/c.txt | head -5
