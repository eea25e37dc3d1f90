#!/bin/bash
# Call 5: channel-first taps loaded before x (cfearly) against HEAD, alternated; ncu.
cd .devbin/s42
for round in 1 2; do for v in base cfearly; do
  echo "== $v round $round"; CASES=${CASES_R:-} ./fwd_$v 2>&1 | tee -a $OUT/bench_$v.txt | grep -E "worst|BAD|channel_first" | sed 's/bench //'
done; done
for v in base cfearly; do for c in "cf f32 1" "cf f16 1" "cf bf16 0"; do
  tag=$(echo "$v $c" | tr ' ' '_')
  timeout 120 ncu -k regex:conv1d_direct --clock-control none --launch-skip 1 --launch-count 1 --section WarpStateStats --section SchedulerStats --section SpeedOfLight --metrics sm__inst_executed.sum ./fwd_$v profile $c > /tmp/d_$tag.txt 2>&1
  echo "$tag: $(grep -E "Duration|Issued Warp|inst_executed.sum|Warp Cycles Per Issued" /tmp/d_$tag.txt | sed 's/  */ /g' | tr '\n' ';')"
done; done
timeout 120 ncu -k regex:conv1d_direct --clock-control none --launch-skip 1 --launch-count 1 --section SourceCounters --page source --print-source sass --csv ./fwd_cfearly profile cf f32 1 > /tmp/s_cfearly_f32.csv 2>&1
tar czf $OUT/c5.tgz -C /tmp $(cd /tmp && ls d_*.txt s_*.csv)
