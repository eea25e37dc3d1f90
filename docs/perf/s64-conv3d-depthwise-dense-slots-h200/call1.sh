#!/bin/bash
# Dev call 1 (64th session): bk (NCDHW rows of 56: dense slots by one 1-D bulk copy a plane,
# tiles of blocks by row, the straddling block's band masked) --check-only, then timed
# against the tree (fin60r = v69).
mkdir -p .devbin/zp && tar xJf .devbin/s64/c1.tar.xz -C .devbin/zp
B=.devbin/zp
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
timeout 150 $B/bench_bk bk --check-only > /tmp/chk.txt 2>&1; echo "rc $?"; grep -v "err " /tmp/chk.txt | tail -40; grep -c "err " /tmp/chk.txt
for r in 1 2 3; do
  for v in fin60r bk; do NOCHECK=1 CASES="bench nc" timeout 40 $B/bench_$v $v --time-only | grep -v "passed"; done
done
