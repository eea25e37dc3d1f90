#!/bin/bash
# Dev call 5 (53rd session): ncu source-level (SASS) warp-stall samples of HEAD's NCDHW
# kernel and the landed NDHWC kernel at the bench row, for the next session's map.
tar xJf .devbin/zp2.tar.xz
B=.devbin/zp
for k in "head ncdhw toeplitz_kernel" "pf ndhwc diagonal"; do set -- $k
  CASES="bench $2 f16" timeout 200 ncu --clock-control none --set full --import-source no -k regex:$3 --launch-skip 5 --launch-count 1 -o $OUT/prof_$2 $B/bench_$1 $1 --time-only > /dev/null 2>&1; echo "ncu $2 exit $?"
  ncu -i $OUT/prof_$2.ncu-rep --page source --csv --print-source sass > $OUT/sass_$2.csv 2>&1; echo "sass rows $(wc -l < $OUT/sass_$2.csv)"
  ncu -i $OUT/prof_$2.ncu-rep --page details --section WarpStateStats --section SchedulerStats --section Occupancy > $OUT/details_$2.txt 2>&1
done
ls -la $OUT
