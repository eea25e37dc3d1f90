#!/bin/bash
# Dev call 5 (57th session): tw (call 4: -1%), tw3 (tw and three output tiles), tw3b (tw3, the
# boxes by warp kWaves - 2's lane 0), against land (the tree: ts).
tar xJf .devbin/s57/c5.tar.xz
B=.devbin/zp
for r in 1 2 3; do
  for v in land tw tw3 tw3b; do
    NOCHECK=1 CASES="bench ncdhw" $B/bench_$v $v --time-only 2>&1 | grep -E "bench ncdhw"
  done
done
for v in tw3 tw3b; do
  timeout 100 $B/bench_$v $v --check-only > $OUT/check_$v.txt 2>&1; echo "rc $?" >> $OUT/check_$v.txt
  echo "$v: $(tail -2 $OUT/check_$v.txt | paste -sd' ') $(grep -ci fail $OUT/check_$v.txt) fail"
done
for v in tw3 tw3b; do
  for c in "depth chunks" "causal frames bf16" "two row tiles"; do
    CASES="$c" timeout 60 compute-sanitizer --tool memcheck $B/bench_$v $v --check-only 2>&1 | grep -E "ERROR SUMMARY|FAIL" | sed "s/^/$v memcheck $c: /"
  done
  CASES="two row tiles" timeout 60 compute-sanitizer --tool racecheck $B/bench_$v $v --check-only 2>&1 | grep -E "RACECHECK SUMMARY|FAIL" | sed "s/^/$v racecheck: /"
done
