#!/bin/bash
# Call 3: forward_bench (random inputs) of HEAD and six variants, twice in alternation;
# ncu durations of the channel-first f32 and channel-last bf16 SiLU kernels of each.
cd .devbin/s42
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
for round in 1 2; do
for v in base tanh16 cf_lb5 cf_lb6 cf_v2 cl_lb6 cl_lb8; do
  echo "== $v round $round"; ./fwd_$v 2>&1 | tee -a $OUT/bench_$v.txt | grep -E "worst|BAD|copy GB|silu=1|f32  channel_first silu=0" | sed 's/bench //'
done; done
for v in base tanh16 cf_lb5 cf_lb6 cf_v2 cl_lb6 cl_lb8; do
for c in "cf f32 1" "cf f16 1" "cl bf16 1" "cl f16 1"; do
  timeout 60 ncu --clock-control none --launch-skip 1 --launch-count 1 --section SpeedOfLight --section Occupancy --section SchedulerStats --metrics sm__inst_executed.sum ./fwd_$v profile $c > /tmp/ncu.txt 2>&1
  cat /tmp/ncu.txt >> $OUT/ncu_$v.txt
  echo "ncu $v $c: $(grep -E "Duration|Issued Warp|Achieved Occupancy|inst_executed|Registers Per" /tmp/ncu.txt | sed 's/  */ /g' | tr '\n' ';')"
done; done
