#!/bin/bash
# Dev call 10 (62nd session): rr (NCDHW with TMA: each plane as one 1-D bulk copy a row into
# the gapped slot, row r by lane r of wave kWaves - 2; the gaps zeroed once a block, rows
# outside x once an item; 28 bytes of spills) --check-only, then timed against the tree;
# trr (rr's reads alone, tr's changes) against tr (boxes) and trb (one bulk copy a plane,
# dense: the sixty-first session's).
mkdir -p .devbin/zp && tar xJf .devbin/s62/c10.tar.xz -C .devbin/zp
B=.devbin/zp
timeout 150 $B/bench_rr rr --check-only > /tmp/chk.txt 2>&1; echo "rc $?"; grep -v "err " /tmp/chk.txt | tail -30; grep -c "err " /tmp/chk.txt
for r in 1 2; do
  for v in fin60r rr; do NOCHECK=1 CASES="bench nc" timeout 40 $B/bench_$v $v --time-only | grep -v "passed"; done
  for v in tr trb trr; do NOCHECK=1 CASES="bench ncdhw f16" timeout 40 $B/bench_$v $v --time-only | grep -v "passed\|FAILED"; done
done
