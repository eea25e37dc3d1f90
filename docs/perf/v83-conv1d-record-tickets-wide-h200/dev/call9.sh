#!/bin/bash
# Call 9: the boundary pass with a head's loads gathered (states.hip, widths <= 4): the state
# rows of HEAD's bench (bench_old) and this tree's alternated, ncu's duration of each
# boundary-pass launch in this tree's, then the tests that run the pass, with the GPU
# required, and memcheck / racecheck over the states and varlen tests.
tar xJf .devbin/dist9.tar.xz
{
for round in 1 2; do for v in old new; do
  B=dist/examples/bench; [ $v = old ] && B=dist/examples/bench_old
  echo "== round $round $v"; timeout 90 $B --family conv1d --table state_rows --json /tmp/s_$v.json 2>&1 | grep -E "varlen|baseline"
done; done
echo "== ncu: the boundary pass, every launch (new)"
timeout 150 ncu --clock-control none --kernel-name regex:sequence_boundaries --metrics gpu__time_duration.sum \
  --csv dist/examples/bench --family conv1d --table state_rows --json /tmp/n.json 2>/dev/null | grep -E "^\"" | \
  python3 -c '
import csv,sys
runs=[]
for r in csv.reader(sys.stdin):
    if len(r)<15 or r[0]=="ID": continue
    name="f16" if "__half" in r[4] else "f32" if "float" in r[4] else r[4][:40]
    v=float(r[-1].replace(",",""))
    unit=r[-2]
    if runs and runs[-1][0]==name: runs[-1][1].append(v)
    else: runs.append((name,[v]))
for name,v in runs:
    v=sorted(v); print(name, unit, len(v), "launches, gpu__time_duration median", v[len(v)//2], "min", v[0], "max", v[-1])
'
export HIPCONV_REQUIRE_GPU=1
for t in dist/tests/*; do
  n=$(basename "${t%-*}"); s=$(date +%s)
  timeout 120 "$t" > /tmp/test-$n.log 2>&1; rc=$?
  echo "test $n exit $rc ($(( $(date +%s) - s )) s): $(grep -E '^test result' /tmp/test-$n.log | tail -1)"
  [ $rc -eq 0 ] || grep -E "panicked|FAILED|error" /tmp/test-$n.log | head -8
done
for t in dist/tests/states-* dist/tests/varlen-*; do for tool in memcheck racecheck; do
  n=$(basename "${t%-*}"); s=$(date +%s)
  timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 "$t" --test-threads=1 > /tmp/$tool-$n.log 2>&1
  echo "$tool $n exit $? ($(( $(date +%s) - s )) s): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|test result' /tmp/$tool-$n.log | tr '\n' ' ')"
done; done
} 2>&1 | tee $OUT/call9.txt
