#!/bin/bash
# Call 2: backward channel-first: head, st (16-byte stores written out), sttanh (st + 16-bit SiLU' by tanh), alternated; ncu of st and sttanh.
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/gpu.txt; date -u | tee -a $OUT/gpu.txt
B=.devbin/s43
for r in 1 2 3; do for v in head st sttanh; do echo "== $v (round $r)"; timeout 100 $B/bw_$v cf; done; done > $OUT/bw.txt 2>&1
grep -v "^check" $OUT/bw.txt; grep "^check" $OUT/bw.txt | sort | uniq -c
for v in st sttanh; do for dt in f32 f16; do
timeout 90 ncu --set full -k regex:backward_channel_first --launch-skip 1 --launch-count 1 --clock-control none -o /tmp/ncu_${v}_$dt $B/bw_$v profile cf $dt 8 4096 2048 > /tmp/ncu_${v}_$dt.log 2>&1
ncu --import /tmp/ncu_${v}_$dt.ncu-rep --page details > $OUT/ncu_${v}_$dt.txt 2>&1
done; done
grep -H -E "Duration|L2 Cache Throughput|DRAM Throughput|Issued Warp|No Eligible|Executed Instructions  " $OUT/ncu_*.txt
