#!/bin/bash
# Call 7: HEAD against cfearly3 (taps before x, 64 registers) and cfearly4 (the same with
# raw 32-bit tap and bias bits), alternated three times; checks; ncu source of cfearly4 f16.
cd .devbin/s42
for round in 1 2 3; do for v in base cfearly3 cfearly4; do
  echo "== $v round $round"; CASES=bench ./fwd_$v 2>&1 | tee -a $OUT/bench_$v.txt | grep -E "worst|BAD|channel_first" | sed 's/bench //'
done; done
./fwd_cfearly4 2>&1 | grep -E "worst|BAD"
timeout 120 ncu -k regex:conv1d_direct --clock-control none --launch-skip 1 --launch-count 1 --section SourceCounters --page source --print-source sass --csv ./fwd_cfearly4 profile cf f16 1 > /tmp/s_cfearly4_f16.csv 2>&1
tar czf $OUT/c7.tgz -C /tmp s_cfearly4_f16.csv
