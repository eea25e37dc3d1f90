#!/bin/bash
# Call 5, the record: a dist of this tree (channel-last tiled backward: SiLU' by tanh, TMA boxes in, dx out
# by TMA store). Dao builds in the background while the test binaries run with the GPU required, then
# memcheck, racecheck and synccheck over the backward's channel-last tiled tests and the chunked identity;
# then the conv1d bench (Auto rows) and the kit's compare_dao.py.
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
cl="channel_last_tiles_cover_channel_groups_and_row_ends channel_last_runs_of_tiles_carry_their_heads gradients_match_the_reference_at_every_edge backward_determinism_gives_bitwise_equal_gradients_across_runs"
for tool in memcheck racecheck synccheck; do s=$(date +%s)
timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 "$t" --test-threads=1 $cl > /tmp/f/$tool-backward.log 2>&1
echo "$tool backward exit $? ($(( $(date +%s) - s )) s): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|test result' /tmp/f/$tool-backward.log | tr '\n' ' ')" | tee -a $OUT/tests.txt
done
t=$(ls dist/tests/backward_chunked-* | head -1); s=$(date +%s)
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 "$t" --test-threads=1 > /tmp/f/memcheck-chunked.log 2>&1
echo "memcheck backward_chunked exit $? ($(( $(date +%s) - s )) s): $(grep -E 'ERROR SUMMARY|test result' /tmp/f/memcheck-chunked.log | tr '\n' ' ')" | tee -a $OUT/tests.txt
date -u +%T; wait $build; tail -1 /tmp/f/dao_build.log
s=$(date +%s)
timeout 150 dist/examples/bench --family conv1d --auto-only --json $OUT/bench.json > /tmp/f/bench.log 2>&1; echo "bench exit $? ($(( $(date +%s) - s )) s)"
s=$(date +%s)
PYTHONUNBUFFERED=1 PYTHONPATH=$work/causal-conv1d timeout 170 python3 .anchors/compare_dao.py --ours $OUT/bench.json --out /tmp/cmp > /tmp/f/compare.log 2>&1; echo "compare exit $? ($(( $(date +%s) - s )) s)"
cp /tmp/cmp/anchors.json /tmp/cmp/side_by_side.json $OUT/ 2>/dev/null
sed -n '/^copy GB/,$p' /tmp/f/compare.log | grep -v "missing (-%)" > $OUT/table.txt
tar czf $OUT/logs.tgz -C /tmp f
cat $OUT/table.txt
# Dev: the channel-first backward with its units' loads through a ring of bulk copies (ring) against HEAD's
# channel-first kernel (head), alternated; ncu of ring f32.
B=.devbin/s44r
for r in 1 2 3; do for v in head ring; do echo "== $v (round $r)"; timeout 120 $B/bw_$v cf; done; done > $OUT/ring.txt 2>&1
grep -v "^check" $OUT/ring.txt | cut -c1-140; grep "^check" $OUT/ring.txt | sort | uniq -c
for dt in f32 f16; do
timeout 120 ncu --set full -k regex:backward_channel_first --launch-skip 1 --launch-count 1 --clock-control none -o /tmp/ncu_ring_$dt $B/bw_ring profile cf $dt 8 4096 2048 > /tmp/ncu_ring_$dt.log 2>&1
ncu --import /tmp/ncu_ring_$dt.ncu-rep --page details > $OUT/ncu_ring_$dt.txt 2>&1
done
grep -H -E "Duration|DRAM Throughput|L2 Cache Throughput|Issued Warp|No Eligible|Executed Instructions  |Registers Per|Achieved Occupancy" $OUT/ncu_ring_*.txt
