#!/bin/bash
# Dev call 2 (58th session): rlr (rl, the re-layout offsets worked out per plane), rl5 (the re-layout
# after the epilogue) timed against new; ncu stall reasons of new, rl and rl2 at the bench row (f16).
tar xJf .devbin/s58/c2.tar.xz
B=.devbin/zp
for r in 1 2; do for v in new rlr rl5; do
  NOCHECK=1 CASES="bench ncdhw f16" $B/bench_$v $v --time-only 2>&1 | grep -E "bench ncdhw"
done; done
which ncu || ls /usr/local/cuda*/bin/ncu
NCU=$(which ncu || ls /usr/local/cuda*/bin/ncu | head -1)
for v in new rl rl2; do
  NOCHECK=1 CASES="bench ncdhw f16" timeout 120 $NCU -k regex:toeplitz -s 3 -c 1 --section WarpStateStats --section SourceCounters --section Occupancy --section LaunchStats --section SpeedOfLight $B/bench_$v $v --time-only > $OUT/ncu_$v.txt 2>&1
  echo "== $v"; grep -E "Stall|Warp Cycles|Achieved Occ|Block Limit|Duration|Registers|Local|Shared Memory Config|Dynamic Shared" $OUT/ncu_$v.txt | head -30
done
