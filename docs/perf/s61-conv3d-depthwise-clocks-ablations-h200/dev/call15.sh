#!/bin/bash
# Dev call 15 (61st session): vt (NCDHW: x's map as (8 elements, in[2] / 8 vectors, h, d,
# n c), boxes of (8, pitch / 8, rows + 2): the same slot layout, each row read as 16-byte
# vectors, the box's last vector a row outside x as the gap's zeros) --check-only and timed
# against the tree (fin60r); trv (the same in the reads-only pipeline tr) against tr.
mkdir -p .devbin/zp && tar xJf .devbin/s61/c15.tar.xz -C .devbin/zp
B=.devbin/zp
timeout 100 $B/bench_vt vt --check-only > /tmp/chk.txt 2>&1; grep -v "err " /tmp/chk.txt; grep -c "err " /tmp/chk.txt
for r in 1 2; do
  for v in tr trv; do NOCHECK=1 CASES="bench ncdhw f16" timeout 40 $B/bench_$v $v --time-only | grep -v "passed\|FAILED"; done
  for v in fin60r vt; do NOCHECK=1 CASES="bench nc" timeout 40 $B/bench_$v $v --time-only | grep -v "passed"; done
done
