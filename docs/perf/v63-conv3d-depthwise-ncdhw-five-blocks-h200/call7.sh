#!/bin/bash
# Dev call 7 (53rd session): NCDHW only. head, kh (kh outside the tile loop), kh5 (kh at
# five 4-warp blocks an SM: 96 registers, no spills).
tar xJf .devbin/zp7.tar.xz
B=.devbin/zp
for r in 1 2 3; do for v in head kh kh5; do
  NOCHECK=1 CASES="bench ncdhw" $B/bench_$v $v --time-only 2>&1 | grep -E "bench ncdhw"
done; done
timeout 100 $B/bench_kh5 kh5 --check-only > $OUT/check_kh5.txt 2>&1; echo "rc $?" >> $OUT/check_kh5.txt
echo "kh5: $(tail -2 $OUT/check_kh5.txt | paste -sd' ') $(grep -ci fail $OUT/check_kh5.txt) fail"
