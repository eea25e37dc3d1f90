#!/bin/bash
# Record call (55th session, v64): the tree's depthwise kernels in the dev bench (bench_fin: every
# --check-only case, memcheck and racecheck over the stride-2 and depth-chunk cases), then
# scripts/dev/record3d.sh (conv3d tests with the GPU required, sanitizers, bench Auto rows, cuDNN).
tar xJf .devbin/s55/c5.tar.xz
B=.devbin/zp
timeout 100 $B/bench_fin fin --check-only > $OUT/check_fin.txt 2>&1; echo "rc $?" >> $OUT/check_fin.txt
echo "fin: $(tail -2 $OUT/check_fin.txt | paste -sd' ') $(grep -ci fail $OUT/check_fin.txt) fail"
for c in "ndhwc stride 2 frames" "ndhwc depth chunks"; do
  CASES="$c" timeout 40 compute-sanitizer --tool memcheck $B/bench_fin fin --check-only 2>&1 | grep -E "ERROR SUMMARY|FAIL" | sed "s/^/memcheck $c: /"
  CASES="$c" timeout 40 compute-sanitizer --tool racecheck $B/bench_fin fin --check-only 2>&1 | grep -E "RACECHECK SUMMARY|FAIL" | sed "s/^/racecheck $c: /"
done
BUDGET=450 SKIP_ROWS_OFF_REUSE=1 bash scripts/dev/record3d.sh
