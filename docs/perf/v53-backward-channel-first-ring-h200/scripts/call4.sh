#!/bin/bash
# Call 4: the channel-first backward's blocks piece-major (pm: block = piece·dim + c, so that the blocks
# running together read neighbouring channels of one batch row) at 1/2/4/8 pieces, against the tree
# (channel-major, f32 runs of four tiles), alternated.
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/gpu.txt; date -u | tee -a $OUT/gpu.txt
B=.devbin/s45
for r in 1 2; do for v in "tree" "pm 1" "pm 2" "pm 4" "pm 8"; do set -- $v
echo "== $v (round $r)"; if [ -n "$2" ]; then PIECES=$2 timeout 120 $B/bw_$1 cf; else timeout 120 $B/bw_$1 cf; fi; done; done > $OUT/bw4.txt 2>&1
grep -v "^check" $OUT/bw4.txt | cut -c1-60; grep "^check" $OUT/bw4.txt | sort | uniq -c
