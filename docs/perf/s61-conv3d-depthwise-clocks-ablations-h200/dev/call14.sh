#!/bin/bash
# Dev call 14 (61st session), timing only: trb (the NCDHW reads-only pipeline tr with each
# plane's rows inside x as one 1-D bulk copy, landed as if dense: the sixtieth session's rb)
# against tr, and rbt (rb on the whole tree) against the tree (fin60r); three rounds.
mkdir -p .devbin/zp && tar xJf .devbin/s61/c14.tar.xz -C .devbin/zp
B=.devbin/zp
for r in 1 2 3; do
  for v in tr trb; do NOCHECK=1 CASES="bench ncdhw f16" timeout 40 $B/bench_$v $v --time-only | grep -v "passed\|FAILED"; done
  for v in fin60r rbt; do NOCHECK=1 CASES="bench nc" timeout 40 $B/bench_$v $v --time-only | grep -v "passed\|FAILED"; done
done
