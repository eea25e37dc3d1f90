#!/bin/bash
# Dev call 2 (55th session). NDHWC diagonal kernel: head; p2f (call 1); p2g (p2f with stride 2 back at a
# barrier a plane, the plane loop unrolled by 6); p2x (p2g, and kw 2 of kh 2 paired across each
# barrier's two planes: 60 -> 56 matrix steps a warp-plane).
# p2y: p2x with the block tile read again from %ctaid by thread 0 (ptxas: the same 12-byte spill).
tar xJf .devbin/s55/c2.tar.xz
B=.devbin/zp
for r in 1 2 3; do
  for v in head p2f p2g p2x p2y; do
    NOCHECK=1 CASES="bench ndhwc" $B/bench_$v $v --time-only 2>&1 | grep -E "bench ndhwc"
    NOCHECK=1 CASES="ndhwc bench bf16" $B/bench_$v $v --time-only 2>&1 | grep -E "ndhwc bench"
    NOCHECK=1 CASES="ndhwc stride 2 bench" $B/bench_$v $v --time-only 2>&1 | grep -E "stride 2 bench"
  done
done
for v in p2g p2x; do
  timeout 100 $B/bench_$v $v --check-only > $OUT/check_$v.txt 2>&1; echo "rc $?" >> $OUT/check_$v.txt
  echo "$v: $(tail -2 $OUT/check_$v.txt | paste -sd' ') $(grep -ci fail $OUT/check_$v.txt) fail"
done
for c in "ndhwc depth chunks" "ndhwc causal frames" "ndhwc pad d 2" "ndhwc stride 2 frames" "ndhwc many items" "ndhwc 17 rows"; do
  CASES="$c" timeout 60 compute-sanitizer --tool memcheck $B/bench_p2x p2x --check-only 2>&1 | grep -E "ERROR SUMMARY|FAIL" | sed "s/^/memcheck $c: /"
done
for c in "ndhwc depth chunks" "ndhwc pad d 2" "ndhwc stride 2 pad 0"; do
  CASES="$c" timeout 60 compute-sanitizer --tool racecheck $B/bench_p2x p2x --check-only 2>&1 | grep -E "RACECHECK SUMMARY|FAIL" | sed "s/^/racecheck $c: /"
done
