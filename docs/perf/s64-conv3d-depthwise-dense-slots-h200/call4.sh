#!/bin/bash
# Dev call 4 (64th session): w5 (the tree's NCDHW kernel in 5-warp blocks of three tiles a
# wave, five blocks an SM at 72 registers: 14 tiles as 3,3,3,3,2 instead of 4,4,3,3)
# --check-only (kMaxTiles 3 also changes depthwise_toeplitz_last.hip), then timed against
# the tree (fin60r = v69).
mkdir -p .devbin/zp && for c in c1 c4; do tar xJf .devbin/s64/$c.tar.xz -C .devbin/zp; done
B=.devbin/zp
timeout 150 $B/bench_w5 w5 --check-only > /tmp/chk.txt 2>&1; echo "rc $?"; grep -E "dense|inf|nan|e-0[0-2]|e\+|FAIL|passed|bench|two row|wide|400" /tmp/chk.txt | grep -v ndhwc | tail -30; grep -c "err" /tmp/chk.txt
for r in 1 2 3; do
  for v in fin60r w5; do NOCHECK=1 CASES="bench nc" timeout 40 $B/bench_$v $v --time-only | grep -v "passed\|FAILED"; done
done
