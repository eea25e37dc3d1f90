#!/bin/bash
# Dev call 12 (58th session, after the record): the tree (fin) with the grid capped at 660 blocks
# (one resident wave, ~4.65 items a block in turn) and at 1320, against fin (one block an item):
# what a block's start (not an item's) still costs. Timing and checks.
tar xJf .devbin/s58/c12.tar.xz
B=.devbin/zp
for r in 1 2; do for v in fin g660 g1320; do
  NOCHECK=1 CASES="bench ncdhw" $B/bench_$v $v --time-only 2>&1 | grep -E "bench ncdhw"
done; done
for v in g660 g1320; do
  timeout 100 $B/bench_$v $v --check-only > /tmp/c.txt 2>&1; echo "$v: rc $? $(tail -1 /tmp/c.txt) $(grep -ci fail /tmp/c.txt) fail"
done
