#!/bin/bash
# The reference kernel beside hipconv at shapes off the record's list. Run on the device from
# the repository root, with .devbin/bench.tar.xz (dist/examples/bench, and any test binaries
# TESTS names, as dist/tests/*) and the anchors kit staged in .anchors/
# (../shared/anchors/stage.sh) carried.
#   SHAPES    the shapes, "b,d,s,w" separated by spaces
#   TESTS     test binaries (names without their hash) run first with the GPU required,
#             each given TEST_ARGS (e.g. "--skip NAME")
#   MEMCHECK  "binary test-name" pairs separated by ";", run under compute-sanitizer memcheck
#   BEFORE_BENCH  a command run after the tests and before the bench (dev timings), while the
#             reference builds
# The reference builds in the background (about five minutes) while the tests run and
# hipconv's bench measures its Auto forward rows (with and without bias + SiLU) and its
# backward rows at the shapes; then scripts/dev/sweep_dao.py times the reference the same
# way and joins the two. Writes $OUT/bench.json, bench.log, sweep.json and sweep.txt (the
# table).
set -uo pipefail
mkdir -p /tmp/f
bash scripts/dao-build.sh > /tmp/f/dao_build.log 2>&1 &
build=$!
tar xJf .devbin/bench.tar.xz
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
for n in ${TESTS:-}; do
    t=$(ls dist/tests/$n-* | head -1); s=$(date +%s)
    HIPCONV_REQUIRE_GPU=1 timeout 300 "$t" ${TEST_ARGS:-} > "/tmp/f/test-$n.log" 2>&1
    echo "test $n exit $? ($(( $(date +%s) - s )) s): $(grep -E '^test result' "/tmp/f/test-$n.log" | tail -1)"
done
IFS=';' read -ra checks <<< "${MEMCHECK:-}"
for c in "${checks[@]}"; do
    read -r n name <<< "$c"; t=$(ls dist/tests/$n-* | head -1); s=$(date +%s)
    HIPCONV_REQUIRE_GPU=1 timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 "$t" --test-threads=1 \
        "$name" > "/tmp/f/memcheck-$name.log" 2>&1
    echo "memcheck $n $name exit $? ($(( $(date +%s) - s )) s): $(grep -E 'ERROR SUMMARY|test result' \
        "/tmp/f/memcheck-$name.log" | tr '\n' ' ')"
done
[ -z "${BEFORE_BENCH:-}" ] || bash -c "$BEFORE_BENCH"
shape_args=()
for s in $SHAPES; do shape_args+=(--shape "$s"); done
s=$(date +%s)
dist/examples/bench --family conv1d --auto-only --table rows --table backward_rows "${shape_args[@]}" \
    --json "$OUT/bench.json" > "$OUT/bench.log" 2>&1
echo "bench exit $? ($(( $(date +%s) - s )) s)"
wait $build; tail -1 /tmp/f/dao_build.log
s=$(date +%s)
PYTHONUNBUFFERED=1 PYTHONPATH=/tmp/dao/causal-conv1d python3 scripts/dev/sweep_dao.py --ours "$OUT/bench.json" \
    --out "$OUT" > /tmp/f/sweep.log 2>&1
echo "sweep exit $? ($(( $(date +%s) - s )) s)"
sed -n '/^copy GB/,$p' /tmp/f/sweep.log > "$OUT/sweep.txt"
grep -E "Error|error" /tmp/f/sweep.log | head -5
tail -3 "$OUT/sweep.txt"
