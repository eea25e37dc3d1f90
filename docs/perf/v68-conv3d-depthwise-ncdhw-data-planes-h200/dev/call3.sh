#!/bin/bash
# Dev call 3b (59th session): h67 (the tree) against rot (the waves' tile sets rotated by the
# block, so that the heavier sets of an SM's blocks fall on different sub-partitions); rot's
# checks with TMA and without. (Call 3, with a timing-only variant without the plane barrier,
# nb, hung: without the barrier a slot's mbarrier can complete two phases before a wave waits.)
mkdir -p .devbin/zp && tar xJf .devbin/s59/c3.tar.xz -C .devbin/zp
B=.devbin/zp
for r in 1 2 3; do for v in h67 rot; do
  NOCHECK=1 CASES="bench ncdhw" timeout 20 $B/bench_$v $v --time-only 2>&1 | grep -E "bench ncdhw"
done; done
timeout 60 $B/bench_rot rot --check-only > /tmp/c.txt 2>&1; echo "rot: rc $? $(tail -1 /tmp/c.txt) $(grep -ci fail /tmp/c.txt) fail"
HIPCONV_CONV3D_TMA=0 timeout 60 $B/bench_rot rot --check-only > /tmp/c.txt 2>&1; echo "rot notma: rc $? $(tail -1 /tmp/c.txt) $(grep -ci fail /tmp/c.txt) fail"
