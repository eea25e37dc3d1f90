#!/bin/bash
# Call 3: backward channel-first: head, st, sttanh, lean (st + tanh + walk in 32-bit times), alternated 3x; ncu of lean (source stalls) f32/f16.
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/gpu.txt; date -u | tee -a $OUT/gpu.txt
B=.devbin/s43
for r in 1 2 3; do for v in head st sttanh lean; do echo "== $v (round $r)"; timeout 100 $B/bw_$v cf; done; done > $OUT/bw.txt 2>&1
grep -v "^check" $OUT/bw.txt; grep "^check" $OUT/bw.txt | sort | uniq -c
for dt in f32 f16; do
timeout 100 ncu --set full --import-source yes -k regex:backward_channel_first --launch-skip 1 --launch-count 1 --clock-control none -o /tmp/ncu_lean_$dt $B/bw_leanl profile cf $dt 8 4096 2048 > /tmp/ncu_lean_$dt.log 2>&1
ncu --import /tmp/ncu_lean_$dt.ncu-rep --page details > $OUT/ncu_lean_$dt.txt 2>&1
ncu --import /tmp/ncu_lean_$dt.ncu-rep --page raw | grep -E "smsp__average_warp(s_issue_stalled|_latency_issue_stalled)_[a-z_]+_per_issue_active.ratio|smsp__pcsamp_warps_issue_stalled_[a-z_]+ " | grep -v "not_issued" > $OUT/stalls_lean_$dt.txt 2>&1
ncu --import /tmp/ncu_lean_$dt.ncu-rep --page source --print-source sass --csv > /tmp/src_$dt.csv 2>&1; gzip -c /tmp/src_$dt.csv > $OUT/src_lean_$dt.csv.gz
done
grep -H -E "Duration|L2 Cache Throughput|DRAM Throughput|Issued Warp|No Eligible|Executed Instructions  " $OUT/ncu_*.txt
cat $OUT/stalls_lean_f32.txt | sort -k3 -n -r | head -12
