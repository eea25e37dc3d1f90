#!/bin/bash
# Dev call 2 (59th session): h67 (the tree) against ns (no output stores: timing only), hs2 /
# hs3 (every second / third output plane stored by the threads' 16-byte stores, the others by
# TMA), ts (every output plane by the threads, TMA instance); checks of hs2, hs3, ts.
mkdir -p .devbin/zp && tar xJf .devbin/s59/c2.tar.xz -C .devbin/zp
B=.devbin/zp
for v in hs2 hs3 ts; do
  timeout 60 $B/bench_$v $v --check-only > /tmp/c.txt 2>&1; echo "$v: rc $? $(tail -1 /tmp/c.txt) $(grep -ci fail /tmp/c.txt) fail"
done
for r in 1 2 3; do for v in h67 ns hs2 hs3 ts; do
  NOCHECK=1 CASES="bench ncdhw" $B/bench_$v $v --time-only 2>&1 | grep -E "bench ncdhw"
done; done
