#!/bin/bash
# Dev call 6 (61st session): why al fails with TMA: memcheck's first reports over one dense
# case, for al and al0 (al with the boxes from column 0 again: wrong values, the same code
# otherwise).
mkdir -p .devbin/zp && tar xJf .devbin/s61/c6.tar.xz -C .devbin/zp
B=.devbin/zp
CS=/usr/local/cuda/bin/compute-sanitizer
for v in al al0; do
  echo "== $v"; CASES="dense 57 rows" timeout 100 $CS --tool memcheck --print-limit 3 $B/bench_$v $v --check-only 2>&1 | head -60 | cut -c1-250
done
echo "== al0 bench"; NOCHECK=1 CASES="bench nc" timeout 40 $B/bench_al0 al0 --time-only
