#!/bin/bash
# probe call 5 of the 49th session: the wgmma kernel's tile phases by clock64 (thread 0 of each
# block: loop top -> first k-tile landed ("fill"), the k-loop, the drain + epilogue + next
# tile's first loads), per row; the landed tree alongside for the time
cd "$(dirname "$0")"
export OMP_NUM_THREADS=16
for c in "VAE 96ch" "384ch" "unet128"; do
  CASES="$c" ./ig_s49reg reg --time-only 2>&1 | grep " us"
  CASES="$c" ./ig_clk clk --time-only 2>&1 | grep " us\|phases"
done
