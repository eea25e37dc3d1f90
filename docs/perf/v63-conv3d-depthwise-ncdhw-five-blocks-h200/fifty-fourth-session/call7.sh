#!/bin/bash
# Dev call 7 (54th session). NCDHW: head, wg (the TMA instances' products by wgmma
# m64n24k16: a warpgroup's 512 outputs times the three kd bands of one kh, A a Toeplitz
# window through a no-swizzle descriptor, B the bands in shared memory; six blocks an SM),
# wg7 (the same bounded for seven blocks).
tar xJf .devbin/a7.tar.xz
B=.devbin/zp
for r in 1 2 3; do
  for v in head wg wg7; do NOCHECK=1 CASES="bench ncdhw" $B/bench_$v $v --time-only 2>&1 | grep -E "bench ncdhw"; done
done
for v in wg wg7; do
  timeout 100 $B/bench_$v $v --check-only > $OUT/check_$v.txt 2>&1; echo "rc $?" >> $OUT/check_$v.txt
  echo "$v: $(tail -2 $OUT/check_$v.txt | paste -sd' ') $(grep -ci fail $OUT/check_$v.txt) fail"
done
for c in "two row tiles" "pad d 2" "causal frames" "depth chunks"; do
  CASES="$c" timeout 60 compute-sanitizer --tool memcheck $B/bench_wg wg --check-only 2>&1 | grep -E "ERROR SUMMARY|FAIL" | sed "s/^/memcheck $c: /"
done
for c in "two row tiles" "pad d 2"; do
  CASES="$c" timeout 60 compute-sanitizer --tool racecheck $B/bench_wg wg --check-only 2>&1 | grep -E "RACECHECK SUMMARY|FAIL" | sed "s/^/racecheck $c: /"
done
