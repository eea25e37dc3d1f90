#!/bin/bash
# 50th session dev probe (select, not branch): the wgmma kernel's k-tiles for cin_g = 32 (2a + 1) as full 64-channel
# boxes of one tap plus one half k-tile per pair of taps (IG_MIXED=1) against the halves (HEAD)
cd "$(dirname "$0")"
export OMP_NUM_THREADS=16
t() { NOCHECK=1 CASES="$1" ./mixed2/ig $2 --time-only 2>&1 | grep " us"; }
for r in 1 2; do t "VAE 96ch" halves; IG_MIXED=1 t "VAE 96ch" mixed; done
echo "== checks with IG_MIXED=1"
for c in "straddling cin96" "straddling cin160" "halves cin96 1x1x1" "wgmma cin96" "tma-a cin128 valid"; do IG_MIXED=1 CASES="$c" ./mixed2/ig mixed --check-only 2>&1 | grep err; done
IG_MIXED=1 CASES="VAE 96ch" timeout 60 ./mixed2/ig mixed --time-only 2>&1 | tail -2
