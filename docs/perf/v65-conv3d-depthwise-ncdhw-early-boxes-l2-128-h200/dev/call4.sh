#!/bin/bash
# Dev call 4 (56th session). The NCDHW kernel's memory skeleton (no matrix steps, no output
# tile writes; wrong results, timing only): nomma_nowo_noepi (reads by HEAD's boxes: (rows + 2)
# x pitch elements, 8 columns past each row out of bounds), r56 (boxes of (rows + 2) x w: no
# out-of-bounds columns), rbulk (the rows as one 1-D bulk copy), wonly (no reads, y written as
# HEAD writes it).
tar xJf .devbin/s56/c4.tar.xz
B=.devbin/zp
for r in 1 2 3; do
  for v in fin nomma_nowo_noepi r56 rbulk wonly; do
    NOCHECK=1 CASES="bench ncdhw f16" $B/bench_$v $v --time-only 2>&1 | grep -E "bench ncdhw"
  done
done
