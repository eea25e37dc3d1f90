#!/bin/bash
# Dev call 3 (s47): update with the index loads after x (idx) against HEAD, with and without state_indices.
cd .devbin/s47
{
for r in 1 2 3; do for v in head idx; do for i in 1 0; do echo "== update $v indices=$i round $r"; INDICES=$i ./up_$v; done; done; done
} > $OUT/call3.txt 2>&1
python3 - $OUT/call3.txt <<'P'
import sys,re,collections
t=collections.defaultdict(list); h={}
for line in open(sys.argv[1]):
    if line.startswith('=='): v=line.split()[2]; i=line.split()[3]; continue
    m=re.match(r'update (\w+)\s+tokens (\d)\s+(silu)?\s*(\w+)\s+(indices)?\s*([\d.]+) us.*hash (\w+)',line)
    if m:
        k=(m[1],m[2],m[3] or '',m[4],i); t[(k,v)].append(float(m[6])); h.setdefault((k,v),m[7])
keys=sorted({k for k,v in t})
for k in keys:
    a=sorted(t[(k,'head')]); b=sorted(t[(k,'idx')])
    print(' '.join(k), 'head', a, 'idx', b, 'hash same' if h[(k,'head')]==h[(k,'idx')] else 'HASH DIFF')
P
