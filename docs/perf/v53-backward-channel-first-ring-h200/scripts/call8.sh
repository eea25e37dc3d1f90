#!/bin/bash
# Call 8: the partials' reduction launched as a dependent (early-placed) follower of the backward kernels (dep)
# against the tree (an ordinary launch), channel-first and channel-last rows, alternated; sanitizers on dep.
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/gpu.txt; date -u | tee -a $OUT/gpu.txt
B=.devbin/s45
for r in 1 2 3; do for v in tree dep; do echo "== $v (round $r)"; timeout 120 $B/bw_$v cf; timeout 120 $B/bw_$v; done; done > $OUT/bw7.txt 2>&1
grep -v "^check" $OUT/bw7.txt | cut -c1-150; grep "^check" $OUT/bw7.txt | sort | uniq -c
for t in memcheck racecheck synccheck; do for s in "cf f32 8 2500 512" "cf f32 2 40 2100" "cl f16 3 136 203" "cl f32 3 136 203"; do
echo "== $t $s"; timeout 100 compute-sanitizer --tool $t --error-exitcode 9 $B/bw_dep profile $s 2>&1 | tail -1; done; done
