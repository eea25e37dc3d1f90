#!/bin/bash
# Call 7: ncu of the reference's channel-first backward (f32 and f16, (8,4096,2048,4), bias + SiLU), boost clock,
# beside the counters of our ring build (call 5) and HEAD (forty-third session).
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt; date -u | tee -a $OUT/gpu.txt
work=/tmp/dao; rm -rf $work; mkdir -p $work
tar xzf .anchors/causal-conv1d-*.tar.gz -C $work
python3 - $work/causal-conv1d/setup.py <<'PY'
import re, sys
p = sys.argv[1]; s = open(p).read()
s = re.sub(r'(\n\s*)cc_flag\.append\("-gencode"\)\n\s*cc_flag\.append\("arch=compute_(?!90)\d+,code=sm_\d+"\)', r'\1pass', s)
open(p, "w").write(s)
PY
s=$(date +%s); ( cd $work/causal-conv1d && CAUSAL_CONV1D_FORCE_BUILD=TRUE MAX_JOBS=16 TORCH_CUDA_ARCH_LIST=9.0 python3 setup.py build_ext --inplace > /tmp/dao_build.log 2>&1 ); echo "dao build exit $? ($(( $(date +%s) - s )) s)"
for dt in f32 f16; do
PYTHONPATH=$work/causal-conv1d timeout 120 ncu --set full -k regex:bwd --launch-skip 1 --launch-count 1 --clock-control none -o /tmp/ncu_dao_$dt python3 .devbin/s44n/dao_bwd_once.py $dt > /tmp/ncu_dao_$dt.log 2>&1; echo "ncu $dt exit $?"
ncu --import /tmp/ncu_dao_$dt.ncu-rep --page details > $OUT/ncu_dao_bwd_$dt.txt 2>&1
ncu --import /tmp/ncu_dao_$dt.ncu-rep --page raw | grep -E "smsp__pcsamp_warps_issue_stalled_|smsp__inst_executed.sum |lts__t_sectors|dram__bytes|launch__" > $OUT/ncu_dao_bwd_${dt}_raw.txt 2>&1
done
grep -H -E "Duration|DRAM Throughput|L2 Cache Throughput|Issued Warp|No Eligible|Executed Instructions  |Registers Per|Achieved Occupancy|Grid Size|Block Size|Shared Memory Config|Dynamic Shared|Static Shared" $OUT/ncu_dao_bwd_*.txt
