#!/bin/bash
# Dev call 4 (67th session): zs = zln with each lane's output pairs stored straight to y
# (STG.32 from registers: no output tiles' shared stores, proxy fences or TMA stores),
# against zln and the tree (t72).
mkdir -p .devbin/zq && tar xJf .devbin/s67/c4.tar.xz -C .devbin/zq
B=.devbin/zq
timeout 200 $B/bench_zs zs --check-only > $OUT/chk_zs.txt 2>&1; echo "check zs rc $?"; tail -1 $OUT/chk_zs.txt
for r in 1 2 3; do for v in t72 zln zs; do
  for k in "bench ncdhw f16" "bench ncdhw bf16 bias silu"; do
    NOCHECK=1 CASES="$k" timeout 20 stdbuf -oL $B/bench_$v $v --time-only 2>&1 | grep -E "bench"
  done
done; done
