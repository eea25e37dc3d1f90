#!/bin/bash
# The conv1d record call (run on the device from the repository root, a dist of the tree as
# .devbin/dist1d.tar.xz or $DIST_TAR, the anchors kit staged in .anchors/ by ../shared/anchors/stage.sh):
# the reference kernel (Dao-AILab/causal-conv1d) builds in the background while the conv1d
# tests run with the GPU required and the fit example trains; then the conv1d bench's Auto
# rows and the kit's compare_dao.py, so that the side-by-side comes from the same call; then,
# in the time left, compute-sanitizer memcheck and racecheck over the backward's channel-last
# tests (the whole backward binary takes minutes under a sanitizer), the chunked and errors
# binaries, and memcheck over the update tests. conv3d is left out (scripts/dev/record3d.sh).
# Writes $OUT/{gpu,tests}.txt, bench.json, anchors.json, side_by_side.json, bench.log,
# table.txt and logs.tgz. BUDGET (seconds, default 540) bounds the whole call; TESTS=0 skips
# the test binaries and the example (where an earlier call ran them on the same dist). A dist
# split over two calls (the carry's 64 MiB) may leave test binaries or the fit example out:
# what is absent is skipped and said so.
start=$(date +%s)
budget=${BUDGET:-540}
left() { local l=$(( budget - ($(date +%s) - start) )); [ $l -lt $1 ] && echo $(( l > 5 ? l : 5 )) || echo $1; }
rm -rf dist && tar xJf "${DIST_TAR:-.devbin/dist1d.tar.xz}"
mkdir -p /tmp/f
bash scripts/dao-build.sh > /tmp/f/dao_build.log 2>&1 &
build=$!
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt; date -u | tee -a $OUT/gpu.txt
export HIPCONV_REQUIRE_GPU=1
cd dist
if [ "${TESTS:-1}" != 0 ]; then
for t in tests/*; do
  n=$(basename "${t%-*}")
  case $n in conv3d*) continue ;; esac
  limit=120; [ $n = backward ] && limit=240  # its grid-cap test checks 142 M elements a dtype on the host
  s=$(date +%s); timeout $(left $limit) "$t" > /tmp/f/test-$n.log 2>&1; rc=$?
  echo "test $n exit $rc ($(( $(date +%s) - s )) s): $(grep -E '^test result' /tmp/f/test-$n.log | tail -1)"
  [ $rc -eq 0 ] || grep -E "panicked|FAILED|error" /tmp/f/test-$n.log | head -8
done | tee $OUT/tests.txt
if [ -x examples/fit ]; then timeout 60 examples/fit 2>&1 | tail -3 | tee -a $OUT/tests.txt
else echo "fit example not in this dist" | tee -a $OUT/tests.txt; fi
fi
echo "tests done at $(( $(date +%s) - start )) s" | tee -a $OUT/tests.txt
s=$(date +%s)
timeout $(left 200) examples/bench --family conv1d --auto-only --json /tmp/f/bench.json > /tmp/f/bench.log 2>&1
echo "bench exit $? ($(( $(date +%s) - s )) s)"
cp /tmp/f/bench.json /tmp/f/bench.log "$OUT/"
cd ..
wait $build; tail -1 /tmp/f/dao_build.log
s=$(date +%s)
PYTHONUNBUFFERED=1 PYTHONPATH=/tmp/dao/causal-conv1d timeout $(left 200) python3 .anchors/compare_dao.py \
  --ours /tmp/f/bench.json --out /tmp/f > /tmp/f/compare.log 2>&1; echo "compare exit $? ($(( $(date +%s) - s )) s)"
sed -n '/^copy GB/,$p' /tmp/f/compare.log | grep -v "missing (-%)" > $OUT/table.txt
cp /tmp/f/anchors.json /tmp/f/side_by_side.json "$OUT/" 2>/dev/null
cd dist
for t in tests/backward-* tests/backward_chunked-* tests/backward_errors-*; do
  [ -e "$t" ] || { echo "$t: not in this dist"; continue; }
  n=$(basename "${t%-*}")
  only=; [ $n = backward ] && only=channel_last_tiles_cover_channel_groups_and_row_ends
  for tool in memcheck racecheck; do s=$(date +%s)
    timeout $(left 150) compute-sanitizer --tool $tool --error-exitcode 9 "$t" --test-threads=1 $only > /tmp/f/$tool-$n.log 2>&1
    echo "$tool $n exit $? ($(( $(date +%s) - s )) s): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|test result' /tmp/f/$tool-$n.log | tr '\n' ' ')"
  done
done | tee -a $OUT/tests.txt
t=$(ls tests/update-* 2>/dev/null | head -1); s=$(date +%s)
if [ -n "$t" ]; then
timeout $(left 90) compute-sanitizer --tool memcheck --error-exitcode 9 "$t" --test-threads=1 > /tmp/f/memcheck-update.log 2>&1
echo "memcheck update exit $? ($(( $(date +%s) - s )) s): $(grep -E 'ERROR SUMMARY|test result' /tmp/f/memcheck-update.log | tr '\n' ' ')" | tee -a $OUT/tests.txt
else echo "update tests not in this dist" | tee -a $OUT/tests.txt; fi
cd ..
tar czf $OUT/logs.tgz --exclude=f/bench.json --exclude=f/anchors.json --exclude=f/side_by_side.json -C /tmp f
echo "done at $(( $(date +%s) - start )) s"
