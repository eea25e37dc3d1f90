#!/bin/bash
# 50th session dev call 2: base / persist (one resident wave) / stream (+ boxes across tiles) /
# streamgrid (stream's kernel, grid = tiles), VAE 96ch in two orders; SM clock and power sampled.
cd "$(dirname "$0")"
export OMP_NUM_THREADS=16
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu --format=csv,noheader -lms 50 > smi.txt &
SMI=$!
t() { CASES="$1" ./$2/ig $2 --time-only 2>&1 | grep " us\|phases"; }
for v in base persist stream streamgrid streamgrid stream persist base; do date +%T.%N | cut -c1-12; t "VAE 96ch" $v; done
for v in base persist stream; do t "384ch" $v; t "unet128" $v; done
for v in clk streamclk; do t "VAE 96ch" $v; done
kill $SMI
cp smi.txt "$OUT"/ 2>/dev/null; wc -l smi.txt
