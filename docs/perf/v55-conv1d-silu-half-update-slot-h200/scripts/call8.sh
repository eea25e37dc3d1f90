#!/bin/bash
# Dev call 8 (s47): per-instruction executed counts and stall samples of the channel-first bf16 SiLU forward
# (the source page, SASS), for the next session's instruction budget.
cd .devbin/s47
timeout 240 ncu --clock-control none -k regex:direct_channel_first --launch-skip 1 --launch-count 1 --section SourceCounters --section WarpStateStats --page source --print-source sass --csv ./fw_cur profile cf bf16 1 > $OUT/call8_source_sass.csv 2> $OUT/call8_err.txt
echo "rc $? lines $(wc -l < $OUT/call8_source_sass.csv)"; head -c 1500 $OUT/call8_source_sass.csv; tail -5 $OUT/call8_err.txt
xz -9 $OUT/call8_source_sass.csv
