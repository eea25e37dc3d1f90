#!/bin/bash
# Dev call 3 (64th session), timing only: bk2 (dense slots, bulk reads, right values) against
# bknm (bk2 without the straddling masks: wrong values at row ends), bkns (bk2 without the
# straddling tiles: wrong values), rbt (sixty-first session: the tree's arithmetic on bulk
# reads, wrong values) and the tree (fin60r = v69).
mkdir -p .devbin/zp && for c in c1 c2 c3; do tar xJf .devbin/s64/$c.tar.xz -C .devbin/zp; done
B=.devbin/zp
for r in 1 2 3; do
  for v in fin60r bk2 bknm bkns rbt; do NOCHECK=1 CASES="bench ncdhw f16" timeout 40 $B/bench_$v $v --time-only | grep -v "passed\|FAILED"; done
done
