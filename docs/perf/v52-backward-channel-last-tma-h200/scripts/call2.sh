#!/bin/bash
# Call 2: channel-last tiled backward: head / tanh / tma (tanh + TMA boxes), alternated; ncu of tma.
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/gpu.txt; date -u | tee -a $OUT/gpu.txt
B=.devbin/s44
for r in 1 2; do for v in head tanh tma; do echo "== $v (round $r)"; timeout 120 $B/bw_$v; done; done > $OUT/bw.txt 2>&1
grep -v "^check" $OUT/bw.txt | grep -v f32; grep "^check" $OUT/bw.txt | sort | uniq -c
mkdir -p $OUT/ncu
for v in tma; do for dt in f16; do
timeout 120 ncu --set full --import-source yes -k regex:backward_channel_last_tiled --launch-skip 1 --launch-count 1 --clock-control none -o /tmp/ncu_${v}_$dt $B/bw_$v profile cl $dt 8 4096 2048 > /tmp/ncu_${v}_$dt.log 2>&1
ncu --import /tmp/ncu_${v}_$dt.ncu-rep --page details > $OUT/ncu/${v}_$dt.txt 2>&1
ncu --import /tmp/ncu_${v}_$dt.ncu-rep --page raw | grep -E "smsp__pcsamp_warps_issue_stalled_|smsp__inst_executed.sum |sm__cycles_elapsed.avg " > $OUT/ncu/${v}_${dt}_raw.txt 2>&1
ncu --import /tmp/ncu_${v}_$dt.ncu-rep --page source --print-source sass --csv > $OUT/ncu/${v}_${dt}_source.csv 2>&1
done; done
grep -H -E "Duration|DRAM Throughput|L2 Cache Throughput|Issued Warp|No Eligible|Executed Instructions  |Registers Per|Achieved Occupancy" $OUT/ncu/*_f16.txt
cd $OUT && tar czf ncu.tgz ncu && rm -rf ncu
