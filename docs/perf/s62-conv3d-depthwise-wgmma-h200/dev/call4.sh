#!/bin/bash
# Dev call 4 (62nd session), timing only: the kernel's skeleton. skel (tpure + tnio: no boxes'
# bytes, no stores, no products, no epilogue: the item starts, waits and barriers alone),
# wg0nio (wgnio without its wgmma: the epilogue and the skeleton), against tnio and tpure.
mkdir -p .devbin/zp && tar xJf .devbin/s62/c4.tar.xz -C .devbin/zp
B=.devbin/zp
for r in 1 2; do
  for v in skel wg0nio tnio tpure fin60r; do NOCHECK=1 CASES="bench ncdhw f16" timeout 40 $B/bench_$v $v --time-only | grep -v "passed\|FAILED"; done
done
