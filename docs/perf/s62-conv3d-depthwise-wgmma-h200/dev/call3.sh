#!/bin/bash
# Dev call 3 (62nd session), timing only: the wgmma's rate by its N. wgnio (12 m64n24k16 a
# plane, arithmetic alone), wg48nio (6 m64n48k16: the same products in pairs of tiles),
# wg96nio (3 m64n96k16), against tnio (the tree's mma.sync arithmetic alone); wg48 (the
# pairs with the memory side; wrong values).
mkdir -p .devbin/zp && tar xJf .devbin/s62/c3.tar.xz -C .devbin/zp
B=.devbin/zp
for r in 1 2; do
  for v in tnio wgnio wg48nio wg96nio fin60r wg wg48; do NOCHECK=1 CASES="bench ncdhw f16" timeout 40 $B/bench_$v $v --time-only | grep -v "passed\|FAILED"; done
done
