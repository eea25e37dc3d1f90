#!/bin/bash
# Call 2: the channel-last f32 backward with dx stored straight from the walk (dy's boxes
# two tiles ahead) against HEAD's TMA dx stores, alternated, graph-replayed (dev bench).
cd .devbin
{
for round in 1 2 3; do for v in head direct; do
  echo "== round $round $v clf32"; ./backward_bench_$v clf32 2>&1 | tail -12
done; done
for shape in "1 256 8192" "32 768 512" "2 768 4096" "16 1536 1024" "1 8192 2048" "64 1024 128"; do
  for v in head direct; do echo "== $v time cl f32 $shape"; ./backward_bench_$v time cl f32 $shape 2>&1 | tail -4; done
done
for spec in "memcheck 1 136 1000" "racecheck 2 264 130"; do set -- $spec
  echo "== $1 direct time cl f32 $2 $3 $4"
  timeout 90 compute-sanitizer --tool $1 --error-exitcode 9 ./backward_bench_direct time cl f32 $2 $3 $4 2>&1 | tail -4; echo "exit $?"
done
} 2>&1 | tee $OUT/call2.txt
