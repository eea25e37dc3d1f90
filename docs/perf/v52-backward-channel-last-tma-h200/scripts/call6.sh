#!/bin/bash
# Call 6: channel-first backward fed by a ring of bulk copies: ring (4 stages), ring5 (5), ringb10 (4, 10 f32 blocks),
# ringst (5 stages, dx out by bulk stores from the dy slot) against HEAD's kernel, alternated; sanitizers on ringst.
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/gpu.txt; date -u | tee -a $OUT/gpu.txt
B=.devbin/s44d
for r in 1 2; do for v in head ring ring5 ringb10 ringst; do echo "== $v (round $r)"; timeout 120 $B/bw_$v cf; done; done > $OUT/bw.txt 2>&1
grep -v "^check" $OUT/bw.txt | cut -c1-140; grep "^check" $OUT/bw.txt | sort | uniq -c
for t in memcheck racecheck synccheck; do for s in "f32 3 136 208" "f32 2 40 2100" "f16 1 64 1000" "f16 3 8 4096"; do
echo "== $t $s"; timeout 100 compute-sanitizer --tool $t $B/bw_ringst profile cf $s 2>&1 | tail -1; done; done
