#!/bin/bash
# Dev call 4 (61st session): sm (NCDHW dense tiles written by stmatrix.x4, two tiles a store,
# the gap block's row to a dropped 16 bytes) and s6d (NDHWC six stages at stride 1), each
# --check-only, then three rounds timed against the tree (fin60r); memcheck and racecheck of sm
# over the dense cases.
mkdir -p .devbin/zp && tar xJf .devbin/s61/c4.tar.xz -C .devbin/zp
B=.devbin/zp
for v in sm s6d; do timeout 120 $B/bench_$v $v --check-only 2>&1 | grep -v "err " ; done
for r in 1 2 3; do
  NOCHECK=1 CASES="bench n" timeout 40 $B/bench_fin60r fin60r --time-only | grep -v passed
  NOCHECK=1 CASES="ndhwc bench bf16" timeout 40 $B/bench_fin60r fin60r --time-only | grep -v passed
  NOCHECK=1 CASES="bench nc" timeout 40 $B/bench_sm sm --time-only | grep -v passed
  NOCHECK=1 CASES="bench nd" timeout 40 $B/bench_s6d s6d --time-only | grep -v passed
  NOCHECK=1 CASES="ndhwc bench bf16" timeout 40 $B/bench_s6d s6d --time-only | grep -v passed
done
CS=/usr/local/cuda/bin/compute-sanitizer
for c in "dense 57 rows" "dense frames bf16 silu" "dense pad d 3"; do
  CASES="$c" timeout 100 $CS --tool memcheck $B/bench_sm sm --check-only 2>&1 | tail -2
done
CASES="dense 69 rows silu" timeout 100 $CS --tool racecheck $B/bench_sm sm --check-only 2>&1 | tail -2
