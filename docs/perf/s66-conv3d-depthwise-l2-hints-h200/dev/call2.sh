#!/bin/bash
# Dev call 2 (66th session): HEAD (ff83a58) on the GPU with HIPCONV_REQUIRE_GPU=1: every
# conv1d test binary (forward, fuzz, states, varlen, errors, update, stages, the four
# backward binaries), conv3d's dependent-forwards tests (their helper changed in ff83a58),
# the examples, memcheck over a subset in the time left; then ncu's DRAM bytes of one
# launch of each depthwise kernel at the bench row (the tree's dev bench binary).
start=$(date +%s)
budget=${BUDGET:-560}
left() { local l=$(( budget - ($(date +%s) - start) )); [ $l -lt $1 ] && echo $(( l > 5 ? l : 5 )) || echo $1; }
rm -rf /tmp/d && mkdir -p /tmp/d /tmp/l && tar xJf .devbin/s66/dist.tar.xz -C /tmp/d
mkdir -p .devbin/zp && tar xJf .devbin/s66/c1.tar.xz -C .devbin/zp bench_t72
B=$PWD/.devbin/zp
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
export HIPCONV_REQUIRE_GPU=1
cd /tmp/d/dist
for t in tests/*; do
  n=$(basename "${t%-*}")
  f=
  case $n in conv3d) f=reads_the_output ;; conv3d_*) continue ;; esac
  s=$(date +%s); timeout $(left 200) "$t" $f > /tmp/l/test-$n.log 2>&1; rc=$?
  echo "test $n ${f} exit $rc ($(( $(date +%s) - s )) s): $(grep -E '^test result' /tmp/l/test-$n.log | tail -1)"
  [ $rc -eq 0 ] || grep -E "panicked|FAILED|error" /tmp/l/test-$n.log | head -8
done | tee $OUT/tests.txt
for e in "causal_conv1d_verify_host" "causal_conv1d" "decode" "fit"; do
  timeout $(left 40) examples/$e > /tmp/l/ex-$e.log 2>&1; echo "example $e exit $?: $(grep -E 'valid|mismatch|distance|error' /tmp/l/ex-$e.log | tail -3 | tr '\n' ' ')"
done | tee -a $OUT/tests.txt
echo "tests done at $(( $(date +%s) - start )) s"
cd $B/..
for k in "bench ncdhw f16" "bench ndhwc f16"; do
  NOCHECK=1 CASES="$k" timeout $(left 90) ncu --launch-skip 6 --launch-count 1 --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,gpu__time_duration.sum $B/bench_t72 t72 --time-only > /tmp/l/ncu-${k// /_}.txt 2>&1
  echo "ncu $k exit $?"; grep -E "dram__|lts__|gpu__time|==PROF==|Error" /tmp/l/ncu-${k// /_}.txt | head -8
done | tee $OUT/ncu.txt
cd /tmp/d/dist
for t in tests/stages-* tests/update-* tests/varlen-* tests/states-*; do
  n=$(basename "${t%-*}")
  [ $(left 60) -lt 60 ] && { echo "memcheck $n skipped (time)"; continue; }
  timeout $(left 120) compute-sanitizer --tool memcheck --error-exitcode 9 "$t" --test-threads=1 > /tmp/l/mc-$n.log 2>&1
  echo "memcheck $n exit $?: $(grep -E 'ERROR SUMMARY|test result' /tmp/l/mc-$n.log | tr '\n' ' ')"
done | tee $OUT/memcheck.txt
tar czf $OUT/logs.tgz -C /tmp/l .
echo "done at $(( $(date +%s) - start )) s"
