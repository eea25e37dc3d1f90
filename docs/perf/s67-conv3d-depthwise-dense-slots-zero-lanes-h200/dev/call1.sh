#!/bin/bash
# Dev call 1 (67th session): zl, the NCDHW matrix-core depthwise kernel on dense slots (one
# 1-D bulk copy a plane) with the pitch-64 tiles, the window chunks outside a row read from
# a slot of zeros by ldmatrix's per-lane addresses, against the tree (t72).
mkdir -p .devbin/zq && tar xJf .devbin/s67/c1.tar.xz -C .devbin/zq
B=.devbin/zq
timeout 200 $B/bench_zl zl --check-only > $OUT/chk_zl.txt 2>&1; echo "check zl rc $?"; grep -ciE "fail|mismatch|error" $OUT/chk_zl.txt; tail -2 $OUT/chk_zl.txt
for r in 1 2 3; do for v in t72 zl; do
  for k in "bench ncdhw f16" "bench ncdhw bf16 bias silu"; do
    NOCHECK=1 CASES="$k" timeout 20 stdbuf -oL $B/bench_$v $v --time-only 2>&1 | grep -E "bench"
  done
done; done
