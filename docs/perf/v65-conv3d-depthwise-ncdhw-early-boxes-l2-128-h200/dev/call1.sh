#!/bin/bash
# Dev call 1 (56th session). NCDHW toeplitz kernel: fin (HEAD); b64 (64-thread blocks, ten an SM,
# 14 rows); ablations (wrong results, timing only): s2 (block barrier on even planes only),
# nomma (no matrix steps), nowo (no y stores); the wave test (c165: 4.0 waves, c206: 5.0).
tar xJf .devbin/s56/c1.tar.xz
B=.devbin/zp
for r in 1 2 3; do
  for v in fin b64 s2 nomma nowo; do
    NOCHECK=1 CASES="bench ncdhw" $B/bench_$v $v --time-only 2>&1 | grep -E "bench ncdhw"
  done
  NOCHECK=1 CASES="waves ncdhw" $B/bench_fin fin --time-only 2>&1 | grep -E "waves"
  NOCHECK=1 CASES="waves ncdhw" $B/bench_b64 b64 --time-only 2>&1 | grep -E "waves"
done
timeout 120 $B/bench_b64 b64 --check-only > $OUT/check_b64.txt 2>&1; echo "rc $?" >> $OUT/check_b64.txt
echo "b64: $(tail -2 $OUT/check_b64.txt | paste -sd' ') $(grep -ci fail $OUT/check_b64.txt) fail"
