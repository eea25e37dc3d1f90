#!/bin/bash
# Dev call 3 (53rd session): NDHWC only. head (HEAD's kernels), pf (padding planes'
# products skipped), kd (pf, and the chunk's edge planes' taps whose outputs lie outside it
# skipped in a second copy of the products).
tar xJf .devbin/zp3.tar.xz
B=.devbin/zp
for v in head pf kd; do CASES="bench ndhwc" $B/bench_$v $v --time-only 2>&1 | grep -E "bench ndhwc"; done
for r in 1 2 3; do for v in head pf kd; do
  NOCHECK=1 CASES="bench ndhwc" $B/bench_$v $v --time-only 2>&1 | grep -E "bench ndhwc"
  NOCHECK=1 CASES="ndhwc bench bf16" $B/bench_$v $v --time-only 2>&1 | grep -E "ndhwc bench"
  NOCHECK=1 CASES="ndhwc stride 2 bench" $B/bench_$v $v --time-only 2>&1 | grep -E "stride 2 bench"
done; done
for v in kd; do
  timeout 150 $B/bench_$v $v --check-only > $OUT/check_$v.txt 2>&1; echo "rc $?" >> $OUT/check_$v.txt
  echo "$v: $(tail -2 $OUT/check_$v.txt | paste -sd' ') $(grep -ci fail $OUT/check_$v.txt) fail"
done
for c in "ndhwc pad d 2" "ndhwc depth chunks" "ndhwc causal frames" "ndhwc stride 2 frames bf16" "ndhwc valid"; do
  CASES="$c" timeout 60 compute-sanitizer --tool memcheck $B/bench_kd kd --check-only 2>&1 | grep -E "ERROR SUMMARY|FAIL" | sed "s/^/$c: /"
done
for c in "ndhwc depth chunks" "ndhwc pad d 2"; do
  CASES="$c" timeout 60 compute-sanitizer --tool racecheck $B/bench_kd kd --check-only 2>&1 | grep -E "RACECHECK SUMMARY|FAIL" | sed "s/^/$c: /"
done
