#!/bin/bash
# Record call (65th session, v71): the dev bench's depthwise rows (rd: the landed kernels,
# chained launches and blocks that end at their last stores' reads, against the tree before
# them, two rounds), then scripts/dev/record3d.sh on a dist of the tree (.devbin/dist3d.tar.xz).
mkdir -p .devbin/zp && for c in c1 c2; do tar xJf .devbin/s65/$c.tar.xz -C .devbin/zp; done
B=.devbin/zp
{
  echo "=== dev bench"
  for r in 1 2; do for v in tree rd; do
    for k in "bench ncdhw f16" "bench ndhwc f16" "bench ncdhw bf16 bias silu" "ndhwc bench bf16 bias silu"; do
      NOCHECK=1 CASES="$k" timeout 20 stdbuf -oL $B/bench_$v $v --time-only 2>&1 | grep -E "bench"
    done
  done; done
} > /tmp/dev.txt 2>&1
SKIP_ROWS_OFF_REUSE=1 BUDGET=420 bash scripts/dev/record3d.sh
cat $OUT/gpu.txt /tmp/dev.txt > $OUT/dev.txt; rm -f $OUT/gpu.txt
cat $OUT/dev.txt
