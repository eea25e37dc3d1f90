#!/bin/bash
# Dev call 6 (64th session): bq (NDHWC diagonal kernel at stride 1: the bias as a register
# quad of its own, each output's first product's addend, instead of 16 moves a plane into the
# accumulators) --check-only, then timed against the tree (fin60r = v69).
mkdir -p .devbin/zp && for c in c1 c6; do tar xJf .devbin/s64/$c.tar.xz -C .devbin/zp; done
B=.devbin/zp
timeout 150 $B/bench_bq bq --check-only > /tmp/chk.txt 2>&1; echo "rc $?"; grep -E "inf|nan|e-0[0-2]|e\+|FAIL|passed" /tmp/chk.txt | tail -30; grep -c "err" /tmp/chk.txt
for r in 1 2 3; do
  for v in fin60r bq; do NOCHECK=1 CASES="ndhwc" timeout 40 $B/bench_$v $v --time-only | grep -v "passed\|FAILED"; done
done
