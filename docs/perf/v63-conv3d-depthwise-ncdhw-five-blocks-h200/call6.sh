#!/bin/bash
# Dev call 6 (53rd session): NCDHW only. head (HEAD's kernels), kh (the plane's products
# with kh outside the tile loop: each accumulator's three steps a tile loop apart), b2
# (256-thread blocks, two an SM, two tiles a warp).
tar xJf .devbin/zp6.tar.xz
B=.devbin/zp
for v in head kh b2; do CASES="bench ncdhw" $B/bench_$v $v --time-only 2>&1 | grep -E "bench ncdhw"; done
for r in 1 2; do for v in head kh b2; do
  NOCHECK=1 CASES="bench ncdhw" $B/bench_$v $v --time-only 2>&1 | grep -E "bench ncdhw"
done; done
for v in kh b2; do
  timeout 120 $B/bench_$v $v --check-only > $OUT/check_$v.txt 2>&1; echo "rc $?" >> $OUT/check_$v.txt
  echo "$v: $(tail -2 $OUT/check_$v.txt | paste -sd' ') $(grep -ci fail $OUT/check_$v.txt) fail"
done
