# Call 3 (48th session): the NCDHW depthwise (toeplitz) kernel's staging copies with L2::256B prefetch (head), 128B,
# no prefetch size (evict-first kept), or no cache hint at all; time-only interleaved, then checks and ncu L2.
B=.devbin/s48
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader > $OUT/gpu.txt
for r in 1 2 3; do for v in head p128 nopf none; do
  for c in "bench ncdhw f16" "bench ncdhw bf16"; do CASES="$c" timeout 60 $B/dw_$v $v --time-only 2>&1 | grep " us" >> $OUT/time.txt; done
done; done
for v in p128 nopf none; do timeout 150 $B/dw_$v $v > $OUT/check_$v.txt 2>&1; echo "rc $?" >> $OUT/check_$v.txt; done
M=gpu__time_duration.sum,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,lts__ltcfabric2ltc_cycles_active.avg.pct_of_peak_sustained_elapsed,lts__t_tag_requests.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__issue_active.avg.pct_of_peak_sustained_active
for v in head p128 nopf none; do echo "== $v" >> $OUT/ncu.txt
CASES="bench ncdhw f16" timeout 90 ncu --clock-control none -k regex:toeplitz_kernel --launch-skip 5 --launch-count 1 --metrics $M $B/dw_$v $v --time-only 2>&1 | grep -v "^==PROF==" | tail -12 >> $OUT/ncu.txt
done
cat $OUT/gpu.txt $OUT/time.txt; grep -h "passed\|FAIL\|rc " $OUT/check_*.txt; grep -E "==|duration|sectors|fabric|tag|dram__bytes|issue|lts__throughput" $OUT/ncu.txt
