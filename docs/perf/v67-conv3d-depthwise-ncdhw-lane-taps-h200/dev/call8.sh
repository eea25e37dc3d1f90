#!/bin/bash
# Dev call 8 (58th session): ncu counters of new, rbsb (timing-only bulk copies and stores) and dn4
# (the tree) at the bench row, f16.
tar xJf .devbin/s58/c8.tar.xz
B=.devbin/zp
NCU=/usr/local/cuda/bin/ncu
M=gpu__time_duration.sum,smsp__inst_executed.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed,smsp__issue_active.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_srcunit_tex_op_read.sum,dram__bytes_read.sum,dram__bytes_write.sum
for s in barrier long_scoreboard short_scoreboard mio_throttle math_pipe_throttle wait not_selected selected dispatch_stall branch_resolving no_instruction; do M=$M,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio; done
for v in new rbsb dn4; do
  echo "== $v"
  NOCHECK=1 CASES="bench ncdhw f16" timeout 150 $NCU -k regex:toeplitz -s 3 -c 1 --metrics $M $B/bench_$v $v --time-only 2>&1 | grep -E "^\s+(smsp|l1tex|sm__|gpu__|dram|lts)" | awk '{print $1, $(NF)}' | sed -e 's/smsp__average_warps_issue_stalled_//' -e 's/_per_issue_active.ratio//'
done
