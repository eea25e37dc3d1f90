#!/bin/bash
# Record call (56th session, v65): the tree's depthwise kernels in the dev bench (bench_new: every
# --check-only case; the NCDHW bench rows against HEAD's (bench_fin); memcheck and racecheck over
# NCDHW depth-chunk and frames cases), then scripts/dev/record3d.sh (conv3d tests with the GPU
# required, sanitizers, bench Auto rows, cuDNN).
tar xJf .devbin/s56/c7.tar.xz
B=.devbin/zp
timeout 100 $B/bench_new new --check-only > $OUT/check_new.txt 2>&1; echo "rc $?" >> $OUT/check_new.txt
echo "new: $(tail -2 $OUT/check_new.txt | paste -sd' ') $(grep -ci fail $OUT/check_new.txt) fail"
for v in fin new; do NOCHECK=1 CASES="bench ncdhw" $B/bench_$v $v --time-only 2>&1 | grep -E "bench ncdhw"; done
for c in "depth chunks" "causal frames bf16"; do
  CASES="$c" timeout 40 compute-sanitizer --tool memcheck $B/bench_new new --check-only 2>&1 | grep -E "ERROR SUMMARY|FAIL" | sed "s/^/memcheck $c: /"
  CASES="$c" timeout 40 compute-sanitizer --tool racecheck $B/bench_new new --check-only 2>&1 | grep -E "RACECHECK SUMMARY|FAIL" | sed "s/^/racecheck $c: /"
done
BUDGET=420 SKIP_ROWS_OFF_REUSE=1 bash scripts/dev/record3d.sh
