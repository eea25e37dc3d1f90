#!/bin/bash
# Call 8: HEAD, cfearly4, cfearly5 (cfearly4 + SiLU by tanh.approx for 16-bit outputs, both
# layouts), alternated twice, every row; checks of cfearly5.
cd .devbin/s42
for round in 1 2; do for v in base cfearly4 cfearly5; do
  echo "== $v round $round"; CASES=bench ./fwd_$v 2>&1 | tee -a $OUT/bench_$v.txt | grep -E "worst|BAD|(8,4096|4,5120)" | sed 's/bench //; s/ of copy//'
done; done
./fwd_cfearly5 2>&1 | grep -E "worst|BAD"
