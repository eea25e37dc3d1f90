#!/bin/bash
# Dev call 5 (59th session): ncu counters of h67 (the tree), zs (planes outside x skipped) and
# r32 (row tiles of 32 + 24) at the bench row, f16: why 11% fewer matrix steps (zs) and a
# shorter busiest wave (r32) take longer.
mkdir -p .devbin/zp && tar xJf .devbin/s59/c5.tar.xz -C .devbin/zp
B=.devbin/zp
NCU=/usr/local/cuda/bin/ncu
M=gpu__time_duration.sum,smsp__inst_executed.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed,smsp__issue_active.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__cycles_active.avg.pct_of_peak_sustained_elapsed
for s in barrier long_scoreboard short_scoreboard mio_throttle math_pipe_throttle wait not_selected selected dispatch_stall branch_resolving no_instruction sleeping membar lg_throttle drain; do M=$M,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio; done
for v in h67 zs r32; do
  echo "== $v"
  NOCHECK=1 CASES="bench ncdhw f16" timeout 100 $NCU -k regex:toeplitz -s 3 -c 1 --metrics $M $B/bench_$v $v --time-only 2>&1 | grep -E "^\s+(smsp|l1tex|sm__|gpu__|dram|lts)" | awk '{print $1, $(NF)}' | sed -e 's/smsp__average_warps_issue_stalled_//' -e 's/_per_issue_active.ratio//'
done
