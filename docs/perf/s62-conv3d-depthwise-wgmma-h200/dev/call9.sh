#!/bin/bash
# Dev call 9 (62nd session): nb (NCDHW dense instances: no block barrier in the plane loop;
# per-slot empty mbarriers that the box thread waits on, per-tile full / empty mbarriers
# between the epilogue and the storing thread; 96 registers, 52 bytes of spills)
# --check-only, then timed against the tree.
mkdir -p .devbin/zp && tar xJf .devbin/s62/c9.tar.xz -C .devbin/zp
B=.devbin/zp
timeout 150 $B/bench_nb nb --check-only > /tmp/chk.txt 2>&1; echo "rc $?"; grep -v "err " /tmp/chk.txt | tail -30; grep -c "err " /tmp/chk.txt
for r in 1 2; do
  for v in fin60r nb; do NOCHECK=1 CASES="bench nc" timeout 40 $B/bench_$v $v --time-only | grep -v "passed"; done
done
