#!/bin/bash
# Dev call 5 (62nd session): st (NCDHW dense output tiles stored by every thread, 16-byte
# st.global, against one bulk store by a thread) --check-only and timed against the tree;
# the memory side alone with each store (tpure / stpure) and the writes alone (tw / stw).
mkdir -p .devbin/zp && tar xJf .devbin/s62/c5.tar.xz -C .devbin/zp
B=.devbin/zp
timeout 120 $B/bench_st st --check-only > /tmp/chk.txt 2>&1; grep -v "err " /tmp/chk.txt | tail -30; grep -c "err " /tmp/chk.txt
for r in 1 2; do
  for v in fin60r st; do NOCHECK=1 CASES="bench nc" timeout 40 $B/bench_$v $v --time-only | grep -v "passed"; done
  for v in tpure stpure tw stw; do NOCHECK=1 CASES="bench ncdhw f16" timeout 40 $B/bench_$v $v --time-only | grep -v "passed\|FAILED"; done
done
