#!/bin/bash
# Call 6: HEAD, cfearly, cfearly2 (32-bit lane time), cfearly3 (and at most 64 registers), alternated;
# ncu source view of the f16 SiLU kernel of HEAD and cfearly.
cd .devbin/s42
for round in 1 2; do for v in base cfearly cfearly2 cfearly3; do
  echo "== $v round $round"; CASES=bench ./fwd_$v 2>&1 | tee -a $OUT/bench_$v.txt | grep -E "worst|BAD|channel_first" | sed 's/bench //'
done; done
./fwd_cfearly3 2>&1 | grep -E "worst|BAD"
for v in base cfearly; do
timeout 120 ncu -k regex:conv1d_direct --clock-control none --launch-skip 1 --launch-count 1 --section SourceCounters --page source --print-source sass --csv ./fwd_$v profile cf f16 1 > /tmp/s_${v}_f16.csv 2>&1
done
tar czf $OUT/c6.tgz -C /tmp s_base_f16.csv s_cfearly_f16.csv
