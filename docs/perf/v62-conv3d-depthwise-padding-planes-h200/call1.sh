#!/bin/bash
# Dev call 1 (53rd session): head (= HEAD's kernels), zp (padding planes skipped, both
# layouts), c8 (zp; NCDHW outputs by TMA boxes; NDHWC depth chunks of 8), b256 (c8's NCDHW
# kernel at 256 threads, three blocks an SM).
tar xJf .devbin/zp.tar.xz
B=.devbin/zp
for v in head zp c8 b256; do CASES="bench n" $B/bench_$v $v --time-only 2>&1 | grep -E "bench n"; done
for r in 1 2; do for v in head zp c8 b256; do
  NOCHECK=1 CASES="bench n" $B/bench_$v $v --time-only 2>&1 | grep -E "bench n"
  NOCHECK=1 CASES="ndhwc bench bf16" $B/bench_$v $v --time-only 2>&1 | grep -E "ndhwc bench"
done; done
for v in zp c8 b256; do
  timeout 120 $B/bench_$v $v --check-only > $OUT/check_$v.txt 2>&1; echo "rc $?" >> $OUT/check_$v.txt
  echo "$v: $(tail -1 $OUT/check_$v.txt) $(grep -ci fail $OUT/check_$v.txt) fail"
done
for c in "pad d 2" "frames" "two row tiles" "depth chunks" "rows of 400"; do
  CASES="$c" timeout 60 compute-sanitizer --tool memcheck $B/bench_c8 c8 --check-only 2>&1 | grep -E "ERROR SUMMARY|FAIL" | sed "s/^/$c: /"
done
for c in "two row tiles" "pad d 2"; do
  CASES="$c" timeout 60 compute-sanitizer --tool racecheck $B/bench_c8 c8 --check-only 2>&1 | grep -E "RACECHECK SUMMARY|FAIL" | sed "s/^/$c: /"
done
M=dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,lts__ltcfabric2ltc_cycles_active.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active
echo "== ncu copy16 308.3 MB"; ncu --clock-control none -k copy16 --launch-skip 3 --launch-count 1 --metrics $M $B/copy_ceiling 308.3 2>&1 | grep -E "^ +(lts|dram|gpu__|sm__|smsp)"
for v in zp c8; do
  echo "== ncu $v ncdhw"; CASES="bench ncdhw f16" ncu --clock-control none -k regex:toeplitz_kernel --launch-skip 5 --launch-count 1 --metrics $M $B/bench_$v $v --time-only 2>&1 | grep -E "^ +(lts|dram|gpu__|sm__|smsp)"
  echo "== ncu $v ndhwc"; CASES="bench ndhwc f16" ncu --clock-control none -k regex:diagonal --launch-skip 5 --launch-count 1 --metrics $M $B/bench_$v $v --time-only 2>&1 | grep -E "^ +(lts|dram|gpu__|sm__|smsp)"
done
