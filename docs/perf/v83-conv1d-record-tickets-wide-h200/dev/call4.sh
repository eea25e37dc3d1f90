#!/bin/bash
# Call 4: the wide rows (4,2048,4096,{8,16,32}) on the H200: every algorithm the bench has
# (which one wins here), then ncu of one launch of each wide kernel Auto runs.
tar xJf .devbin/bench.tar.xz
B=dist/examples/bench
S="--shape 4,2048,4096,8 --shape 4,2048,4096,16 --shape 4,2048,4096,32"
{
timeout 200 $B --family conv1d --table rows $S --json /tmp/wide.json 2>&1 | grep -v "^$"
} 2>&1 | tee $OUT/call4_wide_all.txt
cp /tmp/wide.json $OUT/wide_all.json
for spec in "toeplitz_channel_first 16" "toeplitz_rows_channel_last 16" "wide_channel_first 32" "window_channel_last 16" "toeplitz_channel_first 32" "toeplitz_rows_channel_last 32"; do
  set -- $spec
  echo "=== ncu $1 width $2"
  timeout 90 ncu --clock-control none --kernel-name regex:"conv1d_direct_$1_kernel" --launch-skip 3 --launch-count 1 \
    --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats --section MemoryWorkloadAnalysis \
    $B --family conv1d --table rows --auto-only --shape 4,2048,4096,$2 --json /tmp/n.json 2>&1 | \
    grep -E "conv1d_direct|Duration|DRAM Throughput|Memory Throughput|Compute \(SM\)|L2 Cache Throughput|Achieved Occupancy|Theoretical Occupancy|Registers Per|Block Size|Grid Size|Stall|Warp Cycles Per Issued|Issue Slot|Shared Memory Configuration Size|Dynamic Shared|Static Shared|Waves Per SM|Executed Ipc|L1/TEX Hit|L2 Hit|Mem Busy|Max Bandwidth|Mem Pipes"
done 2>&1 | tee $OUT/call4_ncu.txt
