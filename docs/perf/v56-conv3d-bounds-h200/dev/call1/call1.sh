# Call 1 (48th session): depthwise NDHWC diagonal kernel with 64 (head, c64), 32 (16x8 outputs) and 16 (16x16)
# channels a block; time-only interleaved, full checks of c32/c16, memcheck of c32's small ndhwc cases, ncu L2.
B=.devbin/s48
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv > $OUT/gpu.txt
for r in 1 2; do for v in head c64 c32 c16; do
  for c in "bench ndhwc f16" "ndhwc bench bf16" "ndhwc 28x28"; do CASES="$c" $B/dw_$v $v --time-only 2>&1 | grep " us" >> $OUT/time.txt; done
done; done
for v in c32 c16; do timeout 150 $B/dw_$v $v > $OUT/check_$v.txt 2>&1; echo "rc $?" >> $OUT/check_$v.txt; done
CASES="ndhwc 17" timeout 60 compute-sanitizer --tool memcheck $B/dw_c32 c32 > $OUT/memcheck_c32.txt 2>&1
CASES="ndhwc 20x36" timeout 60 compute-sanitizer --tool memcheck $B/dw_c32 c32 >> $OUT/memcheck_c32.txt 2>&1
CASES="ndhwc partial group" timeout 60 compute-sanitizer --tool racecheck $B/dw_c32 c32 >> $OUT/memcheck_c32.txt 2>&1
M=breakdown:lts__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active
for v in head c32 c16; do echo "== $v" >> $OUT/ncu.txt
CASES="bench ndhwc f16" timeout 90 ncu --clock-control none -k regex:diagonal --launch-skip 5 --launch-count 1 --metrics $M $B/dw_$v $v --time-only 2>&1 | grep -v "^==PROF==" | tail -30 >> $OUT/ncu.txt
done
cat $OUT/gpu.txt; cat $OUT/time.txt; grep -c "err" $OUT/check_*.txt; grep -i "fail\|rc \|passed" $OUT/check_*.txt; grep -E "SUMMARY|passed|FAIL" $OUT/memcheck_c32.txt
grep -E "==|duration|sectors_op|fabric|dram__bytes|hmma|issue_active|lts__throughput" $OUT/ncu.txt | head -80
