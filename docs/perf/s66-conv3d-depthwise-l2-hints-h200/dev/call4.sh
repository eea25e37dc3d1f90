#!/bin/bash
# Dev call 4 (66th session): compute-sanitizer over HEAD's (ff83a58) conv1d kernels as
# dist/run.sh does it: memcheck and racecheck over the forward edge tests and every backward
# test binary, memcheck over the fuzz test (20 rounds), in the time left.
start=$(date +%s)
budget=${BUDGET:-560}
left() { local l=$(( budget - ($(date +%s) - start) )); [ $l -lt $1 ] && echo $(( l > 5 ? l : 5 )) || echo $1; }
rm -rf /tmp/d && mkdir -p /tmp/d /tmp/l && tar xJf .devbin/s66/dist.tar.xz -C /tmp/d
export HIPCONV_REQUIRE_GPU=1
cd /tmp/d/dist
run() {  # run NAME TOOL BINARY [ARGS...]
  local n=$1 tool=$2; shift 2
  [ $(left 30) -lt 30 ] && { echo "$tool $n skipped (time)"; return; }
  timeout $(left 200) compute-sanitizer --tool $tool --error-exitcode 9 "$@" > /tmp/l/$tool-$n.log 2>&1
  echo "$tool $n exit $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|test result' /tmp/l/$tool-$n.log | tr '\n' ' ')"
}
for tool in memcheck racecheck; do
  run forward $tool tests/forward-* --test-threads=1 seed_shape_matches_reference_with_every_algorithm \
    channel_last_is_the_same_function_as_channel_first edge_shapes_match_reference_f16
done
for t in tests/backward_errors-* tests/backward_varlen-* tests/backward_chunked-* tests/backward-*; do
  for tool in memcheck racecheck; do run $(basename "${t%-*}") $tool "$t" --test-threads=1; done
done
HIPCONV_FUZZ_ROUNDS=20 run fuzz memcheck tests/fuzz-*
tar czf $OUT/logs4.tgz -C /tmp/l .
echo "done at $(( $(date +%s) - start )) s"
