#!/bin/bash
# Call 4: tmas (dy boxes one tile ahead) against tmas2 (dy boxes two ahead, thread 0 waiting for the dx store's read), alternated.
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/gpu.txt; date -u | tee -a $OUT/gpu.txt
B=.devbin/s44
for r in 1 2 3; do for v in tmas tmas2; do echo "== $v (round $r)"; timeout 120 $B/bw_$v; done; done > $OUT/bw.txt 2>&1
grep -v "^check" $OUT/bw.txt | grep -v f32 | cut -c1-60; grep "^check" $OUT/bw.txt | sort | uniq -c
