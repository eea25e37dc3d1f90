#!/bin/bash
# Call 6: compute-sanitizer memcheck, then racecheck, over the backward test binary of
# 5fd3acd's dist one test at a time (the grid-cap test, 142 M elements a dtype checked on
# the host, left out), within the call's time.
start=$(date +%s)
tar xJf .devbin/backward_test.tar.xz
t=$(ls dist/tests/backward-*)
export HIPCONV_REQUIRE_GPU=1
tests="gradients_match_the_reference_at_every_edge every_dtype_layout_and_option_matches_the_reference channel_first_runs_of_tiles_carry_their_heads channel_last_tiles_cover_channel_groups_and_row_ends channel_last_runs_of_tiles_carry_their_heads backward_determinism_gives_bitwise_equal_gradients_across_runs library_reference_matches_the_test_reference"
{
for tool in memcheck racecheck; do for n in $tests; do
  left=$(( 560 - ($(date +%s) - start) )); [ $left -lt 10 ] && { echo "$tool $n: no time left"; continue; }
  s=$(date +%s)
  timeout $left compute-sanitizer --tool $tool --error-exitcode 9 "$t" --test-threads=1 --exact $n > /tmp/$tool-$n.log 2>&1
  echo "$tool $n exit $? ($(( $(date +%s) - s )) s): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|test result' /tmp/$tool-$n.log | tr '\n' ' ')"
done; done
} 2>&1 | tee $OUT/call6_sanitizers.txt
