#!/bin/bash
# Dev call 3 (67th session): zln = zl with its per-plane bookkeeping trimmed (a running slot
# counter instead of j % 5, the mbarrier's shared address once per block, compile-time slot
# and output-tile sizes, each lane's output-tile base once per block), against zl and the
# tree (t72).
mkdir -p .devbin/zq && tar xJf .devbin/s67/c3.tar.xz -C .devbin/zq
B=.devbin/zq
timeout 200 $B/bench_zln zln --check-only > $OUT/chk_zln.txt 2>&1; echo "check zln rc $?"; tail -1 $OUT/chk_zln.txt
for r in 1 2 3; do for v in t72 zl zln; do
  for k in "bench ncdhw f16" "bench ncdhw bf16 bias silu"; do
    NOCHECK=1 CASES="$k" timeout 20 stdbuf -oL $B/bench_$v $v --time-only 2>&1 | grep -E "bench"
  done
done; done
