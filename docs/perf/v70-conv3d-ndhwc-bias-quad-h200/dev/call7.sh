#!/bin/bash
# Dev call 7 (64th session): bq timed against the tree (fin60r = v69) at the NDHWC bench row
# (call 6's timing loop matched every NDHWC timed case and ran past its timeouts).
mkdir -p .devbin/zp && for c in c1 c6; do tar xJf .devbin/s64/$c.tar.xz -C .devbin/zp; done
B=.devbin/zp
for r in 1 2 3; do
  for v in fin60r bq; do
    for k in "bench ndhwc f16" "ndhwc bench bf16"; do NOCHECK=1 CASES="$k" timeout 40 stdbuf -oL $B/bench_$v $v --time-only | grep -v "passed\|FAILED"; done
  done
done
