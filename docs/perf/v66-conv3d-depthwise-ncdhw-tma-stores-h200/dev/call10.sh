#!/bin/bash
# Dev call 10 (57th session): fin3 (the output tile's TMA store inside write_out, one call site a
# plane) against fin2; checks of fin3 with TMA and without.
tar xJf .devbin/s57/c10.tar.xz
B=.devbin/zp
for r in 1 2; do for v in fin2 fin3; do
  NOCHECK=1 CASES="bench ncdhw" $B/bench_$v $v --time-only 2>&1 | grep -E "bench ncdhw"
done; done
timeout 100 $B/bench_fin3 fin3 --check-only > /tmp/c.txt 2>&1; echo "fin3: $(tail -1 /tmp/c.txt) rc $? $(grep -ci fail /tmp/c.txt) fail"
HIPCONV_CONV3D_TMA=0 timeout 100 $B/bench_fin3 fin3 --check-only > /tmp/c2.txt 2>&1; echo "fin3 TMA=0: $(tail -1 /tmp/c2.txt) $(grep -ci fail /tmp/c2.txt) fail"
