#!/bin/bash
# Call 11: the channel's last piece to arrive sums the f32 partials itself (lp: an arrival count a channel in
# the workspace, left at zero by each call; no reduction launch) against the landed code (dep), alternated;
# memcheck and racecheck of lp on two split shapes.
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/gpu.txt; date -u | tee -a $OUT/gpu.txt
B=.devbin/s45
for r in 1 2 3; do for v in dep lp; do echo "== $v (round $r)"; timeout 120 $B/bw_$v cf; done; done > $OUT/bw11.txt 2>&1
grep -v "^check" $OUT/bw11.txt | cut -c1-150; grep "^check" $OUT/bw11.txt | sort | uniq -c
for t in memcheck racecheck; do for s in "f32 8 2500 512" "f32 3 2400 1500"; do
echo "== $t $s"; timeout 60 compute-sanitizer --tool $t --error-exitcode 9 $B/bw_lp profile cf $s 2>&1 | tail -1; done; done
