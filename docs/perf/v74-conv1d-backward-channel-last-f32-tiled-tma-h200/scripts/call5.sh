#!/bin/bash
D=$PWD; mkdir -p /tmp/b && cd /tmp/b && tar xJf $D/.devbin/s69/e.tar.xz
for r in 1 2; do for v in land prod; do echo "== $v default round $r"; timeout 90 ./bwd_$v; done; done > $OUT/bench.txt 2>&1
for v in prod land; do echo "== $v clf32"; timeout 60 ./bwd_$v clf32; done >> $OUT/bench.txt 2>&1
grep -h "^==\|us \|check\|FAIL\|rror" $OUT/bench.txt | sed 's/ dx .*//'
