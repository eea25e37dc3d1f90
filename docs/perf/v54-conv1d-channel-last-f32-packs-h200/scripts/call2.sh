#!/bin/bash
cd .devbin/s46
for r in 1 2; do
  for v in head chain; do echo "== bw $v cf round $r"; timeout 120 ./bw_$v cf 2>&1 | grep -v "^check"; done
  echo "== bw chain cf HIPCONV_CHAINED_LAUNCH=0 round $r"; HIPCONV_CHAINED_LAUNCH=0 timeout 120 ./bw_chain cf 2>&1 | grep -v "^check"
done > $OUT/bw_cf.txt 2>&1
for r in 1 2; do for v in head words8 f32p8 pack8; do echo "== fw $v round $r"; CASES=bench SHAPES="4,2048,2048,4 1,64,65536,4 2,1000,4096,4 2,2048,4096,4" LAYOUTS=cl timeout 60 ./fw_$v | grep -v "f16\|bf16"; done; done > $OUT/fw.txt 2>&1
echo "== check f32p8"; CASES=check ./fw_f32p8 | tail -2
cat $OUT/bw_cf.txt
