#!/bin/bash
# Call 1: the ticket walk on the one-tile-ahead ring against HEAD (dev bench), checks at long
# tiles, three alternated rounds, then every dtype once each, then sanitizers over tickets.
cd .devbin
{
for s in "cl f32 3 2056 2777" "cl f32 8 4096 2048" "cl f16 3 2056 2777" "cl bf16 2 4104 1000" "cl f16 1 256 8192"; do
  echo "== check tickets $s"; DEV_PRINT=1 timeout 120 ./backward_bench_tickets check $s 2>&1 | tail -3
done
for round in 1 2 3; do for v in head tickets; do
  echo "== round $round $v clf32"; timeout 100 ./backward_bench_$v clf32 2>&1 | tail -2
done; done
for v in head tickets; do echo "== $v all"; timeout 150 ./backward_bench_$v 2>&1 | grep " us "; done
for s in "cl f32 1 256 8192" "cl f16 1 256 8192" "cl f16 32 768 512" "cl bf16 2 768 4096" "cl f32 16 1536 1024" "cl f32 2 4096 4096"; do
  for v in head tickets; do echo "== $v $s"; timeout 60 ./backward_bench_$v time $s 2>&1 | grep " us "; done
done
for tool in memcheck racecheck; do
  echo "== $tool f16"; timeout 120 compute-sanitizer --tool $tool ./backward_bench_tickets profile cl f16 3 1032 1000 2>&1 | tail -2
  echo "== $tool f32"; timeout 150 compute-sanitizer --tool $tool ./backward_bench_tickets profile cl f32 3 2056 2777 2>&1 | tail -2
done
} 2>&1 | tee $OUT/call1.txt
