#!/bin/bash
# Record call (64th session, v70): the dev bench of the NDHWC row (bq, the landed diagonal
# kernel with the bias quad, against fin60r = v69, two rounds), then scripts/dev/record3d.sh
# on a dist of the tree (.devbin/dist3d.tar.xz; the tests now with conv3d_fuzz).
mkdir -p .devbin/zp && for c in c1 c6; do tar xJf .devbin/s64/$c.tar.xz -C .devbin/zp; done
B=.devbin/zp
{
  echo "=== dev bench"
  for r in 1 2; do for v in fin60r bq; do for k in "bench ndhwc f16" "ndhwc bench bf16"; do
    NOCHECK=1 CASES="$k" timeout 20 stdbuf -oL $B/bench_$v $v --time-only 2>&1 | grep -E "bench"
  done; done; done
} > /tmp/dev.txt 2>&1
SKIP_ROWS_OFF_REUSE=1 BUDGET=420 bash scripts/dev/record3d.sh
cat $OUT/gpu.txt /tmp/dev.txt > $OUT/dev.txt; rm -f $OUT/gpu.txt
cat $OUT/dev.txt
