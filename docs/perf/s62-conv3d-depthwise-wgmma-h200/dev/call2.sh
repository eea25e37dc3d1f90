#!/bin/bash
# Dev call 2 (62nd session): wgt (wg, a wgmma batch a tile and each tile's epilogue as its
# batch ends) --check-only; wg, wgt against the tree; wgnio / wgtnio (no boxes' bytes, no
# stores: the arithmetic alone) against tnio (the tree's, 61st session).
mkdir -p .devbin/zp && tar xJf .devbin/s62/c2.tar.xz -C .devbin/zp
B=.devbin/zp
timeout 120 $B/bench_wgt wgt --check-only > /tmp/chk.txt 2>&1; grep -v "err " /tmp/chk.txt | tail -30; grep -c "err " /tmp/chk.txt
for r in 1 2; do
  for v in fin60r wg wgt; do NOCHECK=1 CASES="bench nc" timeout 40 $B/bench_$v $v --time-only | grep -v "passed"; done
  for v in tnio wgnio wgtnio; do NOCHECK=1 CASES="bench ncdhw f16" timeout 40 $B/bench_$v $v --time-only | grep -v "passed\|FAILED"; done
done
