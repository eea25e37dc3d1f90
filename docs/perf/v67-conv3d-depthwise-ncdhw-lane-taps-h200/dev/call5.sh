#!/bin/bash
# Dev call 5 (58th session), timing only: rb (the planes' rows as 1-D bulk copies, landed as if
# dense), sb (the output tiles as 1-D bulk stores of rows * out[2] elements), rbsb (both), against new.
tar xJf .devbin/s58/c5.tar.xz
B=.devbin/zp
for r in 1 2 3; do for v in new rb sb rbsb; do
  NOCHECK=1 CASES="bench ncdhw" $B/bench_$v $v --time-only 2>&1 | grep -E "bench ncdhw"
done; done
