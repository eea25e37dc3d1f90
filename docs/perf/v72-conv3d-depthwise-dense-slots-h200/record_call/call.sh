#!/bin/bash
# Record call (67th session, v72): the dev bench's NCDHW depthwise rows (land: the landed
# kernel, dense slots by bulk copies with virtual gaps and the trimmed per-plane bookkeeping,
# against t72, v71's tree, two rounds), then scripts/dev/record3d.sh on a dist of the tree
# (.devbin/dist3d.tar.xz).
mkdir -p .devbin/zq && tar xJf .devbin/s67/c6.tar.xz -C .devbin/zq
B=.devbin/zq
{
  echo "=== dev bench"
  for r in 1 2; do for v in t72 land; do
    for k in "bench ncdhw f16" "bench ncdhw bf16 bias silu"; do
      NOCHECK=1 CASES="$k" timeout 20 stdbuf -oL $B/bench_$v $v --time-only 2>&1 | grep -E "bench"
    done
  done; done
} > /tmp/dev.txt 2>&1
SKIP_ROWS_OFF_REUSE=1 BUDGET=420 bash scripts/dev/record3d.sh
cat $OUT/gpu.txt /tmp/dev.txt > $OUT/dev.txt; rm -f $OUT/gpu.txt
cat $OUT/dev.txt
