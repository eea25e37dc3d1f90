#!/bin/bash
# Dev call 3 (61st session): NDHWC e2 (TMA's requests from warps 5 and 6: boxes, stores and
# their waits, against thread 0 for all) with --check-only and timed; and the memory-only
# ablations split: NCDHW tr / tw (boxes only / stores only, no products, loads or epilogue),
# NDHWC dr1 / dw (the same). Three rounds against the tree (fin60r).
mkdir -p .devbin/zp && tar xJf .devbin/s61/c3.tar.xz -C .devbin/zp
B=.devbin/zp
timeout 120 $B/bench_e2 e2 --check-only 2>&1 | tail -3
for r in 1 2 3; do
  NOCHECK=1 CASES="bench n" timeout 40 $B/bench_fin60r fin60r --time-only | grep -v passed
  NOCHECK=1 CASES="bench nd" timeout 40 $B/bench_e2 e2 --time-only | grep -v passed
  NOCHECK=1 CASES="ndhwc bench bf16" timeout 40 $B/bench_fin60r fin60r --time-only | grep -v passed
  NOCHECK=1 CASES="ndhwc bench bf16" timeout 40 $B/bench_e2 e2 --time-only | grep -v passed
  for v in tr tw; do NOCHECK=1 CASES="bench ncdhw f16" timeout 40 $B/bench_$v $v --time-only | grep -v "passed\|FAILED"; done
  for v in dr1 dw; do NOCHECK=1 CASES="bench ndhwc f16" timeout 40 $B/bench_$v $v --time-only | grep -v "passed\|FAILED"; done
done
