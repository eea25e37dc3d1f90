#!/bin/bash
# Dev call 6 (s47), after the record: (1) does where x and y lie (a spacer between them) move the
# channel-first rows; (2) L2 sectors a byte for a bare copy (against the depthwise conv3d's 2.29x);
# (3) ncu of the channel-first bf16 SiLU forward.
cd .devbin/s47
{
for r in 1 2; do for g in 0 2048 6144 65536; do echo "== gap_kb $g round $r"; GAP_KB=$g CASES=bench LAYOUTS=cf SHAPES="8,4096,2048,4" ./fw_cur | grep -v "^copy"; done; done
} > $OUT/call6_gap.txt 2>&1
M=lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,lts__t_requests_srcunit_tex.sum,lts__ltcfabric2ltc_cycles_active.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum
timeout 120 ncu --clock-control none -k regex:copy16$ --launch-skip 6 --launch-count 1 --metrics $M ./copy_ceiling 308 2>&1 | grep -v "^==PROF==" | tail -20 > $OUT/call6_ncu_copy.txt
timeout 150 ncu --clock-control none -k regex:direct_channel_first --launch-skip 1 --launch-count 1 --section SpeedOfLight --section Occupancy --section WarpStateStats --section SchedulerStats --section LaunchStats --metrics $M ./fw_cur profile cf bf16 1 2>&1 | grep -v "^==PROF==" | tail -80 > $OUT/call6_ncu_cf_bf16_silu.txt
cat $OUT/call6_gap.txt; cat $OUT/call6_ncu_copy.txt
