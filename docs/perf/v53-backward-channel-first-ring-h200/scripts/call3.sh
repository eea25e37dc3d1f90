#!/bin/bash
# Call 3: f32 pieces 1/4/8/16 (ring: envp; HEAD's kernel without the ring: headp), alternated.
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/gpu.txt; date -u | tee -a $OUT/gpu.txt
B=.devbin/s45
for r in 1 2; do for v in "envp 1" "envp 4" "envp 8" "envp 16" "headp 1" "headp 8" "headp 16"; do set -- $v
echo "== $v (round $r)"; PIECES=$2 timeout 120 $B/bw_$1 cf | grep -v "^check"; done; done > $OUT/bw3.txt 2>&1
grep -v f16 $OUT/bw3.txt | cut -c1-50
