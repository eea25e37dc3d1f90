#!/bin/bash
# Dev call 2 (64th session): bk2 (bk with every lane's outputs kept and the straddling masks
# applied in the loop, no spills) --check-only, then timed against the tree (fin60r = v69).
mkdir -p .devbin/zp && tar xJf .devbin/s64/c1.tar.xz -C .devbin/zp && tar xJf .devbin/s64/c2.tar.xz -C .devbin/zp
B=.devbin/zp
timeout 150 $B/bench_bk2 bk2 --check-only > /tmp/chk.txt 2>&1; echo "rc $?"; grep -E "dense|inf|nan|e-0[0-3]|e\+|FAIL|passed" /tmp/chk.txt | tail -40; grep -c "err" /tmp/chk.txt
for r in 1 2 3; do
  for v in fin60r bk2; do NOCHECK=1 CASES="bench nc" timeout 40 $B/bench_$v $v --time-only | grep -v "passed"; done
done
