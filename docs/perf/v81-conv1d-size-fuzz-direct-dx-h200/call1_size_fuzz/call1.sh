#!/bin/bash
# Call 1: the size fuzz (forward and backward across the plans) with the GPU required, the
# backward tests, memcheck/racecheck over a few fuzz rounds, clocks during the backward bench.
start=$(date +%s)
left() { local l=$(( ${BUDGET:-560} - ($(date +%s) - start) )); [ $l -lt $1 ] && echo $(( l > 5 ? l : 5 )) || echo $1; }
tar xJf .devbin/fuzz.tar.xz
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader | tee $OUT/gpu.txt
export HIPCONV_REQUIRE_GPU=1
cd dist
{
for spec in "fuzz_sizes 40" "fuzz_sizes 200" "backward -" "backward_varlen -" "fuzz -"; do
  set -- $spec; t=$(ls tests/$1-* | head -1)
  [ "$2" = - ] && unset HIPCONV_FUZZ_ROUNDS || export HIPCONV_FUZZ_ROUNDS=$2
  s=$(date +%s); timeout $(left 200) $t --nocapture > /tmp/$1-$2.log 2>&1; rc=$?
  echo "test $1 rounds $2 exit $rc ($(( $(date +%s) - s )) s): $(grep -E '^test result' /tmp/$1-$2.log | tail -1) $(grep -o 'HIPCONV_TEST_SEED=[0-9]*' /tmp/$1-$2.log | head -1)"
  [ $rc -eq 0 ] || grep -E -A3 "panicked" /tmp/$1-$2.log | head -12
done
unset HIPCONV_FUZZ_ROUNDS
t=$(ls tests/fuzz_sizes-* | head -1)
for spec in "memcheck 16" "racecheck 8"; do set -- $spec; s=$(date +%s)
  HIPCONV_FUZZ_ROUNDS=$2 timeout $(left 150) compute-sanitizer --tool $1 --error-exitcode 9 $t --nocapture > /tmp/$1.log 2>&1
  echo "$1 fuzz_sizes rounds $2 exit $? ($(( $(date +%s) - s )) s): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|test result' /tmp/$1.log | tr '\n' ' ') $(grep -o 'HIPCONV_TEST_SEED=[0-9]*' /tmp/$1.log | head -1)"
done
} 2>&1 | tee $OUT/tests.txt
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv,noheader -lms 20 > $OUT/clocks.csv &
smi=$!
s=$(date +%s); timeout $(left 150) examples/bench --family conv1d --table backward_rows --json /tmp/bench.json > $OUT/bench_backward.log 2>&1
echo "bench exit $? ($(( $(date +%s) - s )) s)" | tee -a $OUT/tests.txt
kill $smi
cp /tmp/*.log /tmp/bench.json /tmp/logs/ 2>/dev/null; mkdir -p /tmp/logs; cp /tmp/*.log /tmp/logs/; tar czf $OUT/logs.tgz -C /tmp logs
echo "done at $(( $(date +%s) - start )) s" | tee -a $OUT/tests.txt
