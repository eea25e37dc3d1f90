#!/bin/bash
# Call 7: backward channel-first: head, hist, b9 / b10 (hist with 9 / 10 resident f32 blocks: 56 / 48 registers), alternated 3x.
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/gpu.txt; date -u | tee -a $OUT/gpu.txt
B=.devbin/s43
for r in 1 2 3; do for v in head hist b9 b10; do echo "== $v (round $r)"; timeout 100 $B/bw_$v cf; done; done > $OUT/bw.txt 2>&1
grep -v "^check" $OUT/bw.txt | grep -v "f16 "; grep "^check" $OUT/bw.txt | sort | uniq -c
