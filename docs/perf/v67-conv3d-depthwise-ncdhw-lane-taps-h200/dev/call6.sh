#!/bin/bash
# Dev call 6 (58th session): dn (the tree: dense planes for pitch 16, 32, 64 on sm_90: one 1-D bulk
# copy a plane, the gaps virtual by per-lane ldmatrix rows, dense output tiles by 1-D bulk stores)
# against new (HEAD); dn's checks with TMA and without; memcheck and racecheck over the dense cases.
tar xJf .devbin/s58/c6.tar.xz
B=.devbin/zp
for r in 1 2 3; do for v in new dn; do
  NOCHECK=1 CASES="bench ncdhw" $B/bench_$v $v --time-only 2>&1 | grep -E "bench ncdhw"
done; done
timeout 120 $B/bench_dn dn --check-only > $OUT/check_dn.txt 2>&1; echo "rc $?" >> $OUT/check_dn.txt
echo "dn: $(tail -2 $OUT/check_dn.txt | paste -sd' ') $(grep -ci fail $OUT/check_dn.txt) fail"
grep -E "dense|bench ncdhw|causal frames|pad h 2|depth chunks|one row" $OUT/check_dn.txt | head -20
HIPCONV_CONV3D_TMA=0 timeout 120 $B/bench_dn dn --check-only > $OUT/check_dn_notma.txt 2>&1; echo "rc $?" >> $OUT/check_dn_notma.txt
echo "dn TMA=0: $(tail -2 $OUT/check_dn_notma.txt | paste -sd' ') $(grep -ci fail $OUT/check_dn_notma.txt) fail"
for c in "dense 57" "dense frames" "dense w24" "dense w8" "causal frames bf16" "pad h 2" "depth chunks"; do
  CASES="$c" timeout 60 compute-sanitizer --tool memcheck $B/bench_dn dn --check-only 2>&1 | grep -E "ERROR SUMMARY|FAIL" | sed "s/^/memcheck $c: /"
done
for c in "dense 57" "dense frames"; do
  CASES="$c" timeout 60 compute-sanitizer --tool racecheck $B/bench_dn dn --check-only 2>&1 | grep -E "RACECHECK SUMMARY|FAIL" | sed "s/^/racecheck $c: /"
done
