#!/bin/bash
# Dev call 7 (s47): instruction mix of the channel-first bf16 forward with and without SiLU (ncu).
cd .devbin/s47
for s in 1 0; do
timeout 200 ncu --clock-control none -k regex:direct_channel_first --launch-skip 1 --launch-count 1 --section SpeedOfLight --section InstructionStats --section ComputeWorkloadAnalysis --section SchedulerStats --section WarpStateStats --section SourceCounters --metrics smsp__inst_executed.sum,smsp__inst_executed_pipe_fma.sum,smsp__inst_executed_pipe_alu.sum,smsp__inst_executed_pipe_xu.sum,smsp__inst_executed_pipe_lsu.sum,smsp__inst_executed_pipe_fp16.sum,smsp__inst_executed_pipe_uniform.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed ./fw_cur profile cf bf16 $s 2>&1 | grep -v "^==PROF==" > $OUT/call7_ncu_cf_bf16_silu$s.txt
done
grep -E "Duration|inst_executed|Issue Slots|Issued Warp|DRAM Through|dram__|No Eligible" $OUT/call7_ncu_cf_bf16_silu*.txt
