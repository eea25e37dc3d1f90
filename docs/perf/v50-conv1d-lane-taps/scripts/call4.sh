#!/bin/bash
# Call 4: ncu source-level (SASS) stall sampling of the channel-first kernel, HEAD and the
# hoisted-taps variant, f32 with SiLU; details for both.
cd .devbin/s42
for v in base cfhoist; do
for c in "cf f32 1" "cf f16 1"; do
  tag=$(echo "$v $c" | tr ' ' '_')
  timeout 120 ncu -k regex:conv1d_direct --clock-control none --launch-skip 1 --launch-count 1 --section SourceCounters --section WarpStateStats --section SchedulerStats --section SpeedOfLight --metrics sm__inst_executed.sum ./fwd_$v profile $c > $OUT/d_$tag.txt 2>&1
  echo "$tag: $(grep -E "Duration|Issued Warp|inst_executed.sum|Warp Cycles Per Issued" $OUT/d_$tag.txt | sed 's/  */ /g' | tr '\n' ';')"
  timeout 120 ncu -k regex:conv1d_direct --clock-control none --launch-skip 1 --launch-count 1 --section SourceCounters --page source --print-source sass --csv ./fwd_$v profile $c > /tmp/s_$tag.csv 2>&1
done; done
tar czf $OUT/src.tgz -C /tmp $(cd /tmp && ls s_*.csv)
ls -la /tmp/s_*.csv
