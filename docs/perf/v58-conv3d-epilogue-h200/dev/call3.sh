#!/bin/bash
# 50th session dev call 3: the register epilogues with SiLU / bias compiled in (epi) against
# HEAD (base); the probe of N = 96 with 64-channel boxes (cin 128)
cd "$(dirname "$0")"
export OMP_NUM_THREADS=16
t() { NOCHECK=1 CASES="$1" ./$2/ig $2 --time-only 2>&1 | grep " us"; }
for r in 1 2; do for v in base epi; do t "VAE 96ch" $v; done; done
for v in base epi epi base; do t "unet32 ndhwc" $v; t "unet128" $v; done
for v in base epi; do t "384ch" $v; t "VAE cin128" $v; done
echo "== checks (epi, every small case)"; ./epi/ig epi --check-only 2>&1 | tail -45
echo "== checked timed cases (epi)"; CASES="VAE 96ch" ./epi/ig epi --time-only 2>&1 | tail -2
