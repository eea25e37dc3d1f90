#!/bin/bash
# Dev call 13 (58th session, after the record): pd (the tree, the taps' and the bias' loads
# before the item's first barrier) against fin (the tree); pd's checks.
tar xJf .devbin/s58/c13.tar.xz
B=.devbin/zp
for r in 1 2 3; do for v in fin pd; do
  NOCHECK=1 CASES="bench ncdhw" $B/bench_$v $v --time-only 2>&1 | grep -E "bench ncdhw"
done; done
timeout 100 $B/bench_pd pd --check-only > /tmp/c.txt 2>&1; echo "pd: rc $? $(tail -1 /tmp/c.txt) $(grep -ci fail /tmp/c.txt) fail"
