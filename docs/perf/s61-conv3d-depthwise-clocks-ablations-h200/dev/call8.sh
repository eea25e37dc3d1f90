#!/bin/bash
# Dev call 8 (61st session): pft / pfd (NCDHW / NDHWC: with each plane's box, the plane 4
# further on prefetched into the L2 by a TMA prefetch of the same box), pft8 / pfd8 (8
# further on); --check-only of pft and pfd, three rounds timed against the tree (fin60r).
mkdir -p .devbin/zp && tar xJf .devbin/s61/c8.tar.xz -C .devbin/zp
B=.devbin/zp
for v in pft pfd; do timeout 150 $B/bench_$v $v --check-only 2>&1 | grep -v "err "; done
for r in 1 2 3; do
  NOCHECK=1 CASES="bench n" timeout 40 $B/bench_fin60r fin60r --time-only | grep -v passed
  for v in pft pft8; do NOCHECK=1 CASES="bench nc" timeout 40 $B/bench_$v $v --time-only | grep -v passed; done
  for v in pfd pfd8; do NOCHECK=1 CASES="bench nd" timeout 40 $B/bench_$v $v --time-only | grep -v passed; done
done
