#!/bin/bash
# Call 9, the record: a dist of this tree (channel-first taps before x, 16-bit SiLU by tanh).
# Dao builds in the background while the test binaries that run the forward kernels
# (forward, fuzz, states, varlen, errors) run with the GPU required, then memcheck over
# three forward tests;
# then the conv1d bench (Auto rows) and the kit's compare_dao.py in the same call.
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
( cd $work/causal-conv1d && CAUSAL_CONV1D_FORCE_BUILD=TRUE MAX_JOBS=12 TORCH_CUDA_ARCH_LIST=9.0 python3 setup.py build_ext --inplace > /tmp/f/dao_build.log 2>&1; echo "dao build exit $?" >> /tmp/f/dao_build.log ) &
build=$!
export HIPCONV_REQUIRE_GPU=1
for n in forward fuzz states varlen errors; do
  t=$(ls dist/tests/$n-* | head -1); s=$(date +%s); timeout 150 "$t" > /tmp/f/test-$n.log 2>&1; rc=$?
  echo "test $n exit $rc ($(( $(date +%s) - s )) s): $(grep -E '^test result' /tmp/f/test-$n.log | tail -1)"
  [ $rc -eq 0 ] || grep -E "panicked|FAILED" /tmp/f/test-$n.log | head -5
done | tee $OUT/tests.txt
t=$(ls dist/tests/forward-* | head -1); s=$(date +%s)
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 "$t" --test-threads=1 seed_shape_matches_reference_with_every_algorithm channel_last_is_the_same_function_as_channel_first edge_shapes_match_reference_f16 > /tmp/f/memcheck-forward.log 2>&1
echo "memcheck forward exit $? ($(( $(date +%s) - s )) s): $(grep -E 'ERROR SUMMARY|test result' /tmp/f/memcheck-forward.log | tr '\n' ' ')" | tee -a $OUT/tests.txt
wait $build; tail -1 /tmp/f/dao_build.log
s=$(date +%s)
timeout 120 dist/examples/bench --family conv1d --auto-only --json $OUT/bench.json > /tmp/f/bench.log 2>&1; echo "bench exit $? ($(( $(date +%s) - s )) s)"
PYTHONUNBUFFERED=1 PYTHONPATH=$work/causal-conv1d timeout 120 python3 .anchors/compare_dao.py --ours $OUT/bench.json --out /tmp/cmp > /tmp/f/compare.log 2>&1; echo "compare exit $?"
cp /tmp/cmp/anchors.json /tmp/cmp/side_by_side.json $OUT/ 2>/dev/null
sed -n '/^copy GB/,$p' /tmp/f/compare.log | grep -v "missing (-%)" > $OUT/table.txt
tar czf $OUT/logs.tgz -C /tmp f
cat $OUT/table.txt
