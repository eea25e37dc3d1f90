#!/bin/bash
# Dev call 1 (62nd session): wg (NCDHW dense tiles: the products as wgmma m64n24k16, A the
# slot's overlapping windows by a no-swizzle descriptor, B three bands of a kh from shared
# memory) --check-only, then timed against the tree (fin60r).
mkdir -p .devbin/zp && tar xJf .devbin/s62/c1.tar.xz -C .devbin/zp
B=.devbin/zp
timeout 120 $B/bench_wg wg --check-only > /tmp/chk.txt 2>&1; grep -v "err " /tmp/chk.txt | tail -60; grep -c "err " /tmp/chk.txt
for r in 1 2; do
  for v in fin60r wg; do NOCHECK=1 CASES="bench n" timeout 40 $B/bench_$v $v --time-only | grep -v "passed"; done
done
