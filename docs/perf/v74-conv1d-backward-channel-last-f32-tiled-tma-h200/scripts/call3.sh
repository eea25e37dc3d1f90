#!/bin/bash
D=$PWD; mkdir -p /tmp/b && cd /tmp/b && tar xJf $D/.devbin/s69/c.tar.xz
for r in 1 2; do for v in land d12b4 d16b3 d12b3 d8b4 d16b4 d24b3 e12b4; do echo "== $v round $r"; timeout 60 ./bwd_$v clf32; done; done > $OUT/bench.txt 2>&1
for n in 1 2 3 4 6 8 12; do echo "== d12b4 DEV_RUNS=$n"; DEV_RUNS=$n timeout 60 ./bwd_d12b4 clf32; done > $OUT/runs.txt 2>&1
N="ncu --clock-control none --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats --section SchedulerStats --section MemoryWorkloadAnalysis -k regex:channel_last --launch-skip 1 --launch-count 1"
$N ./bwd_d12b4 profile cl f32 8 4096 2048 > $OUT/ncu_d12b4_small.txt 2>&1
$N ./bwd_d12b4 profile cl f32 4 5120 4096 > $OUT/ncu_d12b4_large.txt 2>&1
grep -h "^==\|us \|FAIL\|rror" $OUT/bench.txt $OUT/runs.txt | sed 's/ dx .*//' | paste - - - 
grep -h "Duration\|DRAM Throughput\|Achieved Occupancy\|No Eligible\|Grid Size\|Waves Per" $OUT/ncu_*.txt
