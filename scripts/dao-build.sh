#!/usr/bin/env bash
# Builds the reference kernel (Dao-AILab/causal-conv1d, from the anchors kit staged in
# .anchors/ by ../shared/anchors/stage.sh) for sm_90 only, into /tmp/dao/causal-conv1d: on
# the accelerator machine, from the repository root. Its extension then imports with
# PYTHONPATH=/tmp/dao/causal-conv1d. It takes about five minutes on the H200 machine, so
# callers start it in the background and do their own work meanwhile:
#
#     bash scripts/dao-build.sh > /tmp/f/dao_build.log 2>&1 & build=$!
#     ...
#     wait $build; tail -1 /tmp/f/dao_build.log      # "dao build exit N"
#
# Used by scripts/gpu-anchors.sh, scripts/dev/record1d.sh and scripts/dev/sweep_dao.sh.
set -uo pipefail
rm -rf /tmp/dao && mkdir -p /tmp/dao
tar xzf .anchors/causal-conv1d-*.tar.gz -C /tmp/dao
# setup.py asks for every architecture it knows; only sm_90 is wanted here.
python3 - /tmp/dao/causal-conv1d/setup.py <<'PY'
import re, sys
p = sys.argv[1]; s = open(p).read()
s = re.sub(r'(\n\s*)cc_flag\.append\("-gencode"\)\n\s*cc_flag\.append\("arch=compute_(?!90)\d+,code=sm_\d+"\)', r'\1pass', s)
open(p, "w").write(s)
PY
cd /tmp/dao/causal-conv1d &&
    CAUSAL_CONV1D_FORCE_BUILD=TRUE MAX_JOBS=12 TORCH_CUDA_ARCH_LIST=9.0 python3 setup.py build_ext --inplace
echo "dao build exit $?"
