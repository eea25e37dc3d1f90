#!/bin/bash
cd .devbin/s46
./copy_ceiling 16.8 29.4 33.6 58.8 67.1 134.2 2000 > $OUT/copy_ceiling.txt 2>&1
for r in 1 2; do for v in head cfv1 cfv2; do echo "== fw $v round $r"; CASES=bench SHAPES="4,2048,2048,4 1,64,65536,4 2,1000,4096,4 8,4096,2048,4" LAYOUTS=cf timeout 60 ./fw_$v; done; done > $OUT/fw_cf.txt 2>&1
for v in cfv1 cfv2; do echo "== check $v"; CASES=check ./fw_$v | tail -1; done
cat $OUT/copy_ceiling.txt
