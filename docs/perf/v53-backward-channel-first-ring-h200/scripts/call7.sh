#!/bin/bash
# Call 7: f32 ring pieces summed in their cluster (cl: no partials, no reduction launch) against the tree
# (partials + reduction), alternated; sanitizers over cl's clustered shapes.
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/gpu.txt; date -u | tee -a $OUT/gpu.txt
B=.devbin/s45
for r in 1 2 3; do for v in tree cl; do echo "== $v (round $r)"; timeout 120 $B/bw_$v cf; done; done > $OUT/bw6.txt 2>&1
grep -v "^check" $OUT/bw6.txt | cut -c1-150; grep "^check" $OUT/bw6.txt | sort | uniq -c
for t in memcheck racecheck synccheck; do for s in "f32 8 2500 512" "f32 3 2400 1500" "f32 2 40 2100"; do
echo "== $t $s"; timeout 100 compute-sanitizer --tool $t --error-exitcode 9 $B/bw_cl profile cf $s 2>&1 | tail -1; done; done
