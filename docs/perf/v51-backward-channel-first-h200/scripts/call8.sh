#!/bin/bash
# Call 8, the record: a dist of this tree (backward channel-first: 16-byte stores, 16-bit SiLU' by tanh,
# 32-bit walk, lane 0 loads only its history words, 9 f32 blocks). Dao builds in the background while
# the test binaries run with the GPU required, then memcheck + racecheck over the backward's
# channel-first tests; then the conv1d bench (Auto rows) and the kit's compare_dao.py.
rm -rf dist && tar xJf .devbin/dist.tar.xz
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt; date -u | tee -a $OUT/gpu.txt
work=/tmp/dao; rm -rf $work; mkdir -p $work /tmp/f
tar xzf .anchors/causal-conv1d-*.tar.gz -C $work
python3 - $work/causal-conv1d/setup.py <<'PY'
import re, sys
p = sys.argv[1]; s = open(p).read()
s = re.sub(r'(\n\s*)cc_flag\.append\("-gencode"\)\n\s*cc_flag\.append\("arch=compute_(?!90)\d+,code=sm_\d+"\)', r'\1pass', s)
open(p, "w").write(s)
PY
( cd $work/causal-conv1d && CAUSAL_CONV1D_FORCE_BUILD=TRUE MAX_JOBS=12 TORCH_CUDA_ARCH_LIST=9.0 python3 setup.py build_ext --inplace > /tmp/f/dao_build.log 2>&1; echo "dao build exit $? at $(date -u +%T)" >> /tmp/f/dao_build.log ) &
build=$!
export HIPCONV_REQUIRE_GPU=1
for n in backward backward_chunked backward_varlen backward_errors forward fuzz states varlen errors; do
  t=$(ls dist/tests/$n-* | head -1); s=$(date +%s); timeout 150 "$t" > /tmp/f/test-$n.log 2>&1; rc=$?
  echo "test $n exit $rc ($(( $(date +%s) - s )) s): $(grep -E '^test result' /tmp/f/test-$n.log | tail -1)"
  [ $rc -eq 0 ] || grep -E "panicked|FAILED" /tmp/f/test-$n.log | head -5
done | tee $OUT/tests.txt
t=$(ls dist/tests/backward-* | head -1)
cf="channel_first_runs_of_tiles_carry_their_heads gradients_match_the_reference_at_every_edge backward_determinism_gives_bitwise_equal_gradients_across_runs"
for tool in memcheck racecheck; do s=$(date +%s)
timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 "$t" --test-threads=1 $cf > /tmp/f/$tool-backward.log 2>&1
echo "$tool backward exit $? ($(( $(date +%s) - s )) s): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|test result' /tmp/f/$tool-backward.log | tr '\n' ' ')" | tee -a $OUT/tests.txt
done
date -u +%T; wait $build; tail -1 /tmp/f/dao_build.log
s=$(date +%s)
timeout 150 dist/examples/bench --family conv1d --auto-only --json $OUT/bench.json > /tmp/f/bench.log 2>&1; echo "bench exit $? ($(( $(date +%s) - s )) s)"
s=$(date +%s)
PYTHONUNBUFFERED=1 PYTHONPATH=$work/causal-conv1d timeout 170 python3 .anchors/compare_dao.py --ours $OUT/bench.json --out /tmp/cmp > /tmp/f/compare.log 2>&1; echo "compare exit $? ($(( $(date +%s) - s )) s)"
cp /tmp/cmp/anchors.json /tmp/cmp/side_by_side.json $OUT/ 2>/dev/null
sed -n '/^copy GB/,$p' /tmp/f/compare.log | grep -v "missing (-%)" > $OUT/table.txt
tar czf $OUT/logs.tgz -C /tmp f
cat $OUT/table.txt
