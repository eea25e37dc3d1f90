#!/bin/bash
# Dev call 2 (53rd session): head (HEAD's kernels); pf (NCDHW: one resident wave, each block's
# boxes running on into its next item, taps prefetched into L1, outputs by TMA boxes, bias
# set when the output before is stored; NDHWC: padding planes' products skipped); new (pf
# and NCDHW padding planes' products skipped, NDHWC last wave split along depth).
tar xJf .devbin/zp2.tar.xz
B=.devbin/zp
for v in head pf new; do CASES="bench n" $B/bench_$v $v --time-only 2>&1 | grep -E "bench n"; done
for r in 1 2; do for v in head pf new; do
  NOCHECK=1 CASES="bench n" $B/bench_$v $v --time-only 2>&1 | grep -E "bench n"
  NOCHECK=1 CASES="ndhwc bench bf16" $B/bench_$v $v --time-only 2>&1 | grep -E "ndhwc bench"
done; done
for v in new pf; do
  timeout 150 $B/bench_$v $v --check-only > $OUT/check_$v.txt 2>&1; echo "rc $?" >> $OUT/check_$v.txt
  echo "$v: $(tail -2 $OUT/check_$v.txt | paste -sd' ') $(grep -ci fail $OUT/check_$v.txt) fail"
done
for c in "ncdhw many items" "pad d 2" "frames" "two row tiles" "depth chunks"; do
  CASES="$c" timeout 60 compute-sanitizer --tool memcheck $B/bench_new new --check-only 2>&1 | grep -E "ERROR SUMMARY|FAIL" | sed "s/^/$c: /"
done
for c in "ncdhw many items" "pad d 2"; do
  CASES="$c" timeout 90 compute-sanitizer --tool racecheck $B/bench_new new --check-only 2>&1 | grep -E "RACECHECK SUMMARY|FAIL" | sed "s/^/$c: /"
done
S=""; for r in barrier long_scoreboard short_scoreboard math_pipe_throttle mio_throttle wait not_selected dispatch_stall lg_throttle membar sleeping selected no_instruction branch_resolving drain; do S="$S,smsp__average_warps_issue_stalled_${r}_per_issue_active.ratio"; done
M=dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_op_read.sum,lts__ltcfabric2ltc_cycles_active.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active$S
for v in head new; do
  echo "== ncu $v ncdhw"; CASES="bench ncdhw f16" ncu --clock-control none -k regex:toeplitz_kernel --launch-skip 5 --launch-count 1 --metrics $M $B/bench_$v $v --time-only 2>&1 | grep -E "^ +(lts|dram|gpu__|sm__|smsp)" | sed -E 's/smsp__average_warps_issue_stalled_//; s/_per_issue_active.ratio//'
done
echo "== ncu new ndhwc"; CASES="bench ndhwc f16" ncu --clock-control none -k regex:diagonal --launch-skip 5 --launch-count 1 --metrics $M $B/bench_new new --time-only 2>&1 | grep -E "^ +(lts|dram|gpu__|sm__|smsp)" | sed -E 's/smsp__average_warps_issue_stalled_//; s/_per_issue_active.ratio//'
