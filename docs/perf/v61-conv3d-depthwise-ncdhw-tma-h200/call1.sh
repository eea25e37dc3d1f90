#!/bin/bash
# Dev call 1 (52nd session): diagonal depthwise NDHWC kernel tile shapes, g8 = HEAD's tile
# (64 ch x 8 rows), g4 = 32 ch x 16 rows (64-byte lines), g2 = 16 ch x 32 rows (32-byte lines).
B=.devbin/dw
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv
for v in g8 g4 g2 g8 g4 g2; do NOCHECK=1 CASES="bench" $B/depthwise_bench_$v $v --time-only 2>&1 | grep -i "ndhwc"; done
for v in g4 g2; do timeout 200 env CASES=ndhwc $B/depthwise_bench_$v $v > $OUT/check_$v.txt 2>&1; echo "rc $?" >> $OUT/check_$v.txt; done
grep -v "generic" $OUT/check_g4.txt | tail -40; tail -3 $OUT/check_g2.txt; grep -i "fail" $OUT/check_*.txt
for c in "ndhwc row tiles" "ndhwc partial group" "ndhwc 17 rows" "ndhwc stride 2 frames" "ndhwc rows of 200"; do
  CASES="$c" compute-sanitizer --tool memcheck $B/depthwise_bench_g4 g4 2>&1 | grep -E "ERROR SUMMARY|err "
done
M=lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,lts__ltcfabric2ltc_cycles_active.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,gpu__time_duration.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active
for v in g8 g4 g2; do
  echo "== ncu $v"; CASES="bench ndhwc f16" ncu --clock-control none -k regex:diagonal --launch-skip 5 --launch-count 1 --metrics $M $B/depthwise_bench_$v $v --time-only 2>&1 | grep -v "^==PROF==" | grep -E "lts|dram|gpu__|sm__"
done
