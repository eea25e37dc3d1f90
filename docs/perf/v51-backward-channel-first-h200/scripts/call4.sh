#!/bin/bash
# Call 4: backward channel-first: head, lean, hist (lean + lane 0 loads only the history words), alternated 3x; ncu of hist f32/f16.
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/gpu.txt; date -u | tee -a $OUT/gpu.txt
B=.devbin/s43
for r in 1 2 3; do for v in head lean hist; do echo "== $v (round $r)"; timeout 100 $B/bw_$v cf; done; done > $OUT/bw.txt 2>&1
grep -v "^check" $OUT/bw.txt; grep "^check" $OUT/bw.txt | sort | uniq -c
for dt in f32 f16; do
timeout 100 ncu --set full -k regex:backward_channel_first --launch-skip 1 --launch-count 1 --clock-control none -o /tmp/ncu_hist_$dt $B/bw_hist profile cf $dt 8 4096 2048 > /tmp/ncu_hist_$dt.log 2>&1
ncu --import /tmp/ncu_hist_$dt.ncu-rep --page details > $OUT/ncu_hist_$dt.txt 2>&1
ncu --import /tmp/ncu_hist_$dt.ncu-rep --page raw | grep -E "smsp__pcsamp_warps_issue_stalled_[a-z_]+ " | grep -v "not_issued" > $OUT/stalls_hist_$dt.txt 2>&1
done
grep -H -E "Duration|L2 Cache Throughput|DRAM Throughput|Issued Warp|No Eligible|Executed Instructions  " $OUT/ncu_*.txt
for dt in f32 f16; do sort -k3 -n -r -t' ' $OUT/stalls_hist_$dt.txt | awk '{print $1, $NF}' | sort -k2 -n -r | head -6; done
