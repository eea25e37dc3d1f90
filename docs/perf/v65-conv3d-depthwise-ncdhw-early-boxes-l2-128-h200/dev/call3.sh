#!/bin/bash
# Dev call 3 (56th session). NCDHW toeplitz kernel: fin (HEAD); pf (first boxes before the taps);
# l3, l6 (pf, and thread 0 prefetches plane j + 3 / j + 6 into L2 with each box: cp.async.bulk.
# prefetch.tensor); s5 (pf with five slots); ablations: nomma, nomma_l3 (l3 without matrix
# steps), nomma_nowo_noepi (boxes, waits, barriers only), rl3 (the same with l3's prefetch).
tar xJf .devbin/s56/c3.tar.xz
B=.devbin/zp
for r in 1 2; do
  for v in fin pf l3 l6 s5 nomma nomma_l3 nomma_nowo_noepi rl3; do
    NOCHECK=1 CASES="bench ncdhw" $B/bench_$v $v --time-only 2>&1 | grep -E "bench ncdhw"
  done
done
for v in l3 l6 s5; do
  timeout 120 $B/bench_$v $v --check-only > $OUT/check_$v.txt 2>&1; echo "rc $?" >> $OUT/check_$v.txt
  echo "$v: $(tail -2 $OUT/check_$v.txt | paste -sd' ') $(grep -ci fail $OUT/check_$v.txt) fail"
done
for c in "depth chunks" "causal frames bf16" "two row tiles"; do
  CASES="$c" timeout 60 compute-sanitizer --tool memcheck $B/bench_l3 l3 --check-only 2>&1 | grep -E "ERROR SUMMARY|FAIL" | sed "s/^/memcheck $c: /"
done
