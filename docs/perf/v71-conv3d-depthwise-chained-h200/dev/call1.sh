#!/bin/bash
# Dev call 1 (65th session): the depthwise kernels (NCDHW toeplitz, NDHWC diagonal) launched
# chained (ch) against the tree; ch also with HIPCONV_CHAINED_LAUNCH=0.
mkdir -p .devbin/zp && tar xJf .devbin/s65/c1.tar.xz -C .devbin/zp
B=.devbin/zp
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
timeout 170 $B/bench_ch ch --check-only > $OUT/chk_ch.txt 2>&1; echo "check rc $?"; grep -ciE "fail|error" $OUT/chk_ch.txt; tail -3 $OUT/chk_ch.txt
for r in 1 2 3; do
  for v in tree ch; do NOCHECK=1 CASES="bench" timeout 60 stdbuf -oL $B/bench_$v $v --time-only | grep -v "passed\|FAILED"; done
  NOCHECK=1 CASES="bench" HIPCONV_CHAINED_LAUNCH=0 timeout 60 stdbuf -oL $B/bench_ch ch_off --time-only | grep -v "passed\|FAILED"
done
