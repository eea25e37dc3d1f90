#!/bin/bash
# dev call 1 of the 49th session: halo kernel (U-Net 32ch) variants
cd "$(dirname "$0")"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
export OMP_NUM_THREADS=16
for v in tma r4; do ./ig_s49$v $v 2>&1 | grep -v "^$" ; done
for r in 1 2; do
  for v in head tma r4 r4ns r4ne; do CASES=unet32 ./ig_s49$v $v --time-only 2>&1 | grep " us"; done
done
CASES="unet32 ndhwc f16" timeout 200 ncu --kernel-name regex:halo --launch-count 1 --metrics \
sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,l1tex__data_pipe_lsu_wavefronts_mem_shared.avg.pct_of_peak_sustained_elapsed,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,gpu__time_duration.sum,smsp__average_warp_latency_issue_stalled_barrier.ratio,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_math_pipe_throttle.ratio,smsp__average_warp_latency_issue_stalled_short_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_wait.ratio,smsp__average_warp_latency_issue_stalled_mio_throttle.ratio,smsp__average_warp_latency_issue_stalled_lg_throttle.ratio,smsp__warps_active.avg.per_cycle_active,launch__registers_per_thread,launch__occupancy_limit_shared_mem \
  ./ig_s49r4 r4 --time-only 2>&1 | grep -v "^==PROF==" | tail -25
