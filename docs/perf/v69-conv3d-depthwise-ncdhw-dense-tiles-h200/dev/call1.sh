#!/bin/bash
# Dev call 1 (60th session): fin59 (HEAD) against do (dense output tiles, one bulk store a plane,
# pitch 64), bp (a plane barrier every two planes, 5 slots, 4 output tiles) and dobp (both);
# their checks, and fin59b's (the threads' copies skip planes past the data) without TMA.
mkdir -p .devbin/zp && tar xJf .devbin/s60/c1.tar.xz -C .devbin/zp
B=.devbin/zp
for r in 1 2 3; do for v in fin59 do bp dobp; do
  NOCHECK=1 CASES="bench ncdhw" timeout 20 $B/bench_$v $v --time-only 2>&1 | grep -E "bench ncdhw"
done; done
for v in do bp dobp; do
  timeout 60 $B/bench_$v $v --check-only > /tmp/c.txt 2>&1; echo "$v: rc $? $(tail -1 /tmp/c.txt) $(grep -ci fail /tmp/c.txt) fail"
  grep -i fail /tmp/c.txt | head -5
done
HIPCONV_CONV3D_TMA=0 timeout 60 $B/bench_fin59b fin59b --check-only > /tmp/c.txt 2>&1; echo "fin59b notma: rc $? $(tail -1 /tmp/c.txt) $(grep -ci fail /tmp/c.txt) fail"
grep -i fail /tmp/c.txt | head -5
