#!/bin/bash
# Call 1 (s68): copy designs (scripts/dev/copy_designs.cu) at the open rows' sizes, then the dev benches of
# HEAD's update (scripts/dev/update_bench.cu, INDICES=1) and forward at (4,2048,2048,4) (scripts/dev/forward_bench.cu).
cd $OUT && tar xJf /dev/stdin < $OLDPWD/.devbin/s68/a.tar.xz && nvidia-smi --query-gpu=name,clocks.max.mem --format=csv,noheader
timeout 200 ./copy_designs 16.8 29.4 33.6 58.8 67.1 134.2 805.4 2000 > copy.txt 2>&1
INDICES=1 timeout 60 ./update_head > update.txt 2>&1
SHAPES="4,2048,2048,4" CASES=bench timeout 60 ./forward_head > fwd.txt 2>&1
