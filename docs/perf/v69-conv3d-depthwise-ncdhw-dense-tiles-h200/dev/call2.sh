#!/bin/bash
# Dev call 2 (60th session): fin59 (HEAD) against s5 / s6 (5 / 6 TMA slots, a barrier a plane)
# and bp6 (6 slots, a barrier every two planes); their checks; ncu at the GPU's own clocks
# (--clock-control none) of fin59's NCDHW and NDHWC bench rows, f16.
mkdir -p .devbin/zp && tar xJf .devbin/s60/c2.tar.xz -C .devbin/zp
B=.devbin/zp
for r in 1 2 3; do for v in fin59 s5 s6 bp6; do
  NOCHECK=1 CASES="bench ncdhw" timeout 20 $B/bench_$v $v --time-only 2>&1 | grep -E "bench ncdhw"
done; done
for v in s6 bp6; do
  timeout 60 $B/bench_$v $v --check-only > /tmp/c.txt 2>&1; echo "$v: rc $? $(tail -1 /tmp/c.txt) $(grep -ci fail /tmp/c.txt) fail"
  grep -i fail /tmp/c.txt | head -5
done
NCU=/usr/local/cuda/bin/ncu
M=gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,lts__cycles_elapsed.avg.per_second,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__throughput.avg.pct_of_peak_sustained_elapsed,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed,smsp__issue_active.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,breakdown:gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed
for c in "bench ncdhw f16" "bench ndhwc f16"; do
  echo "== $c"
  NOCHECK=1 CASES="$c" timeout 100 $NCU --clock-control none -k regex:toeplitz -s 3 -c 1 --metrics $M $B/bench_fin59 fin59 --time-only 2>&1 | grep -E "^\s+[a-z0-9_]+__" | awk '{print $1, $(NF)}'
done
