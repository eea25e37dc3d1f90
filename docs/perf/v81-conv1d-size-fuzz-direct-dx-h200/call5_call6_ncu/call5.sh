#!/bin/bash
# Call 5: ncu, one cold launch of the tiled channel-last f32 kernel at (8,4096,2048,4), bias +
# SiLU: HEAD against dx stored from the walk (the variant of call 2).
cd .devbin
for v in head direct; do
  timeout 200 ncu --clock-control none -k regex:channel_last_tiled --launch-skip 1 --launch-count 1 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy \
    --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,smsp__inst_executed.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,smsp__average_warp_latency_issue_stalled_barrier.ratio \
    ./backward_bench_$v profile cl f32 8 4096 2048 > $OUT/call5_ncu_$v.txt 2>&1
  echo "$v exit $?"; grep -E "Duration|DRAM Throughput|L2 Cache Throughput|dram__bytes|lts__t_sectors_srcunit|inst_executed|op_st|Achieved Occupancy|stalled_barrier" $OUT/call5_ncu_$v.txt | head -20
done
