#!/bin/bash
# Dev call 4 (57th session): land (the tree: ts as landed), tw (land, the tile stores by the
# last warp's lane 0), t3 (land, three output tiles: the wait for the store two planes back),
# against new (v65). Checks of land (every case, memcheck, racecheck), tw and t3.
tar xJf .devbin/s57/c4.tar.xz
B=.devbin/zp
for r in 1 2 3; do
  for v in new land tw t3; do
    NOCHECK=1 CASES="bench ncdhw" $B/bench_$v $v --time-only 2>&1 | grep -E "bench ncdhw"
  done
done
for v in land tw t3; do
  timeout 100 $B/bench_$v $v --check-only > $OUT/check_$v.txt 2>&1; echo "rc $?" >> $OUT/check_$v.txt
  echo "$v: $(tail -2 $OUT/check_$v.txt | paste -sd' ') $(grep -ci fail $OUT/check_$v.txt) fail"
done
for c in "depth chunks" "causal frames bf16" "two row tiles" "pad h 2" "one row" "valid depth" "small bias silu"; do
  CASES="$c" timeout 60 compute-sanitizer --tool memcheck $B/bench_land land --check-only 2>&1 | grep -E "ERROR SUMMARY|FAIL" | sed "s/^/memcheck $c: /"
done
for c in "two row tiles" "causal frames bf16" "depth chunks"; do
  CASES="$c" timeout 60 compute-sanitizer --tool racecheck $B/bench_land land --check-only 2>&1 | grep -E "RACECHECK SUMMARY|FAIL" | sed "s/^/racecheck $c: /"
done
