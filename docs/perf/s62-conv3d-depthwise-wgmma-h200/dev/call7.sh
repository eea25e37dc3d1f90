#!/bin/bash
# Dev call 7 (62nd session), timing only: what the NDHWC boxes' halo costs. dh (the tree's
# diagonal kernel with boxes of 8 x 8 positions, the outputs' own, instead of 10 x 10; wrong
# values), dhr (dh's reads alone, = dr1 with those boxes) against fin60r and dr1.
mkdir -p .devbin/zp && tar xJf .devbin/s62/c6.tar.xz -C .devbin/zp
B=.devbin/zp
for r in 1 2; do
  for v in fin60r dh; do NOCHECK=1 CASES="bench nd" timeout 40 $B/bench_$v $v --time-only | grep -v "passed\|FAILED"; done
  for v in dr1 dhr; do NOCHECK=1 CASES="bench nd" timeout 40 $B/bench_$v $v --time-only | grep -v "passed\|FAILED"; done
done
