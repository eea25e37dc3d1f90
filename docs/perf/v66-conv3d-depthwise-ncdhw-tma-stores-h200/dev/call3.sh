#!/bin/bash
# Dev call 3 (57th session), on ts (outputs by TMA stores): rz / rz2 (HACK, pitch 64 only: kh 0's
# rows 8-15 and kh 2's rows 0-7 of a tile's window are kh 1's; one ldmatrix.x4 and two .x2 a
# tile-plane against three .x4; rz2 loads each .x2 just before its products), ts5 (five slots).
tar xJf .devbin/s57/c3.tar.xz
B=.devbin/zp
for r in 1 2 3; do
  for v in new ts rz rz2 ts5; do
    NOCHECK=1 CASES="bench ncdhw" $B/bench_$v $v --time-only 2>&1 | grep -E "bench ncdhw"
  done
done
timeout 100 $B/bench_ts5 ts5 --check-only > $OUT/check_ts5.txt 2>&1; echo "rc $?" >> $OUT/check_ts5.txt
echo "ts5: $(tail -2 $OUT/check_ts5.txt | paste -sd' ') $(grep -ci fail $OUT/check_ts5.txt) fail"
