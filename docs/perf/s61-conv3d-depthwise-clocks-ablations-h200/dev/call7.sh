#!/bin/bash
# Dev call 7 (61st session): dnw / tnw (timing only: no wait for the output stores' reads of
# their tiles, NDHWC / NCDHW), dst (NDHWC stride 1 with four stages and six output tiles, the
# storing thread waiting for the stores of two barriers back) --check-only and timed; three
# rounds against the tree (fin60r).
mkdir -p .devbin/zp && tar xJf .devbin/s61/c7.tar.xz -C .devbin/zp
B=.devbin/zp
timeout 150 $B/bench_dst dst --check-only 2>&1 | grep -v "err "
for r in 1 2 3; do
  NOCHECK=1 CASES="bench n" timeout 40 $B/bench_fin60r fin60r --time-only | grep -v passed
  NOCHECK=1 CASES="bench nd" timeout 40 $B/bench_dnw dnw --time-only | grep -v passed
  NOCHECK=1 CASES="bench nc" timeout 40 $B/bench_tnw tnw --time-only | grep -v passed
  NOCHECK=1 CASES="bench nd" timeout 40 $B/bench_dst dst --time-only | grep -v passed
  NOCHECK=1 CASES="ndhwc bench bf16" timeout 40 $B/bench_dst dst --time-only | grep -v passed
  NOCHECK=1 CASES="ndhwc bench bf16" timeout 40 $B/bench_fin60r fin60r --time-only | grep -v passed
done
