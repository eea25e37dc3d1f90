#!/bin/bash
# Call 7: what the partials' reduction follower costs the channel-last f32 backward: HEAD
# against HEAD with the reduction not launched (dweight and dbias wrong: timing only),
# alternated, graph-replayed (dev bench clf32).
cd .devbin
{
for round in 1 2 3; do for v in head noreduce; do
  echo "== round $round $v"; ./backward_bench_$v clf32 2>&1 | grep "cl silu"
done; done
} 2>&1 | tee $OUT/call7.txt
