#!/bin/bash
# Call 8: lead1b (HEAD's prologue, then x issued with dy one tile ahead) against lead1 and
# HEAD, graph-replayed: the model rows, then small shapes; sanitizers over lead1b.
cd .devbin
{
for round in 1 2; do for v in head lead1 lead1b; do
  echo "== round $round $v all"; ./backward_bench_$v 2>&1
done; done
for shape in "f32 1 256 8192" "f32 32 768 512" "f32 2 768 4096" "f32 16 1536 1024" "f32 1 8192 2048" "f32 64 1024 128" "f16 1 256 8192" "f16 32 768 512" "bf16 64 1024 128" "f16 2 768 4096" "f32 4 4096 4096" "f32 2 2048 8192"; do
  for v in head lead1 lead1b; do echo "== $v time cl $shape"; ./backward_bench_$v time cl $shape 2>&1 | tail -2; done
done
for spec in "memcheck f32 1 136 1000" "memcheck f16 2 264 3001" "racecheck f32 2 264 130" "racecheck f32 1 520 3000"; do set -- $spec
  echo "== $1 lead1b profile cl $2 $3 $4 $5"
  timeout 120 compute-sanitizer --tool $1 --error-exitcode 9 ./backward_bench_lead1b profile cl $2 $3 $4 $5 > san.txt 2>&1; echo "exit $?"; tail -3 san.txt
done
} 2>&1 | tee $OUT/call8.txt
