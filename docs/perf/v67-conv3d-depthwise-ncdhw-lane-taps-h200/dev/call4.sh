#!/bin/bash
# Dev call 4 (58th session): pw (a producer warp per block: 1-D bulk copies into dense staging,
# re-laid into two gapped slots, the boxes and stores; four computing warps at 80 registers, five
# blocks an SM) and pw4 (the same at 96 registers, four blocks an SM) against new; their checks.
tar xJf .devbin/s58/c4.tar.xz
B=.devbin/zp
for r in 1 2; do for v in new pw pw4; do
  NOCHECK=1 CASES="bench ncdhw" $B/bench_$v $v --time-only 2>&1 | grep -E "bench ncdhw"
done; done
for v in pw pw4; do
  timeout 100 $B/bench_$v $v --check-only > /tmp/c.txt 2>&1; echo "$v: $(tail -1 /tmp/c.txt) $(grep -ci fail /tmp/c.txt) fail"
done
