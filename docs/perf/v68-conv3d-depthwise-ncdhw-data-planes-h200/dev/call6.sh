#!/bin/bash
# Dev call 6 (59th session): h67 (the tree) against st (the mbarrier waits with a suspend-time
# hint: TRYWAIT + NANOSLEEP.SYNCS instead of a YIELD spin), zs and zst (zs with st's waits);
# the NDHWC bench rows of h67 and st; checks of st and zst.
mkdir -p .devbin/zp && tar xJf .devbin/s59/c6.tar.xz -C .devbin/zp
B=.devbin/zp
for r in 1 2 3; do for v in h67 st zs zst; do
  NOCHECK=1 CASES="bench ncdhw" timeout 20 $B/bench_$v $v --time-only 2>&1 | grep -E "bench ncdhw"
done; done
for r in 1 2; do for v in h67 st; do
  NOCHECK=1 CASES="bench ndhwc" timeout 20 $B/bench_$v $v --time-only 2>&1 | grep -E "bench ndhwc"
done; done
for v in st zst; do
timeout 60 $B/bench_$v $v --check-only > /tmp/c.txt 2>&1; echo "$v: rc $? $(tail -1 /tmp/c.txt) $(grep -ci fail /tmp/c.txt) fail"
done
