#!/bin/bash
# Call 9: the tree after the history load's bound (t0 > seqlen takes load_times): the backward
# test binaries with the GPU required, memcheck over the channel-first tests, then the dev bench
# (HEAD against this tree, channel-first rows), then racecheck.
rm -rf dist && tar xJf .devbin/dist.tar.xz
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt; date -u | tee -a $OUT/gpu.txt
mkdir -p /tmp/f; export HIPCONV_REQUIRE_GPU=1
for n in backward backward_chunked backward_varlen backward_errors; do
  t=$(ls dist/tests/$n-* | head -1); s=$(date +%s); timeout 150 "$t" > /tmp/f/test-$n.log 2>&1; rc=$?
  echo "test $n exit $rc ($(( $(date +%s) - s )) s): $(grep -E '^test result' /tmp/f/test-$n.log | tail -1)"
  [ $rc -eq 0 ] || grep -E "panicked|FAILED|rel error" /tmp/f/test-$n.log | head -5
done | tee $OUT/tests.txt
t=$(ls dist/tests/backward-* | head -1)
cf="channel_first_runs_of_tiles_carry_their_heads gradients_match_the_reference_at_every_edge"
s=$(date +%s); timeout 80 compute-sanitizer --tool memcheck --error-exitcode 9 "$t" --test-threads=1 $cf > /tmp/f/memcheck-backward.log 2>&1
echo "memcheck backward exit $? ($(( $(date +%s) - s )) s): $(grep -E 'ERROR SUMMARY|test result' /tmp/f/memcheck-backward.log | tr '\n' ' ')" | tee -a $OUT/tests.txt
for r in 1 2; do for v in head fix; do echo "== $v (round $r)"; timeout 40 .devbin/s43v/bw_$v cf; done; done > $OUT/bw.txt 2>&1; grep -v "^check" $OUT/bw.txt
s=$(date +%s); timeout 60 compute-sanitizer --tool racecheck --error-exitcode 9 "$t" --test-threads=1 $cf > /tmp/f/racecheck-backward.log 2>&1
echo "racecheck backward exit $? ($(( $(date +%s) - s )) s): $(grep -E 'RACECHECK SUMMARY|test result' /tmp/f/racecheck-backward.log | tr '\n' ' ')" | tee -a $OUT/tests.txt
tar czf $OUT/logs.tgz -C /tmp f
