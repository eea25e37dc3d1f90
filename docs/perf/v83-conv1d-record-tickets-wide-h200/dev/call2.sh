#!/bin/bash
# Call 2: the L2 prefetch variants (pf2, pf3: every thread prefetches the rows of the tile
# 2 / 3 ahead into the L2) against HEAD; then the test binaries of dist part B (this tree)
# with the GPU required.
start=$(date +%s)
mkdir -p /tmp/d && tar xJf .devbin/dev2.tar.xz -C /tmp/d
{
cd /tmp/d
for round in 1 2; do for v in head pf2 pf3; do
  echo "== round $round $v clf32"; timeout 100 ./backward_bench_$v clf32 2>&1 | tail -2
done; done
for v in head pf2 pf3; do echo "== $v all"; timeout 150 ./backward_bench_$v 2>&1 | grep " us "; done
echo "dev done at $(( $(date +%s) - start )) s"
} 2>&1 | tee $OUT/call2_dev.txt
rm -rf dist && tar xJf .devbin/distB.tar.xz
export HIPCONV_REQUIRE_GPU=1
{
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for t in dist/tests/*; do
  n=$(basename "${t%-*}"); s=$(date +%s)
  left=$(( 570 - ($(date +%s) - start) ))
  timeout $left "$t" > /tmp/test-$n.log 2>&1; rc=$?
  echo "test $n exit $rc ($(( $(date +%s) - s )) s): $(grep -E '^test result' /tmp/test-$n.log | tail -1)"
  [ $rc -eq 0 ] || grep -E "panicked|FAILED|error" /tmp/test-$n.log | head -8
done
timeout 60 dist/examples/decode 2>&1 | tail -3
timeout 60 dist/examples/causal_conv1d 2>&1 | tail -2
} 2>&1 | tee $OUT/call2_tests.txt
