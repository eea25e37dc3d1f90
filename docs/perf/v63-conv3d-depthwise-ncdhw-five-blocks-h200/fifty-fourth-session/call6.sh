#!/bin/bash
# Dev call 6 (54th session). dp: deeper prefetch, NCDHW six plane slots (five planes in
# flight, against three) and NDHWC five stages (four boxes in flight, against three),
# against head; then the wgmma probe with its m64n8k16 check fixed.
tar xJf .devbin/a6.tar.xz
B=.devbin/zp
for r in 1 2 3; do
  for v in head dp; do
    NOCHECK=1 CASES="bench n" $B/bench_$v $v --time-only 2>&1 | grep -E "bench n"
    NOCHECK=1 CASES="ndhwc bench bf16" $B/bench_$v $v --time-only 2>&1 | grep -E "ndhwc bench"
  done
done
timeout 100 $B/bench_dp dp --check-only > $OUT/check_dp.txt 2>&1; echo "rc $?" >> $OUT/check_dp.txt
echo "dp: $(tail -2 $OUT/check_dp.txt | paste -sd' ') $(grep -ci fail $OUT/check_dp.txt) fail"
timeout 60 .devbin/probe_wgmma | head -3
