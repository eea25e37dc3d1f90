#!/bin/bash
# Dev call 8 (56th session). The NDHWC diagonal kernel's x map L2 promotion (for the next session;
# the tree as landed = new, 256 B): d128 (128 B), dnone (none). Three rounds of the NDHWC rows.
tar xJf .devbin/s56/c8.tar.xz
B=.devbin/zp
for r in 1 2 3; do
  for v in new d128 dnone; do
    NOCHECK=1 CASES="bench ndhwc" $B/bench_$v $v --time-only 2>&1 | grep -E "bench ndhwc"
    NOCHECK=1 CASES="ndhwc bench bf16" $B/bench_$v $v --time-only 2>&1 | grep -E "ndhwc bench"
  done
done
for v in d128 dnone; do
  CASES=ndhwc timeout 60 $B/bench_$v $v --check-only > $OUT/check_$v.txt 2>&1; echo "rc $?" >> $OUT/check_$v.txt
  echo "$v: $(tail -2 $OUT/check_$v.txt | paste -sd' ') $(grep -ci fail $OUT/check_$v.txt) fail"
done
