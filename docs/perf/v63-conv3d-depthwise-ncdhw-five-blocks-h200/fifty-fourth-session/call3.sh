#!/bin/bash
# Dev call 3 (54th session). NCDHW: head, wo (the output tile's LDS/STG behind the plane's
# matrix steps), lw (boxes issued by the last wave, which has fewer tiles), wolw (both).
# NDHWC: head, ep (output rows 0-3 into the tile inside the row loop), ep2 (ep; output
# tiles stored by the last warp's lane 0).
tar xJf .devbin/a3.tar.xz
B=.devbin/zp
for r in 1 2 3; do
  for v in head wo lw wolw; do NOCHECK=1 CASES="bench ncdhw" $B/bench_$v $v --time-only 2>&1 | grep -E "bench ncdhw"; done
  for v in head ep ep2; do
    NOCHECK=1 CASES="bench ndhwc" $B/bench_$v $v --time-only 2>&1 | grep -E "bench ndhwc"
    NOCHECK=1 CASES="ndhwc bench bf16" $B/bench_$v $v --time-only 2>&1 | grep -E "ndhwc bench"
  done
done
for v in wolw ep2; do
  timeout 100 $B/bench_$v $v --check-only > $OUT/check_$v.txt 2>&1; echo "rc $?" >> $OUT/check_$v.txt
  echo "$v: $(tail -2 $OUT/check_$v.txt | paste -sd' ') $(grep -ci fail $OUT/check_$v.txt) fail"
done
