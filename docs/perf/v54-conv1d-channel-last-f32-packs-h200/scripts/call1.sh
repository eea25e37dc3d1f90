#!/bin/bash
# call 1: backward chained vs head (cf + cl), forward CL small-shape variants
cd .devbin/s46
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader
for r in 1 2; do
  for v in head chain; do echo "== bw $v cf round $r"; timeout 120 ./bw_$v cf 2>&1 | tail -14; done
  echo "== bw chain cf HIPCONV_CHAINED_LAUNCH=0 round $r"; HIPCONV_CHAINED_LAUNCH=0 timeout 120 ./bw_chain cf 2>&1 | tail -14
done
for v in head chain; do echo "== bw $v cl"; timeout 150 ./bw_$v 2>&1 | tail -14; done
for r in 1 2; do for v in head pack8 pack4 words8; do echo "== fw $v round $r"; CASES=bench SHAPES="4,2048,2048,4 8,4096,2048,4" LAYOUTS=cl timeout 60 ./fw_$v; done; done
echo "== fw pack8 cf+cl (4,2048,2048,4) with CF for comparison"; CASES=bench SHAPES="4,2048,2048,4" timeout 60 ./fw_head
