#!/bin/bash
# Dev call 1 (57th session). NCDHW toeplitz kernel's outputs by TMA tile stores (thread 0, box
# pitch x rows, the gap columns clipped): ts (five blocks an SM, 94 registers), ts6 (six blocks,
# 80 registers; the SiLU instances spill 4 bytes), against new (HEAD = v65).
tar xJf .devbin/s57/c1.tar.xz
B=.devbin/zp
for r in 1 2 3; do
  for v in new ts ts6; do
    NOCHECK=1 CASES="bench ncdhw" $B/bench_$v $v --time-only 2>&1 | grep -E "bench ncdhw"
  done
done
for v in ts ts6; do
  timeout 100 $B/bench_$v $v --check-only > $OUT/check_$v.txt 2>&1; echo "rc $?" >> $OUT/check_$v.txt
  echo "$v: $(tail -2 $OUT/check_$v.txt | paste -sd' ') $(grep -ci fail $OUT/check_$v.txt) fail"
done
for c in "depth chunks" "causal frames bf16" "two row tiles" "pad h 2" "rows of 400"; do
  CASES="$c" timeout 60 compute-sanitizer --tool memcheck $B/bench_ts6 ts6 --check-only 2>&1 | grep -E "ERROR SUMMARY|FAIL" | sed "s/^/memcheck $c: /"
done
CASES="two row tiles" timeout 60 compute-sanitizer --tool racecheck $B/bench_ts6 ts6 --check-only 2>&1 | grep -E "RACECHECK SUMMARY|FAIL" | sed "s/^/racecheck: /"
