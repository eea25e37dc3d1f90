#!/bin/bash
# Dev call 2 (54th session). NCDHW: head, rota (tiles rotated over the warps by item % 4),
# rots (rotated by a per-SM ticket). NDHWC: head, mb (no block barrier a plane: mbarriers
# for the stages' release and the output tiles' reuse).
tar xJf .devbin/a2.tar.xz
B=.devbin/zp
for r in 1 2 3; do
  for v in head rota rots; do NOCHECK=1 CASES="bench ncdhw" $B/bench_$v $v --time-only 2>&1 | grep -E "bench ncdhw"; done
  for v in head mb; do NOCHECK=1 CASES="bench ndhwc" $B/bench_$v $v --time-only 2>&1 | grep -E "bench ndhwc"; done
done
for v in rots mb; do
  timeout 100 $B/bench_$v $v --check-only > $OUT/check_$v.txt 2>&1; echo "rc $?" >> $OUT/check_$v.txt
  echo "$v: $(tail -2 $OUT/check_$v.txt | paste -sd' ') $(grep -ci fail $OUT/check_$v.txt) fail"
done
