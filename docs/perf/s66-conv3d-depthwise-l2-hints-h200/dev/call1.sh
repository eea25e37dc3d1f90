#!/bin/bash
# Dev call 1 (66th session): the depthwise kernels' x boxes (and the NCDHW y bulk stores)
# with the L2 evict-first policy. t72 = the tree (ff83a58); efx: NCDHW x boxes evict-first;
# efxd: efx and the NDHWC x boxes too; efxy: efx and the NCDHW y bulk stores evict-first.
mkdir -p .devbin/zp && tar xJf .devbin/s66/c1.tar.xz -C .devbin/zp
B=.devbin/zp
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
for v in efxd efxy; do timeout 150 $B/bench_$v $v --check-only > $OUT/chk_$v.txt 2>&1; echo "check $v rc $?"; tail -2 $OUT/chk_$v.txt; done
for r in 1 2 3; do for v in t72 efx efxd efxy; do
  for k in "bench ncdhw f16" "bench ndhwc f16" "bench ncdhw bf16 bias silu"; do
    NOCHECK=1 CASES="$k" timeout 20 stdbuf -oL $B/bench_$v $v --time-only 2>&1 | grep -E "bench"
  done
done; done
