#!/bin/bash
# Dev call 7 (60th session): ncu (the GPU's own clocks) of fin60 and dr at the bench row, f16:
# instructions, shared-memory bank conflicts and stalls, for why dense planes lose.
mkdir -p .devbin/zp && tar xJf .devbin/s60/c6.tar.xz -C .devbin/zp
B=.devbin/zp
NCU=/usr/local/cuda/bin/ncu
M=gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_elapsed,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__ltcfabric2ltc_cycles_active.avg.pct_of_peak_sustained_elapsed,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed
for s in barrier long_scoreboard short_scoreboard mio_throttle math_pipe_throttle wait not_selected selected no_instruction lg_throttle; do M=$M,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio; done
for v in fin60 dr; do
  echo "== $v"
  NOCHECK=1 CASES="bench ncdhw f16" timeout 100 $NCU --clock-control none -k regex:depthwise -s 3 -c 1 --metrics $M $B/bench_$v $v --time-only 2>&1 | grep -E "^\s+[a-z0-9_]+__" | awk '{print $1, $(NF)}' | sed -e 's/smsp__average_warps_issue_stalled_//' -e 's/_per_issue_active.ratio//'
done
