#!/bin/bash
# Dev call 7 (59th session): h67 (the tree) against zl (planes outside x skipped by the loop's
# bounds: the loop starts at the first plane with data, the ring's other outputs at the bias;
# planes from the last with data on take no box, wait or products); zl's checks.
mkdir -p .devbin/zp && tar xJf .devbin/s59/c7.tar.xz -C .devbin/zp
B=.devbin/zp
for r in 1 2 3; do for v in h67 zl; do
  NOCHECK=1 CASES="bench ncdhw" timeout 20 $B/bench_$v $v --time-only 2>&1 | grep -E "bench ncdhw"
done; done
timeout 60 $B/bench_zl zl --check-only > /tmp/c.txt 2>&1; echo "zl: rc $? $(tail -1 /tmp/c.txt) $(grep -ci fail /tmp/c.txt) fail"
HIPCONV_CONV3D_TMA=0 timeout 60 $B/bench_zl zl --check-only > /tmp/c.txt 2>&1; echo "zl notma: rc $? $(tail -1 /tmp/c.txt) $(grep -ci fail /tmp/c.txt) fail"
