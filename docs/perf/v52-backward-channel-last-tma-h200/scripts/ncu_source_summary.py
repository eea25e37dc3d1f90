import csv,sys,re,collections
rows=list(csv.reader(open(sys.argv[1])))
hdr=rows[1]; ia=hdr.index("Address"); isrc=hdr.index("Source"); ie=hdr.index("Instructions Executed"); iss=hdr.index("Warp Stall Sampling (All Samples)")
tot=0; ops=collections.Counter(); lines=[]
for r in rows[2:]:
    if len(r)<=ie: continue
    try: n=int(r[ie])
    except: continue
    src=r[isrc].strip(); m=re.match(r'(@!?U?P\w+\s+)?([A-Z0-9_]+)',src)
    op=m.group(2) if m else '?'
    tot+=n; ops[op]+=n; lines.append((r[ia],src,n,int(r[iss] or 0)))
print("total",tot)
for op,n in ops.most_common(25): print("%8.2f%% %12d %s"%(100*n/tot,n,op))
if len(sys.argv)>2:
    for a,s,n,st in lines: print(a[-5:],"%10d %5d"%(n,st),s)
