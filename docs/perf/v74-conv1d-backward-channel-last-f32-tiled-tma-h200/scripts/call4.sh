#!/bin/bash
D=$PWD; mkdir -p /tmp/b && cd /tmp/b && tar xJf $D/.devbin/s69/d.tar.xz
for r in 1 2; do for v in land d24b3 d16b3 d32b3 d20b3 d28b3 f12b3 f8b4 f16b3; do echo "== $v round $r"; timeout 60 ./bwd_$v clf32; done; done > $OUT/bench.txt 2>&1
for n in 4 6 12 16; do echo "== d24b3 DEV_RUNS=$n"; DEV_RUNS=$n timeout 60 ./bwd_d24b3 clf32; done > $OUT/runs.txt 2>&1
N="ncu --clock-control none --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats --section SchedulerStats --section MemoryWorkloadAnalysis --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum -k regex:channel_last --launch-skip 1 --launch-count 1"
$N ./bwd_d24b3 profile cl f32 8 4096 2048 > $OUT/ncu_d24b3_small.txt 2>&1
$N ./bwd_land profile cl f32 8 4096 2048 > $OUT/ncu_land_small.txt 2>&1
grep -h "^==\|us \|FAIL\|rror" $OUT/bench.txt $OUT/runs.txt | sed 's/ dx .*//' | paste - - - 
grep -h "Duration\|DRAM Throughput\|Achieved Occupancy\|No Eligible\|Grid Size\|dram__bytes\|lts__t_bytes" $OUT/ncu_*.txt
