#!/bin/bash
# Dev call 5 (61st session): al (NCDHW dense instances with their boxes from column -1, so that
# outputs are 8-aligned in the sequence: taps shift 0, windows at the tiles' first outputs, a
# stmatrix.x4 a tile pair into the dense output tile) --check-only with TMA and without, three
# rounds timed against the tree (fin60r), memcheck and racecheck over the dense cases.
mkdir -p .devbin/zp && tar xJf .devbin/s61/c5.tar.xz -C .devbin/zp
B=.devbin/zp
timeout 150 $B/bench_al al --check-only > /tmp/chk1.txt 2>&1; grep -v "err " /tmp/chk1.txt; grep "dense" /tmp/chk1.txt
awk '$0 ~ /err/ { for (i = 1; i < NF; ++i) if ($i == "err" && ($(i+1) + 0 > 1e-2 || $(i+1) ~ /inf|nan/)) print "BAD:", $0 }' /tmp/chk1.txt
HIPCONV_CONV3D_TMA=0 timeout 150 $B/bench_al al --check-only 2>&1 | grep -v "err "
for r in 1 2 3; do
  NOCHECK=1 CASES="bench n" timeout 40 $B/bench_fin60r fin60r --time-only | grep -v passed
  NOCHECK=1 CASES="bench n" timeout 40 $B/bench_al al --time-only | grep -v passed
done
CS=/usr/local/cuda/bin/compute-sanitizer
for c in "dense 57 rows" "dense frames bf16 silu" "dense pad d 3" "dense 69 rows silu"; do
  CASES="$c" timeout 100 $CS --tool memcheck $B/bench_al al --check-only 2>&1 | tail -1
done
for c in "dense 69 rows silu" "dense 57 rows"; do
  CASES="$c" timeout 100 $CS --tool racecheck $B/bench_al al --check-only 2>&1 | tail -1
done
