#!/bin/bash
# Dev call 4 (55th session). head; ht (head with the 16-bit SiLU by tanh.approx, activate_to, in the three
# depthwise matrix-core kernels); p2g (call 2); p2t (p2g with ht's SiLU). NDHWC rows and both NCDHW rows.
tar xJf .devbin/s55/c4.tar.xz
B=.devbin/zp
for r in 1 2 3; do
  for v in head ht p2g p2t; do
    NOCHECK=1 CASES="bench ndhwc" $B/bench_$v $v --time-only 2>&1 | grep -E "bench ndhwc"
    NOCHECK=1 CASES="ndhwc bench bf16" $B/bench_$v $v --time-only 2>&1 | grep -E "ndhwc bench"
    NOCHECK=1 CASES="ndhwc stride 2 bench" $B/bench_$v $v --time-only 2>&1 | grep -E "stride 2 bench"
    NOCHECK=1 CASES="bench ncdhw" $B/bench_$v $v --time-only 2>&1 | grep -E "bench ncdhw"
  done
done
for v in ht p2t; do
  timeout 100 $B/bench_$v $v --check-only > $OUT/check_$v.txt 2>&1; echo "rc $?" >> $OUT/check_$v.txt
  echo "$v: $(tail -2 $OUT/check_$v.txt | paste -sd' ') $(grep -ci fail $OUT/check_$v.txt) fail"
done
for c in "ndhwc depth chunks" "ndhwc frames bf16" "ndhwc stride 2 frames" "small bias silu"; do
  CASES="$c" timeout 60 compute-sanitizer --tool memcheck $B/bench_p2t p2t --check-only 2>&1 | grep -E "ERROR SUMMARY|FAIL" | sed "s/^/memcheck $c: /"
done
for c in "ndhwc depth chunks" "ndhwc stride 2 pad 0"; do
  CASES="$c" timeout 60 compute-sanitizer --tool racecheck $B/bench_p2t p2t --check-only 2>&1 | grep -E "RACECHECK SUMMARY|FAIL" | sed "s/^/racecheck $c: /"
done
