#!/bin/bash
# Call 6: the tiled channel-last kernel's blocks in graph replay (scripts/dev/timeline_backward.sh):
# HEAD against halo2, f32 with bias + SiLU, two rounds alternated.
cd .devbin
for round in 1 2; do for shape in "8 4096 2048" "4 5120 4096" "2 2048 8192" "4 4096 4096"; do for v in head halo2; do
  echo "== round $round $v"; ./tl_$v timeline cl f32 $shape 2>&1 | tail -1
done; done; done 2>&1 | tee $OUT/call6.txt
