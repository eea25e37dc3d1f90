#!/bin/bash
# Call 1: the channel-first backward's ring (4 stages) with the pieces plan of HEAD (ring), with pieces
# of whole batch rows when the last round is part-full (base: the tree), and with the most pieces on ties
# (ringt), against HEAD's kernel (head), alternated; sanitizers on base.
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/gpu.txt; date -u | tee -a $OUT/gpu.txt
B=.devbin/s45
for r in 1 2 3; do for v in head ring base ringt; do echo "== $v (round $r)"; timeout 120 $B/bw_$v cf; done; done > $OUT/bw.txt 2>&1
grep -v "^check" $OUT/bw.txt | cut -c1-150; grep "^check" $OUT/bw.txt | sort | uniq -c
for t in memcheck racecheck synccheck; do for s in "f32 8 2500 512" "f16 6 4000 520" "f32 3 136 208" "f16 2 40 2100"; do
echo "== $t $s"; timeout 100 compute-sanitizer --tool $t --error-exitcode 9 $B/bw_base profile cf $s 2>&1 | tail -1; done; done
