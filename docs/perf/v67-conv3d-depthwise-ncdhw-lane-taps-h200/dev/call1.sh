#!/bin/bash
# Dev call 1 (58th session): rl (planes by 1-D bulk copies into dense staging, re-laid into two
# gapped slots by every thread after the products), rl2 (the re-layout before the products), rln
# (rl without the matrix steps: the memory side alone), against new (HEAD).
tar xJf .devbin/s58/c1.tar.xz
B=.devbin/zp
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
for r in 1 2; do for v in new rl rl2 rln; do
  NOCHECK=1 CASES="bench ncdhw" $B/bench_$v $v --time-only 2>&1 | grep -E "bench ncdhw"
done; done
for v in rl rl2; do
  timeout 100 $B/bench_$v $v --check-only > /tmp/c.txt 2>&1; echo "$v: $(tail -1 /tmp/c.txt) $(grep -ci fail /tmp/c.txt) fail"
done
