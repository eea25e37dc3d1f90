#!/bin/bash
# Dev call 3 (66th session): w3, the NCDHW matrix-core depthwise kernel in 3-warp blocks
# (kBlockSizes {96, 128, 256}: at the bench row 3 row tiles of 19 rows, 10 tiles a plane
# over 3 waves (4, 3, 3), 93 registers, seven blocks an SM) against the tree (t72).
mkdir -p .devbin/zq && tar xJf .devbin/s66/c3.tar.xz -C .devbin/zq
B=.devbin/zq
timeout 170 $B/bench_w3 w3 --check-only > $OUT/chk_w3.txt 2>&1; echo "check w3 rc $?"; tail -1 $OUT/chk_w3.txt
for r in 1 2 3; do for v in t72 w3; do
  for k in "bench ncdhw f16" "bench ncdhw bf16 bias silu"; do
    NOCHECK=1 CASES="$k" timeout 20 stdbuf -oL $B/bench_$v $v --time-only 2>&1 | grep -E "bench"
  done
done; done
