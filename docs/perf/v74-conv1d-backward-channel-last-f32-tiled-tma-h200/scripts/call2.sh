#!/bin/bash
D=$PWD; mkdir -p /tmp/b && cd /tmp/b && tar xJf $D/.devbin/s69/b.tar.xz
for r in 1 2; do for v in land d12b4 d16b3 d12b3 d8b4 e12b4 e16b4 e24b3 e8b6; do echo "== $v round $r"; timeout 60 ./bwd_$v clf32; done; done > $OUT/bench.txt 2>&1
N="ncu --clock-control none --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats --section SchedulerStats --section MemoryWorkloadAnalysis -k regex:channel_last --launch-skip 1 --launch-count 1"
$N ./bwd_d12b4 profile cl f32 8 4096 2048 > $OUT/ncu_d12b4_small.txt 2>&1
$N ./bwd_d12b4 profile cl f32 4 5120 4096 > $OUT/ncu_d12b4_large.txt 2>&1
$N ./bwd_land profile cl f32 4 5120 4096 > $OUT/ncu_land_large.txt 2>&1
grep -h "^==\|us " $OUT/bench.txt | paste - - - 
grep -h "Duration\|DRAM Throughput\|Achieved Occupancy\|No Eligible\|Registers Per\|Waves Per" $OUT/ncu_*.txt
