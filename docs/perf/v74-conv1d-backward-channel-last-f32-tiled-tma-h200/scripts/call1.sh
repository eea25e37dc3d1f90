#!/bin/bash
D=$PWD; cd $OUT && tar xJf $D/.devbin/s69/a.tar.xz && nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv,noheader
for r in 1 2; do for v in land t8b3 t10b3 t6b4 d16b3 d12b4 d16b4; do echo "== $v round $r"; timeout 60 ./bwd_$v clf32; done; done > bench.txt 2>&1
ncu --clock-control none --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats \
  --section MemoryWorkloadAnalysis -k regex:channel_last --launch-skip 1 --launch-count 1 ./bwd_t8b3 profile cl f32 8 4096 2048 > ncu_t8b3.txt 2>&1
ncu --clock-control none --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats \
  --section MemoryWorkloadAnalysis -k regex:channel_last --launch-skip 1 --launch-count 1 ./bwd_d16b3 profile cl f32 8 4096 2048 > ncu_d16b3.txt 2>&1
cat bench.txt | grep -v "^$" | tail -80
