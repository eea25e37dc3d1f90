#!/bin/bash
# Dev call 3 (55th session). NDHWC diagonal kernel: head; p2g (call 2); pb (thread 0's copies moved before
# the plane barrier: output j - 3 stored and plane j - 1 + kStages issued at the end of plane j, five stages at
# stride 1, four output tiles); pb6 (pb with six stages at stride 1).
tar xJf .devbin/s55/c3.tar.xz
B=.devbin/zp
for r in 1 2 3; do
  for v in head p2g pb pb6; do
    NOCHECK=1 CASES="bench ndhwc" $B/bench_$v $v --time-only 2>&1 | grep -E "bench ndhwc"
    NOCHECK=1 CASES="ndhwc bench bf16" $B/bench_$v $v --time-only 2>&1 | grep -E "ndhwc bench"
    NOCHECK=1 CASES="ndhwc stride 2 bench" $B/bench_$v $v --time-only 2>&1 | grep -E "stride 2 bench"
  done
done
for v in pb pb6; do
  timeout 100 $B/bench_$v $v --check-only > $OUT/check_$v.txt 2>&1; echo "rc $?" >> $OUT/check_$v.txt
  echo "$v: $(tail -2 $OUT/check_$v.txt | paste -sd' ') $(grep -ci fail $OUT/check_$v.txt) fail"
done
for c in "ndhwc depth chunks" "ndhwc causal frames" "ndhwc pad d 2" "ndhwc stride 2 frames" "ndhwc many items" "ndhwc 17 rows"; do
  CASES="$c" timeout 60 compute-sanitizer --tool memcheck $B/bench_pb pb --check-only 2>&1 | grep -E "ERROR SUMMARY|FAIL" | sed "s/^/memcheck $c: /"
done
for c in "ndhwc depth chunks" "ndhwc pad d 2" "ndhwc stride 2 pad 0"; do
  CASES="$c" timeout 60 compute-sanitizer --tool racecheck $B/bench_pb pb --check-only 2>&1 | grep -E "RACECHECK SUMMARY|FAIL" | sed "s/^/racecheck $c: /"
done
