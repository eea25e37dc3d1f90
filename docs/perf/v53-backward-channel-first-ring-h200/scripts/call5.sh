#!/bin/bash
# Call 5: where the f32 channel-first backward's time goes between kernels: nsys (graph nodes traced) over
# the tree's dev bench (f32 runs of four tiles: the main kernel, then the partials' reduction).
B=.devbin/s45; which nsys; nsys --version
timeout 200 nsys profile --cuda-graph-trace=node -o /tmp/tree -t cuda --force-overwrite true $B/bw_tree cf > /tmp/nsys.log 2>&1; echo "nsys exit $?"
nsys stats -r cuda_gpu_kern_sum -f csv /tmp/tree.nsys-rep > $OUT/kern_sum.csv 2>/dev/null; cut -c1-220 $OUT/kern_sum.csv
nsys stats -r cuda_gpu_trace -f csv /tmp/tree.nsys-rep > /tmp/trace.csv 2>/dev/null; gzip -c /tmp/trace.csv > $OUT/trace.csv.gz; wc -l /tmp/trace.csv
python3 - <<'PY'
import csv
rows=list(csv.DictReader(open('/tmp/trace.csv')))
print(list(rows[0].keys()))
k=[r for r in rows if 'Name' in r and 'backward' in r['Name']]
# consecutive kernels: print start gaps for f32 main+reduce sequences
prev=None; out=[]
for r in k:
    st=int(r['Start (ns)']); du=int(r['Duration (ns)']); nm=r['Name'].split('(')[0][-70:]
    gap = st-prev if prev is not None else 0
    out.append((nm,du,gap)); prev=st+du
import collections
agg=collections.defaultdict(list)
for nm,du,gap in out: agg[nm].append((du,gap))
for nm,v in agg.items():
    v.sort(); d=sorted(x[0] for x in v); g=sorted(x[1] for x in v)
    print(f"{nm:70s} n={len(v)} dur med {d[len(d)//2]/1e3:.2f} us  gap-before med {g[len(g)//2]/1e3:.2f} us")
PY
