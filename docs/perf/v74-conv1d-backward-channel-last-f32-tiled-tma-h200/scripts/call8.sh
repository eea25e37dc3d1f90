#!/bin/bash
cd .devbin/s69 && ./layout_pattern 8 4096 2048 | tee $OUT/pattern.txt && ./layout_pattern 4 5120 4096 | tee -a $OUT/pattern.txt
ncu --clock-control none --section SpeedOfLight --metrics dram__bytes_read.sum,dram__bytes_write.sum -k regex:sum_pattern --launch-count 2 ./layout_pattern 8 4096 2048 > $OUT/ncu_pattern.txt 2>&1
grep -h "Duration\|DRAM Throughput\|sum_pattern\|dram__bytes" $OUT/ncu_pattern.txt
