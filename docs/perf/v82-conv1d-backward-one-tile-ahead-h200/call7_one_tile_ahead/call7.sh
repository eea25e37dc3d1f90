#!/bin/bash
# Call 7: lead1 (HEAD's boxes, x issued with dy one tile ahead instead of two) against HEAD
# and halo2, graph-replayed; then the blocks' timeline of lead1 and HEAD.
cd .devbin
{
for round in 1 2; do for v in head halo2 lead1; do
  echo "== round $round $v clf32"; ./backward_bench_$v clf32 2>&1 | tail -6
done; done
echo "== lead1 all"; ./backward_bench_lead1 2>&1
for shape in "8 4096 2048" "4 5120 4096" "4 4096 4096"; do for v in head halo2 lead1; do
  echo "== $v"; ./tl_$v timeline cl f32 $shape 2>&1 | tail -1
done; done
} 2>&1 | tee $OUT/call7.txt
