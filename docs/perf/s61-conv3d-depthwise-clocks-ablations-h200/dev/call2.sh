#!/bin/bash
# Dev call 2 (61st session): ablations of the tree's depthwise kernels at the bench row, timed
# as the bench times them (short bursts, SM clock ~1.98 GHz): NCDHW tnm (no matrix steps),
# tnl (no window loads either), tpure (nor the epilogue: boxes, waits, barriers, stores),
# tnio (no boxes, no stores); NDHWC dnm (no matrix steps), dpure (no ldmatrix, stmatrix
# either), dnio (no boxes, no stores). Three rounds.
mkdir -p .devbin/zp && tar xJf .devbin/s61/c2.tar.xz -C .devbin/zp
B=.devbin/zp
for r in 1 2 3; do
  NOCHECK=1 CASES="bench n" timeout 40 $B/bench_fin60r fin60r --time-only | grep -v passed
  for v in tnm tnl tpure tnio; do NOCHECK=1 CASES="bench ncdhw f16" timeout 40 $B/bench_$v $v --time-only | grep -v passed; done
  for v in dnm dpure dnio; do NOCHECK=1 CASES="bench ndhwc f16" timeout 40 $B/bench_$v $v --time-only | grep -v passed; done
done
