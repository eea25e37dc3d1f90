#!/bin/bash
# Call 7: compute-sanitizer memcheck over the backward's grid-cap test (blocks past the grid
# cap walking several runs; 142 M elements a dtype checked on the host), within 480 s.
tar xJf .devbin/backward_test.tar.xz
t=$(ls dist/tests/backward-*)
export HIPCONV_REQUIRE_GPU=1
n=channel_last_blocks_past_the_grid_cap_walk_several_runs
s=$(date +%s)
timeout 480 compute-sanitizer --tool memcheck --error-exitcode 9 "$t" --test-threads=1 --exact $n > /tmp/m.log 2>&1
echo "memcheck $n exit $? ($(( $(date +%s) - s )) s): $(grep -E 'ERROR SUMMARY|test result' /tmp/m.log | tr '\n' ' ')" | tee $OUT/call7_grid_cap_memcheck.txt
tail -5 /tmp/m.log >> $OUT/call7_grid_cap_memcheck.txt
