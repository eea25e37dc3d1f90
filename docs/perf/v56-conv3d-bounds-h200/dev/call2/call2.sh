# Call 2 (48th session): what bounds the wgmma implicit GEMM at the VAE 96ch NDHWC row: HEAD against a probe with
# B loaded only in each tile's first 5 k-tiles (wrong results by design); ncu of HEAD's wgmma kernel there; ncu
# source counters of the NCDHW depthwise (toeplitz) kernel at the bench row (L2 sectors per instruction).
B=.devbin/s48
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader > $OUT/gpu.txt
for r in 1 2; do for v in head nob; do
  for c in "VAE 96ch" "384ch" "unet128"; do CASES="$c" timeout 60 $B/ig_$v $v --time-only 2>&1 | grep " us" >> $OUT/time.txt; done
done; done
M=gpu__time_duration.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_op_read.sum,lts__t_sector_hit_rate.pct,l1tex__m_xbar2l1tex_read_bytes.sum,lts__ltcfabric2ltc_cycles_active.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_uniform.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__average_warp_latency_issue_stalled_wait.ratio,smsp__average_warp_latency_issue_stalled_barrier.ratio,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_math_pipe_throttle.ratio,smsp__average_warp_latency_issue_stalled_membar.ratio,smsp__average_warp_latency_issue_stalled_sleeping.ratio,smsp__average_warp_latency_issue_stalled_dispatch_stall.ratio,smsp__average_warp_latency_issue_stalled_misc.ratio,smsp__inst_executed.sum
for v in head nob; do echo "== $v VAE" >> $OUT/ncu_ig.txt
CASES="VAE 96ch" timeout 120 ncu --clock-control none -k regex:wgmma --launch-skip 3 --launch-count 1 --metrics $M $B/ig_$v $v --time-only 2>&1 | grep -v "^==PROF==" | tail -24 >> $OUT/ncu_ig.txt
done
echo "== head 384ch" >> $OUT/ncu_ig.txt
CASES="384ch" timeout 120 ncu --clock-control none -k regex:wgmma --launch-skip 3 --launch-count 1 --metrics $M $B/ig_head head --time-only 2>&1 | grep -v "^==PROF==" | tail -24 >> $OUT/ncu_ig.txt
CASES="VAE 96ch" timeout 150 ncu --clock-control none -k regex:wgmma --launch-skip 3 --launch-count 1 --section WarpStateStats --section SourceCounters --page source --print-source sass --csv $B/ig_head head --time-only > $OUT/ncu_ig_source.csv 2>&1
CASES="bench ncdhw f16" timeout 150 ncu --clock-control none -k regex:toeplitz_kernel --launch-skip 5 --launch-count 1 --section SourceCounters --page source --print-source sass --csv $B/dw_head head --time-only > $OUT/ncu_dw_source.csv 2>&1
CASES="bench ncdhw f16" timeout 150 ncu --clock-control none -k regex:toeplitz_kernel --launch-skip 5 --launch-count 1 --section SourceCounters --section MemoryWorkloadAnalysis_Tables $B/dw_head head --time-only > $OUT/ncu_dw_details.txt 2>&1
cat $OUT/gpu.txt $OUT/time.txt; grep -vE "^\s*$|---" $OUT/ncu_ig.txt | head -80; grep -iE "excessive|uncoalesced|sectors" $OUT/ncu_dw_details.txt | head -20; wc -c $OUT/*
