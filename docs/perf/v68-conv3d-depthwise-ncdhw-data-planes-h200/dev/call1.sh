#!/bin/bash
# Dev call 1 (59th session): h67 (the tree) against zs (planes outside x skipped: no box, no
# products), rr (zs + per-row 1-D bulk loads by the box warp), rs (zs + per-row 1-D bulk
# stores by the store warp), rrs (both); checks of every variant, zs also without TMA.
mkdir -p .devbin/zp && tar xJf .devbin/s59/c1.tar.xz -C .devbin/zp
B=.devbin/zp
for v in zs rr rs rrs; do
  timeout 60 $B/bench_$v $v --check-only > /tmp/c.txt 2>&1; echo "$v: rc $? $(tail -1 /tmp/c.txt) $(grep -ci fail /tmp/c.txt) fail"
done
HIPCONV_CONV3D_TMA=0 timeout 60 $B/bench_zs zs --check-only > /tmp/c.txt 2>&1; echo "zs notma: rc $? $(tail -1 /tmp/c.txt) $(grep -ci fail /tmp/c.txt) fail"
for r in 1 2 3; do for v in h67 zs rr rs rrs; do
  NOCHECK=1 CASES="bench ncdhw" $B/bench_$v $v --time-only 2>&1 | grep -E "bench ncdhw"
done; done
