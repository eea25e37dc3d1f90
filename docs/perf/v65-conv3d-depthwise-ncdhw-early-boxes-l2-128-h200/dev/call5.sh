#!/bin/bash
# Dev call 5 (56th session). NCDHW toeplitz kernel staged by the threads' cp.async (HIPCONV_CONV3D_TMA=0):
# fin (HEAD: that path bounded for four blocks an SM, t outside); cpb (kh outside, five blocks an SM,
# the copies' offsets packed: 96 registers, no spills); rcpb (cpb without matrix steps, y stores or
# output tile writes: its read skeleton), against nomma_nowo_noepi (HEAD's boxes' read skeleton).
tar xJf .devbin/s56/c5.tar.xz
B=.devbin/zp
for r in 1 2 3; do
  NOCHECK=1 CASES="bench ncdhw" $B/bench_fin fin --time-only 2>&1 | grep -E "bench ncdhw" | sed 's/^/tma /'
  for v in fin cpb rcpb; do
    HIPCONV_CONV3D_TMA=0 NOCHECK=1 CASES="bench ncdhw" $B/bench_$v $v --time-only 2>&1 | grep -E "bench ncdhw" | sed 's/^/cp.async /'
  done
  NOCHECK=1 CASES="bench ncdhw f16" $B/bench_nomma_nowo_noepi nomma_nowo_noepi --time-only 2>&1 | grep -E "bench ncdhw" | sed 's/^/tma /'
done
HIPCONV_CONV3D_TMA=0 timeout 120 $B/bench_cpb cpb --check-only > $OUT/check_cpb.txt 2>&1; echo "rc $?" >> $OUT/check_cpb.txt
echo "cpb: $(tail -2 $OUT/check_cpb.txt | paste -sd' ') $(grep -ci fail $OUT/check_cpb.txt) fail"
for c in "depth chunks" "causal frames bf16" "two row tiles" "pad h 2"; do
  HIPCONV_CONV3D_TMA=0 CASES="$c" timeout 60 compute-sanitizer --tool memcheck $B/bench_cpb cpb --check-only 2>&1 | grep -E "ERROR SUMMARY|FAIL" | sed "s/^/memcheck $c: /"
done
