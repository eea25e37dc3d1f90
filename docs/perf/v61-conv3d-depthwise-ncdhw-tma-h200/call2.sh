#!/bin/bash
# Dev call 2 (52nd session): g8b2 = 64 ch x 16 rows (two bands of 8 warps, one 512-thread
# block an SM) against g8 (HEAD's tile); nohint = the NCDHW toeplitz kernel's cp.async
# without the L2::256B prefetch, against g8's (HEAD's).
B=.devbin/dw
for v in g8 g8b2 nohint g8 g8b2 nohint; do NOCHECK=1 CASES="bench" $B/depthwise_bench_$v $v --time-only 2>&1 | grep -E "bench n|ndhwc bench"; done
timeout 200 env CASES=ndhwc $B/depthwise_bench_g8b2 g8b2 > $OUT/check_g8b2.txt 2>&1; echo "rc $?" >> $OUT/check_g8b2.txt
tail -2 $OUT/check_g8b2.txt; grep -i "fail" $OUT/check_*.txt
M=lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,lts__ltcfabric2ltc_cycles_active.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,gpu__time_duration.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active
for v in g8b2; do
  echo "== ncu $v ndhwc"; CASES="bench ndhwc f16" ncu --clock-control none -k regex:diagonal --launch-skip 5 --launch-count 1 --metrics $M $B/depthwise_bench_$v $v --time-only 2>&1 | grep -v "^==PROF==" | grep -E "^ +(lts|dram|gpu__|sm__|smsp)"
done
for v in g8 nohint; do
  echo "== ncu $v ncdhw"; CASES="bench ncdhw f16" ncu --clock-control none -k regex:toeplitz_kernel --launch-skip 5 --launch-count 1 --metrics $M,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_requests_srcunit_tex_op_read.sum $B/depthwise_bench_$v $v --time-only 2>&1 | grep -v "^==PROF==" | grep -E "^ +(lts|dram|gpu__|sm__|smsp)"
done
