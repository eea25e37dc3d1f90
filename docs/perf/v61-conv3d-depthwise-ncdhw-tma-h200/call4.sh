#!/bin/bash
# Dev call 4 (52nd session): NCDHW depthwise (toeplitz kernel) with each plane staged by one
# TMA box (tma) against HEAD's cp.async staging (g8 = HEAD's depthwise kernels).
B=.devbin/dw
for v in g8 tma g8 tma; do NOCHECK=1 CASES="bench ncdhw" $B/depthwise_bench_$v $v --time-only 2>&1 | grep -E "bench"; done
CASES="bench ncdhw" $B/depthwise_bench_tma tma --time-only 2>&1 | tail -3
$B/depthwise_bench_tma tma --check-only > $OUT/check_tma.txt 2>&1; echo "rc $?" >> $OUT/check_tma.txt; tail -2 $OUT/check_tma.txt; grep -ic "fail" $OUT/check_tma.txt
for c in "frames" "row tiles" "depth chunks" "pad h 2"; do
  CASES="$c" compute-sanitizer --tool memcheck $B/depthwise_bench_tma tma --check-only 2>&1 | grep -E "ERROR SUMMARY|FAIL"
done
CASES="two row tiles" compute-sanitizer --tool racecheck $B/depthwise_bench_tma tma --check-only 2>&1 | grep -E "RACECHECK SUMMARY|FAIL"
M=lts__t_sectors_srcunit_tex_op_read.sum,lts__t_requests_srcunit_tex_op_read.sum,lts__t_sectors_op_read.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,lts__ltcfabric2ltc_cycles_active.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active
for v in g8 tma; do echo "== ncu $v"; CASES="bench ncdhw f16" ncu --clock-control none -k regex:toeplitz_kernel --launch-skip 5 --launch-count 1 --metrics $M $B/depthwise_bench_$v $v --time-only 2>&1 | grep -E "toeplitz_kernel|^ +(lts|l1tex|gpu__|sm__|smsp)" | cut -c1-150; done
