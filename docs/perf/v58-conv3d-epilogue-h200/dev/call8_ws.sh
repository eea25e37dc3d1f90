#!/bin/bash
# 50th session dev probe: the wgmma kernel warp-specialized (IG_WS=1: a producer warp, full and
# empty mbarriers a stage, no CTA barrier a k-tile; register-epilogue TMA paths, co tiles <= 128)
# against HEAD's form in the same binary
cd "$(dirname "$0")"
export OMP_NUM_THREADS=16
t() { NOCHECK=1 CASES="$1" ./ws/ig $2 --time-only 2>&1 | grep " us"; }
for r in 1 2; do t "VAE 96ch" head; IG_WS=1 t "VAE 96ch" ws; t "unet128" head; IG_WS=1 t "unet128" ws; done
echo "== checks with IG_WS=1"
IG_WS=1 CASES="tma-a" ./ws/ig ws --check-only 2>&1 | grep "err\|checks"
IG_WS=1 CASES="straddling cin96" ./ws/ig ws --check-only 2>&1 | grep err
IG_WS=1 CASES="VAE 96ch" timeout 60 ./ws/ig ws --time-only 2>&1 | tail -2
IG_WS=1 CASES="unet128" timeout 60 ./ws/ig ws --time-only 2>&1 | tail -2
