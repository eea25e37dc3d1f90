#!/bin/bash
# Dev call 9 (60th session): fin60r (the tree after the review: Geometry::dense set once, after
# the maps, and read by both the launcher's dispatch and the shared-memory size) against fin60:
# every check case with TMA and without, one timing round.
mkdir -p .devbin/zp && tar xJf .devbin/s60/c9.tar.xz -C .devbin/zp
B=.devbin/zp
for v in fin60 fin60r; do NOCHECK=1 CASES="bench ncdhw" timeout 20 $B/bench_$v $v --time-only 2>&1 | grep -E "bench ncdhw"; done
timeout 60 $B/bench_fin60r fin60r --check-only > /tmp/c.txt 2>&1; echo "fin60r: rc $? $(tail -1 /tmp/c.txt) $(grep -ci fail /tmp/c.txt) fail"
HIPCONV_CONV3D_TMA=0 timeout 60 $B/bench_fin60r fin60r --check-only > /tmp/c.txt 2>&1; echo "fin60r TMA=0: rc $? $(tail -1 /tmp/c.txt) $(grep -ci fail /tmp/c.txt) fail"
CASES="dense 57 rows" timeout 30 compute-sanitizer --tool memcheck $B/bench_fin60r fin60r --check-only 2>&1 | grep -E "ERROR SUMMARY" | sed "s/^/memcheck dense 57 rows: /"
