# Call 4 (48th session): the VAE 96ch NDHWC row with A by TMA in two 32-channel im2col boxes a k-tile (v45's
# rejected patch on HEAD: halves) and a probe of it with A's boxes only in each tile's first 5 k-tiles (noa,
# wrong results by design), against HEAD (A by cp.async); ncu instruction and stall counters of both.
B=.devbin/s48
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader > $OUT/gpu.txt
for r in 1 2; do for v in head halves noa; do
  CASES="VAE 96ch" timeout 60 $B/ig_$v $v --time-only 2>&1 | grep " us" >> $OUT/time.txt
done; done
M=gpu__time_duration.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_op_read.sum,l1tex__m_xbar2l1tex_read_bytes.sum,lts__ltcfabric2ltc_cycles_active.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__average_warp_latency_issue_stalled_wait.ratio,smsp__average_warp_latency_issue_stalled_barrier.ratio,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_math_pipe_throttle.ratio,smsp__average_warp_latency_issue_stalled_dispatch_stall.ratio,smsp__inst_executed.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum
for v in halves noa; do echo "== $v VAE" >> $OUT/ncu_ig.txt
CASES="VAE 96ch" timeout 120 ncu --clock-control none -k regex:wgmma --launch-skip 3 --launch-count 1 --metrics $M $B/ig_$v $v --time-only 2>&1 | grep -v "^==PROF==" | tail -18 >> $OUT/ncu_ig.txt
done
CASES="VAE 96ch" timeout 150 ncu --clock-control none -k regex:wgmma --launch-skip 3 --launch-count 1 --section WarpStateStats --section SourceCounters --page source --print-source sass --csv $B/ig_halves halves --time-only > $OUT/ncu_halves_source.csv 2>&1
cat $OUT/gpu.txt $OUT/time.txt; grep -vE "^\s*$|---" $OUT/ncu_ig.txt | head -60
