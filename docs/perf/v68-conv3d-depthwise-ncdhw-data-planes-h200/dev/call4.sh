#!/bin/bash
# Dev call 4 (59th session): h67 (the tree) against r32 (row tiles of 32 + 24 rows at the
# bench's 56-row planes: the launcher takes the row count with the fewest tile steps a wave,
# 16 and 12 tiles, against 14 + 14; the kernel skips a wave's last tile by the item's own
# tiles) and sh (output boxes stored with the L2 evict-first policy); their checks.
mkdir -p .devbin/zp && tar xJf .devbin/s59/c4.tar.xz -C .devbin/zp
B=.devbin/zp
for r in 1 2 3; do for v in h67 r32 sh; do
  NOCHECK=1 CASES="bench ncdhw" timeout 20 $B/bench_$v $v --time-only 2>&1 | grep -E "bench ncdhw"
done; done
timeout 60 $B/bench_r32 r32 --check-only > /tmp/c.txt 2>&1; echo "r32: rc $? $(tail -1 /tmp/c.txt) $(grep -ci fail /tmp/c.txt) fail"
HIPCONV_CONV3D_TMA=0 timeout 60 $B/bench_r32 r32 --check-only > /tmp/c.txt 2>&1; echo "r32 notma: rc $? $(tail -1 /tmp/c.txt) $(grep -ci fail /tmp/c.txt) fail"
timeout 60 $B/bench_sh sh --check-only > /tmp/c.txt 2>&1; echo "sh: rc $? $(tail -1 /tmp/c.txt) $(grep -ci fail /tmp/c.txt) fail"
