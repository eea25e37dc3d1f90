#!/bin/bash
# Dev call 4 (s47): update index-load order variants, with state_indices (as the library's bench).
cd .devbin/s47
{
for r in 1 2 3; do for v in head idx va vb; do echo "== update $v indices=1 round $r"; INDICES=1 ./up_$v; done; done
} > $OUT/call4.txt 2>&1
python3 - $OUT/call4.txt <<'P'
import sys,re,collections
t=collections.defaultdict(list); h={}
for line in open(sys.argv[1]):
    if line.startswith('=='): v=line.split()[2]; continue
    m=re.match(r'update (\w+)\s+tokens (\d)\s+(silu)?\s*(\w+)\s+(indices)?\s*([\d.]+) us.*hash (\w+)',line)
    if m:
        k=(m[1],m[2],m[3] or '-',m[4]); t[(k,v)].append(float(m[6])); h.setdefault((k,v),m[7])
keys=sorted({k for k,v in t})
for k in keys:
    print('%-30s'%' '.join(k), ' '.join('%s %.2f'%(v, sorted(t[(k,v)])[1]) for v in ('head','idx','va','vb')), '' if all(h[(k,v)]==h[(k,'head')] for v in ('idx','va','vb')) else 'HASH DIFF')
P
