#!/bin/bash
# The conv3d record call (run on the device from the repository root, dist of the tree as
# .devbin/dist3d.tar.xz, the anchors kit staged in .anchors/): the conv3d tests (the random
# shapes' at their default rounds too) with the GPU required (and the row-reuse and
# per-kernel-path tests with HIPCONV_CONV3D_ROWS=0 and HIPCONV_CONV3D_TMA=0), the seed
# example, the conv3d bench's Auto rows and the kit's compare_conv3d.py (cuDNN) in the same
# call, then memcheck and racecheck over the per-kernel-path and row-reuse tests and
# memcheck over the errors test in the time left.
# Writes $OUT/{gpu,tests,table}.txt, conv3d_{bench,anchors,side_by_side}.json, bench.log and
# logs.tgz; prints the summaries too. BUDGET (seconds, default 480) bounds the whole call;
# SKIP_ROWS_OFF_REUSE=1 leaves out the HIPCONV_CONV3D_ROWS=0 row-reuse run (60-90 s) where the
# row-reuse kernel is unchanged since a record and the budget is short.
start=$(date +%s)
budget=${BUDGET:-480}
left() { local l=$(( budget - ($(date +%s) - start) )); [ $l -lt $1 ] && echo $(( l > 5 ? l : 5 )) || echo $1; }
rm -rf dist && tar xJf .devbin/dist3d.tar.xz
mkdir -p /tmp/c3
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt; date -u | tee -a $OUT/gpu.txt
export HIPCONV_REQUIRE_GPU=1
cd dist
for n in conv3d conv3d_errors conv3d_verify conv3d_fuzz conv3d_large; do
  t=$(ls tests/$n-* | head -1); s=$(date +%s); timeout $(left 200) "$t" > /tmp/c3/test-$n.log 2>&1; rc=$?
  echo "test $n exit $rc ($(( $(date +%s) - s )) s): $(grep -E '^test result' /tmp/c3/test-$n.log | tail -1)"
  [ $rc -eq 0 ] || grep -E "panicked|FAILED|error" /tmp/c3/test-$n.log | head -8
done | tee $OUT/tests.txt
t=$(ls tests/conv3d-* | head -1)
rows_off=(row_reuse_kernel_matches_the_reference every_kernel_path_once_for_the_sanitizers)
[ "${SKIP_ROWS_OFF_REUSE:-0}" = 1 ] && rows_off=(every_kernel_path_once_for_the_sanitizers)
for f in "${rows_off[@]}"; do s=$(date +%s)
  HIPCONV_CONV3D_ROWS=0 timeout $(left 90) "$t" $f > /tmp/c3/norows-$f.log 2>&1
  echo "HIPCONV_CONV3D_ROWS=0 conv3d $f exit $? ($(( $(date +%s) - s )) s): $(grep -E '^test result' /tmp/c3/norows-$f.log | tail -1)"
done | tee -a $OUT/tests.txt
for f in every_kernel_path_once_for_the_sanitizers causal_streaming_chunk_by_chunk_equals_one_pass; do s=$(date +%s)
  HIPCONV_CONV3D_TMA=0 timeout $(left 60) "$t" $f > /tmp/c3/notma-$f.log 2>&1
  echo "HIPCONV_CONV3D_TMA=0 conv3d $f exit $? ($(( $(date +%s) - s )) s): $(grep -E '^test result' /tmp/c3/notma-$f.log | tail -1)"
done | tee -a $OUT/tests.txt
timeout 30 examples/conv3d 2>&1 | grep -E "valid|time per|backend" | head -12 | tee -a $OUT/tests.txt
echo "tests done at $(( $(date +%s) - start )) s" | tee -a $OUT/tests.txt
s=$(date +%s)
timeout $(left 150) examples/bench --family conv3d --auto-only --json /tmp/c3/bench.json > /tmp/c3/bench.log 2>&1; echo "bench exit $? ($(( $(date +%s) - s )) s)"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["rows"]=d.pop("conv3d_rows"); json.dump(d, open(sys.argv[2],"w"), indent=1)' /tmp/c3/bench.json "$OUT/conv3d_bench.json"
cd ..
s=$(date +%s)
PYTHONUNBUFFERED=1 timeout $(left 220) python3 .anchors/compare_conv3d.py --ours "$OUT/conv3d_bench.json" --out /tmp/c3 > /tmp/c3/compare.log 2>&1; echo "compare exit $? ($(( $(date +%s) - s )) s)"
cp /tmp/c3/conv3d_anchors.json /tmp/c3/conv3d_side_by_side.json "$OUT/" 2>/dev/null
cp /tmp/c3/bench.log $OUT/bench.log
sed -n '/^| case/,$p' /tmp/c3/compare.log > $OUT/table.txt
cd dist
t=$(ls tests/conv3d-* | head -1)
for f in every_kernel_path_once_for_the_sanitizers row_reuse_kernel_matches_the_reference; do
  for tool in memcheck racecheck; do s=$(date +%s)
    timeout $(left 120) compute-sanitizer --tool $tool --error-exitcode 9 "$t" --test-threads=1 $f > /tmp/c3/$tool-$f.log 2>&1
    echo "$tool $f exit $? ($(( $(date +%s) - s )) s): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|test result' /tmp/c3/$tool-$f.log | tr '\n' ' ')" | tee -a $OUT/tests.txt
  done
done
t=$(ls tests/conv3d_errors-* | head -1)
timeout $(left 40) compute-sanitizer --tool memcheck --error-exitcode 9 "$t" --test-threads=1 > /tmp/c3/memcheck-errors.log 2>&1
echo "memcheck conv3d_errors exit $?: $(grep -E 'ERROR SUMMARY|test result' /tmp/c3/memcheck-errors.log | tr '\n' ' ')" | tee -a $OUT/tests.txt
cd ..
tar czf $OUT/logs.tgz -C /tmp c3
tail -20 $OUT/bench.log; cat $OUT/table.txt
echo "elapsed $(( $(date +%s) - start )) s"
