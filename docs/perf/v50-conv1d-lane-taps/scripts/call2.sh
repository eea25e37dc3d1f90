#!/bin/bash
# Call 2: forward_bench of HEAD and three variants (SiLU by tanh.approx; channel-first taps
# once a lane; channel-last taps widened once), alternated; ncu of HEAD's kernels.
cd .devbin/s42
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
for v in base tanh16 cfhoist cltaps base; do
  echo "== $v"; s=$(date +%s); ./fwd_$v 2>&1 | tee -a $OUT/bench_$v.txt | grep -vE "^$"; echo "($(( $(date +%s) - s )) s)"
done
M=sm__inst_executed.sum,smsp__inst_executed_pipe_xu.sum,sm__pipe_shared_cycles_active.avg.pct_of_peak_sustained_active
for c in "cf f32 0" "cf f32 1" "cf f16 1" "cl bf16 0" "cl bf16 1" "cl f16 1"; do
  echo "== ncu $c"
  timeout 60 ncu --clock-control none --launch-skip 1 --launch-count 1 --section SpeedOfLight --section Occupancy --section SchedulerStats --section WarpStateStats --section LaunchStats --metrics $M ./fwd_base profile $c > /tmp/ncu.txt 2>&1
  cat /tmp/ncu.txt >> $OUT/ncu_base.txt
  grep -E "Duration|DRAM Throughput|Issue Slots Busy|Issued Warp|No Eligible|Achieved Occupancy|Registers Per|Block Limit Reg|Stall Long|Warp Cycles Per Issued|inst_executed|pipe_xu" /tmp/ncu.txt | sed 's/  */ /g'
done
