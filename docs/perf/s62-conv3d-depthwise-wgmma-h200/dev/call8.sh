#!/bin/bash
# Dev call 8 (62nd session): fp (NCDHW: 8-warp blocks only, a block a whole 56-row plane,
# two blocks an SM: one box of 58 rows a plane instead of two of 30) --check-only, then
# timed against the tree.
mkdir -p .devbin/zp && tar xJf .devbin/s62/c8.tar.xz -C .devbin/zp
B=.devbin/zp
timeout 120 $B/bench_fp fp --check-only > /tmp/chk.txt 2>&1; grep -v "err " /tmp/chk.txt | tail -30; grep -c "err " /tmp/chk.txt
for r in 1 2; do
  for v in fin60r fp; do NOCHECK=1 CASES="bench nc" timeout 40 $B/bench_$v $v --time-only | grep -v "passed"; done
done
