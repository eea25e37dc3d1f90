#!/bin/bash
# Calls 2-4 (s68): channel-last f32 backward variants (patches/), each its own scripts/dev/backward_bench.cu binary
# (build: /work/dev/bw/build.sh, the backward's other sources as HEAD's), alternated, `clf32` mode; call 2 also ran
# ncu over one cold launch of HEAD's and s8r4b3's kernels. Calls 3 and 4 ran the loop alone with three rounds
# and the variants named there (call 3: head s8r4b3 s6r4b3 s6r4b4 s8r4b3m128 s8r4b3w17 s12r4b2; call 4: head land
# s6r4b4 s7r4b4 s5r4b4 s6r2b8 s6r8b2 s6r4b4w19, "land" the tree's file with 7 rows).
D=$PWD; cd $OUT && tar xJf $D/.devbin/s68/b.tar.xz
for r in 1 2; do for v in head s8r4 r4 s8r4b3 s8r2; do echo "== $v round $r"; timeout 60 ./bwd_$v clf32; done; done > bench.txt 2>&1
ncu --clock-control none --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats \
  --section MemoryWorkloadAnalysis -k regex:channel_last --launch-skip 1 --launch-count 1 ./bwd_head profile cl f32 8 4096 2048 > ncu_head.txt 2>&1
ncu --clock-control none --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats \
  -k regex:channel_last --launch-skip 1 --launch-count 1 ./bwd_s8r4b3 profile cl f32 8 4096 2048 > ncu_s8r4b3.txt 2>&1
