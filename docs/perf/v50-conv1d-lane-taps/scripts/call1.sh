#!/bin/bash
# Call 1: the conv1d side-by-side on the H200 (forward, update, backward rows) from HEAD's
# dist: Dao builds in the background while our bench runs, then the kit's compare_dao.py.
rm -rf dist && tar xJf .devbin/dist.tar.xz
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt; date -u | tee -a $OUT/gpu.txt
work=/tmp/dao; rm -rf $work; mkdir -p $work
tar xzf .anchors/causal-conv1d-*.tar.gz -C $work
python3 - $work/causal-conv1d/setup.py <<'PY'
import re, sys
p = sys.argv[1]; s = open(p).read()
s = re.sub(r'(\n\s*)cc_flag\.append\("-gencode"\)\n\s*cc_flag\.append\("arch=compute_(?!90)\d+,code=sm_\d+"\)', r'\1pass', s)
open(p, "w").write(s)
PY
( cd $work/causal-conv1d && CAUSAL_CONV1D_FORCE_BUILD=TRUE MAX_JOBS=14 TORCH_CUDA_ARCH_LIST=9.0 python3 setup.py build_ext --inplace > /tmp/dao_build.log 2>&1; echo "dao build exit $?" >> /tmp/dao_build.log ) &
build=$!
s=$(date +%s)
timeout 330 dist/examples/bench --family conv1d --auto-only --json $OUT/bench.json > /tmp/bench.log 2>&1; echo "bench exit $? ($(( $(date +%s) - s )) s)"
wait $build; tail -1 /tmp/dao_build.log
s=$(date +%s)
PYTHONUNBUFFERED=1 PYTHONPATH=$work/causal-conv1d timeout 240 python3 .anchors/compare_dao.py --ours $OUT/bench.json --out /tmp/cmp > /tmp/compare.log 2>&1; echo "compare exit $? ($(( $(date +%s) - s )) s)"
cp /tmp/cmp/anchors.json /tmp/cmp/side_by_side.json $OUT/ 2>/dev/null
sed -n '/^copy GB/,$p' /tmp/compare.log | grep -v "missing (-%)" > $OUT/table.txt
tar czf $OUT/logs.tgz -C /tmp bench.log compare.log dao_build.log
cat $OUT/table.txt
