#!/bin/bash
# Dev call 5 (54th session). NDHWC: head, xp (kw 2 of kh 2: output j - 1's kd 0 tap from
# plane j - 1 paired with its kd 1 tap from plane j in one m16n8k16; five stages at stride 1).
tar xJf .devbin/a4.tar.xz
B=.devbin/zp
for r in 1 2 3; do
  for v in head xp; do
    NOCHECK=1 CASES="bench ndhwc" $B/bench_$v $v --time-only 2>&1 | grep -E "bench ndhwc"
    NOCHECK=1 CASES="ndhwc bench bf16" $B/bench_$v $v --time-only 2>&1 | grep -E "ndhwc bench"
  done
done
timeout 100 $B/bench_xp xp --check-only > $OUT/check_xp.txt 2>&1; echo "rc $?" >> $OUT/check_xp.txt
echo "xp: $(tail -2 $OUT/check_xp.txt | paste -sd' ') $(grep -ci fail $OUT/check_xp.txt) fail"
