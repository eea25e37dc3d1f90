#!/bin/bash
# 50th session dev call 1: the wgmma kernel on one resident wave (persist), plus the boxes'
# stream across tiles (stream), against HEAD (base); clock64 phases of base and stream.
cd "$(dirname "$0")"
export OMP_NUM_THREADS=16
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
echo "== correctness: stream, every case"; ./stream/ig stream 2>&1 | tail -50
echo "== correctness: persist, wgmma cases"; CASES=tma ./persist/ig persist 2>&1 | tail -20
for r in 1 2; do
  for c in "VAE 96ch" "384ch" "unet128"; do
    for v in base persist stream; do CASES="$c" ./$v/ig $v --time-only 2>&1 | grep " us"; done
  done
done
echo "== phases"
for c in "VAE 96ch" "384ch" "unet128"; do
  for v in clk streamclk; do CASES="$c" ./$v/ig $v --time-only 2>&1 | grep " us\|phases"; done
done
