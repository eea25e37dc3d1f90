# Verification of allow_dynamic_shared's exact rule: every test binary in $1 with the GPU
# required, the tiled backward's tests under memcheck, then the bench family $2 (graph capture).
start=$(date +%s)
rm -rf dist && tar xJf "$1"
export HIPCONV_REQUIRE_GPU=1
cd dist
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt; date -u | tee -a $OUT/gpu.txt
for t in tests/*; do n=$(basename "${t%-*}"); s=$(date +%s)
  timeout 300 "$t" > $OUT/test-$n.log 2>&1; rc=$?
  echo "test $n exit $rc ($(( $(date +%s) - s )) s): $(grep -E '^test result' $OUT/test-$n.log | tail -1)"
  [ $rc -eq 0 ] || grep -E "panicked|FAILED|error" $OUT/test-$n.log | head -8
done | tee $OUT/tests.txt
t=$(ls tests/backward-* 2>/dev/null)
if [ -n "$t" ]; then s=$(date +%s)
  compute-sanitizer --tool memcheck --error-exitcode 9 $t --test-threads=1 channel_last_tiles_cover_channel_groups_and_row_ends > $OUT/memcheck-backward.log 2>&1
  echo "memcheck backward tiles exit $? ($(( $(date +%s) - s )) s): $(grep -E 'ERROR SUMMARY|test result' $OUT/memcheck-backward.log | tr '\n' ' ')" | tee -a $OUT/tests.txt
fi
s=$(date +%s)
timeout 200 examples/bench --family $2 --auto-only --json $OUT/bench.json > $OUT/bench.log 2>&1
echo "bench $2 exit $? ($(( $(date +%s) - s )) s)" | tee -a $OUT/tests.txt
echo "done at $(( $(date +%s) - start )) s"
