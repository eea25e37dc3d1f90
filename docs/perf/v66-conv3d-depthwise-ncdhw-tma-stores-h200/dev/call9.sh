#!/bin/bash
# Dev call 9 (57th session), after the record: fin2 (the tree as committed last: the output tile
# index as an unsigned remainder, the TMA threads' constants only where TMA is compiled) against
# land2 (the record's kernels). Checks of fin2 with TMA and without.
tar xJf .devbin/s57/c9.tar.xz
B=.devbin/zp
for r in 1 2 3; do
  for v in land2 fin2; do
    NOCHECK=1 CASES="bench ncdhw" $B/bench_$v $v --time-only 2>&1 | grep -E "bench ncdhw"
  done
done
timeout 100 $B/bench_fin2 fin2 --check-only > /tmp/check_fin2.txt 2>&1; echo "rc $?" >> /tmp/check_fin2.txt
HIPCONV_CONV3D_TMA=0 timeout 100 $B/bench_fin2 fin2 --check-only > /tmp/check_fin2_notma.txt 2>&1; echo "rc $?" >> /tmp/check_fin2_notma.txt
echo "fin2: $(tail -2 /tmp/check_fin2.txt | paste -sd' ') $(grep -ci fail /tmp/check_fin2.txt) fail"
echo "fin2 TMA=0: $(tail -2 /tmp/check_fin2_notma.txt | paste -sd' ') $(grep -ci fail /tmp/check_fin2_notma.txt) fail"
CASES="two row tiles" timeout 40 compute-sanitizer --tool memcheck $B/bench_fin2 fin2 --check-only 2>&1 | grep -E "ERROR SUMMARY" | sed "s/^/memcheck two row tiles: /"
