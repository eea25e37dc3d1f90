#!/bin/bash
# Call 8: where the varlen row's boundary pass costs (issue 9's <= 5%): the state rows
# table, then ncu's duration of every boundary-pass launch in that table (in the order the
# rows run: channel-first f16, f32, channel-last f16, f32; ncu's unit as it prints it).
tar xJf .devbin/bench.tar.xz
B=dist/examples/bench
{
timeout 120 $B --family conv1d --table state_rows --json /tmp/s.json 2>&1 | grep -E "varlen|baseline"
echo "== ncu: the boundary pass, every launch"
timeout 200 ncu --clock-control none --kernel-name regex:sequence_boundaries --metrics gpu__time_duration.sum \
  --csv $B --family conv1d --table state_rows --json /tmp/n.json 2>/dev/null | grep -E "^\"" | \
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
} 2>&1 | tee $OUT/call8_varlen.txt
