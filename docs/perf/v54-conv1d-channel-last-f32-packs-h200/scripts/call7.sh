#!/bin/bash
cd .devbin/s46
./update_bench f32 | grep "tokens 4"
M="--kernel-name-base demangled -k regex:\(int\)3,.\(int\)4,.\(bool\)0 --launch-count 1 --section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis --section InstructionStats"
for skip in 10 281; do timeout 100 ncu $M --launch-skip $skip ./update_bench f32 2>&1 | grep -v "^update\|^==PROF" ; done > $OUT/ncu_update_f32_4tok.txt
grep -E "Duration|Executed Ipc A|Warp Cycles Per Issued|Issued Warp|Executed Instructions  |DRAM Throughput|Achieved Occupancy|Registers Per|Memory Throughput|No Eligible|L2 Hit|Stall" $OUT/ncu_update_f32_4tok.txt | head -60
