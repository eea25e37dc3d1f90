#!/bin/bash
# Dev call 13 (61st session): b64 (the NCDHW launcher's block sizes {64, 128, 256}: at the bench
# row 2-warp blocks of 14 rows, ten an SM, instead of 4-warp blocks of 28 rows, five an SM),
# --check-only with TMA, three rounds timed against the tree (fin60r).
mkdir -p .devbin/zp && tar xJf .devbin/s61/c13.tar.xz -C .devbin/zp
B=.devbin/zp
timeout 150 $B/bench_b64 b64 --check-only 2>&1 | grep -v "err "
for r in 1 2 3; do
  NOCHECK=1 CASES="bench nc" timeout 40 $B/bench_fin60r fin60r --time-only | grep -v passed
  NOCHECK=1 CASES="bench nc" timeout 40 $B/bench_b64 b64 --time-only | grep -v passed
done
