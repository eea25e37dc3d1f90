#!/bin/bash
# Dev call 5 (64th session): bk3 (bk2 with tiles of 16 rows of one block: every lane's window
# and outputs at one offset plus immediates; waves 0 and 1 take the straddling tiles)
# --check-only, then timed with bk3nm (bk3 without the masks: wrong values at row ends),
# bkns (call 3) and the tree (fin60r = v69).
mkdir -p .devbin/zp && for c in c1 c3 c5; do tar xJf .devbin/s64/$c.tar.xz -C .devbin/zp; done
B=.devbin/zp
timeout 150 $B/bench_bk3 bk3 --check-only > /tmp/chk.txt 2>&1; echo "rc $?"; grep -E "dense|inf|nan|e-0[0-2]|e\+|FAIL|passed|bench|two row|wide|400" /tmp/chk.txt | grep -v ndhwc | tail -30; grep -c "err" /tmp/chk.txt
for r in 1 2 3; do
  for v in fin60r bk3 bk3nm bkns; do NOCHECK=1 CASES="bench nc" timeout 40 $B/bench_$v $v --time-only | grep -v "passed\|FAILED"; done
done
