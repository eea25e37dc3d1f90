#!/bin/bash
# Dev call 5 (67th session): zlm = zln with the mbarrier phases by laps (the block's data
# planes take the slots in turn across its items: a parity bit instead of a bitmask), the
# dense tiles' shared stores from a per-lane shared address kept in a register, against zln
# and the tree (t72). zlm's check also runs with the grid capped at 7 and at 131 blocks
# (DEV_GRID_CAP: blocks of many items, the laps carried across items).
mkdir -p .devbin/zq && tar xJf .devbin/s67/c5.tar.xz -C .devbin/zq
B=.devbin/zq
timeout 150 $B/bench_zlm zlm --check-only > $OUT/chk_zlm.txt 2>&1; echo "check zlm rc $?"; tail -1 $OUT/chk_zlm.txt
DEV_GRID_CAP=7 timeout 100 $B/bench_zlm zlm --check-only > $OUT/chk_zlm_cap7.txt 2>&1; echo "check zlm cap 7 rc $?"; tail -1 $OUT/chk_zlm_cap7.txt
DEV_GRID_CAP=131 timeout 100 $B/bench_zlm zlm --check-only > $OUT/chk_zlm_cap131.txt 2>&1; echo "check zlm cap 131 rc $?"; tail -1 $OUT/chk_zlm_cap131.txt
for r in 1 2 3; do for v in t72 zln zlm; do
  for k in "bench ncdhw f16" "bench ncdhw bf16 bias silu"; do
    NOCHECK=1 CASES="$k" timeout 20 stdbuf -oL $B/bench_$v $v --time-only 2>&1 | grep -E "bench"
  done
done; done
