#!/bin/bash
# Dev call 2 (65th session): rd (ch, and each depthwise block ending at its last stores'
# reads, cp.async.bulk.wait_group.read, instead of their writes) --check-only, then the four
# depthwise bench rows timed: tree / ch / rd, two rounds.
mkdir -p .devbin/zp && for c in c1 c2; do tar xJf .devbin/s65/$c.tar.xz -C .devbin/zp; done
B=.devbin/zp
timeout 170 $B/bench_rd rd --check-only > $OUT/chk_rd.txt 2>&1; echo "check rc $?"; grep -ciE "fail|error" $OUT/chk_rd.txt; tail -2 $OUT/chk_rd.txt
for r in 1 2; do for v in tree ch rd; do
  for k in "bench ncdhw f16" "bench ndhwc f16" "bench ncdhw bf16 bias silu" "ndhwc bench bf16 bias silu"; do
    NOCHECK=1 CASES="$k" timeout 20 stdbuf -oL $B/bench_$v $v --time-only 2>&1 | grep -E "bench"
  done
done; done
