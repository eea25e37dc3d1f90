#!/bin/bash
# Dev call 6 (56th session). The boxes' L2 promotion (the map's CU_TENSOR_MAP_L2_PROMOTION): fin and
# pf (HEAD's 256 B); pn, p128 (pf with none / 128 B); the read skeletons nomma_nowo_noepi (256 B),
# rpn (none), r128 (128 B).
tar xJf .devbin/s56/c6.tar.xz
B=.devbin/zp
for r in 1 2 3; do
  for v in fin pf pn p128 nomma_nowo_noepi rpn r128; do
    NOCHECK=1 CASES="bench ncdhw" $B/bench_$v $v --time-only 2>&1 | grep -E "bench ncdhw"
  done
done
for v in pn p128; do
  timeout 120 $B/bench_$v $v --check-only > $OUT/check_$v.txt 2>&1; echo "rc $?" >> $OUT/check_$v.txt
  echo "$v: $(tail -2 $OUT/check_$v.txt | paste -sd' ') $(grep -ci fail $OUT/check_$v.txt) fail"
done
