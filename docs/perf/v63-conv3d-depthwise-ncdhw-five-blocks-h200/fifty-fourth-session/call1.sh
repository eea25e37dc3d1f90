#!/bin/bash
# Dev call 1 (54th session). NCDHW: head, s6u (six 4-warp blocks an SM, taps per kh from
# shared memory, bias by fill; 80 regs, 8-byte spill), t5 (taps per kh at five blocks).
# NDHWC: head, fk (kw 2 of kh 2 on the vector unit at stride 1).
tar xJf .devbin/a1.tar.xz
B=.devbin/zp
for r in 1 2 3; do
  for v in head s6u t5; do NOCHECK=1 CASES="bench ncdhw" $B/bench_$v $v --time-only 2>&1 | grep -E "bench ncdhw"; done
  for v in head fk; do NOCHECK=1 CASES="bench ndhwc" $B/bench_$v $v --time-only 2>&1 | grep -E "bench ndhwc"; done
done
for v in s6u fk; do
  timeout 100 $B/bench_$v $v --check-only > $OUT/check_$v.txt 2>&1; echo "rc $?" >> $OUT/check_$v.txt
  echo "$v: $(tail -2 $OUT/check_$v.txt | paste -sd' ') $(grep -ci fail $OUT/check_$v.txt) fail"
done
