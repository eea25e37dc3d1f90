#!/bin/bash
# probe call of the 49th session: the wgmma kernel's per-tile fixed cost, by running the first
# 1/2 and 1/4 of each tile's k-tiles (results invalid; timing only) against the whole K
cd "$(dirname "$0")"
export OMP_NUM_THREADS=16
for r in 1 2; do
  for c in "VAE 96ch" "384ch" "unet128"; do
    for v in reg half quarter; do CASES="$c" ./ig_s49$v $v --time-only 2>&1 | grep " us"; done
  done
done
