#!/bin/bash
# Dev call 3 (58th session): lm1 (timing only: kh 1's window for all three kh, a third of the
# ldmatrix traffic) against new; ncu stall reasons and shared-memory counters of new and lm1.
tar xJf .devbin/s58/c3.tar.xz
B=.devbin/zp
for r in 1 2 3; do for v in new lm1; do
  NOCHECK=1 CASES="bench ncdhw f16" $B/bench_$v $v --time-only 2>&1 | grep -E "bench ncdhw"
done; done
NCU=/usr/local/cuda/bin/ncu
M=smsp__inst_executed.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_elapsed,l1tex__lsu_writeback_active.avg.pct_of_peak_sustained_elapsed,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed,sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_elapsed,smsp__issue_active.avg.pct_of_peak_sustained_elapsed,sm__mio_inst_issued.avg.pct_of_peak_sustained_elapsed,sm__mio_pq_read_cycles_active.avg.pct_of_peak_sustained_elapsed,sm__mio_pq_write_cycles_active.avg.pct_of_peak_sustained_elapsed,smsp__inst_executed_op_shfl.sum,gpu__time_duration.sum
for s in barrier long_scoreboard short_scoreboard mio_throttle math_pipe_throttle wait not_selected selected lg_throttle dispatch_stall membar sleeping branch_resolving no_instruction drain tex_throttle; do M=$M,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio; done
for v in new lm1; do
  echo "== $v"
  NOCHECK=1 CASES="bench ncdhw f16" timeout 150 $NCU -k regex:toeplitz -s 3 -c 1 --metrics $M $B/bench_$v $v --time-only 2>&1 | grep -E "^\s+(smsp|l1tex|sm__|gpu__)" | awk '{print $1, $(NF)}'
done
