#!/bin/bash
# Dev call 9 (61st session): the NCDHW memory pipeline's reads alone (tr: boxes, waits and
# barriers; no stores, loads, products or epilogue) with 3, 5 (tr), 7 and 9 ring slots at the
# dense instances (1-3, 3-5, 5-7, 7-9 boxes in flight a block; 7 and 9 slots leave room for
# four blocks an SM instead of five), timing only, three rounds.
mkdir -p .devbin/zp && tar xJf .devbin/s61/c9.tar.xz -C .devbin/zp
B=.devbin/zp
for r in 1 2 3; do
  for v in tr3 tr tr7 tr9; do NOCHECK=1 CASES="bench ncdhw f16" timeout 40 $B/bench_$v $v --time-only | grep -v "passed\|FAILED"; done
done
