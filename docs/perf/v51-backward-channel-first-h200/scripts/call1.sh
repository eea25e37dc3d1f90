#!/bin/bash
# Call 1: backward channel-first variants (head, pf2, v2b6, b12) alternated twice; ncu of head and pf2 f32/f16.
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/gpu.txt; date -u | tee -a $OUT/gpu.txt
B=.devbin/s43
for r in 1 2; do for v in head pf2 pf2b7 v2b6 b12; do echo "== $v (round $r)"; timeout 100 $B/bw_$v cf; done; done > $OUT/bw.txt 2>&1
cat $OUT/bw.txt | grep -v "^check" 
for v in head pf2b7; do for dt in f32 f16; do
timeout 90 ncu --set full -k regex:backward_channel_first --launch-skip 1 --launch-count 1 --clock-control none -o /tmp/ncu_${v}_$dt $B/bw_$v profile cf $dt 8 4096 2048 > /tmp/ncu_${v}_$dt.log 2>&1
ncu --import /tmp/ncu_${v}_$dt.ncu-rep --page details > $OUT/ncu_${v}_$dt.txt 2>&1
done; done
grep -h -E "Duration|Registers Per|Achieved Occupancy|Theoretical Occupancy|DRAM Throughput|Memory Throughput|Issued Warp|No Eligible|Block Limit Reg" $OUT/ncu_*.txt | head -60
