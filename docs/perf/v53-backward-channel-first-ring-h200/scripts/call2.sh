#!/bin/bash
# Call 2: pieces per channel forced (PIECES=p, envp) against the tree's plan (base); dx by streaming stores
# (cs), bulk loads with an L2 evict-first policy (ef); alternated.
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/gpu.txt; date -u | tee -a $OUT/gpu.txt
B=.devbin/s45
for r in 1 2; do for v in "base" "envp 1" "envp 2" "envp 4" "envp 8" "cs" "cs 8" "ef" "ef 8"; do set -- $v
echo "== $v (round $r)"; if [ -n "$2" ]; then PIECES=$2 timeout 120 $B/bw_$1 cf; else timeout 120 $B/bw_$1 cf; fi; done; done > $OUT/bw2.txt 2>&1
grep -v "^check" $OUT/bw2.txt | cut -c1-60; grep "^check" $OUT/bw2.txt | sort | uniq -c
