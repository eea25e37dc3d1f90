#!/bin/bash
# Call 5: channel-first f16/bf16 wide Toeplitz kernel at 3 (HEAD), 4 and 5 blocks an SM
# (launch bounds; 4 and 5 spill 48 / up to 336 bytes), scripts/dev/forward_bench.cu built
# with -DDEV_WIDE_TOEPLITZ: checks, then the wide rows, two rounds alternated.
cd .devbin
{
for v in t3 t4 t5; do echo "== $v check"; CASES=check timeout 120 ./fwide_$v 2>&1 | tail -3; done
for round in 1 2; do for v in t3 t4 t5; do
  echo "== round $round $v"; CASES=bench LAYOUTS=cf SHAPES="4,2048,4096,8 4,2048,4096,16 4,2048,4096,32 8,4096,2048,16" timeout 100 ./fwide_$v 2>&1 | grep bench
done; done
echo "== memcheck t4"; CASES=check timeout 150 compute-sanitizer --tool memcheck ./fwide_t4 2>&1 | tail -2
} 2>&1 | tee $OUT/call5.txt
