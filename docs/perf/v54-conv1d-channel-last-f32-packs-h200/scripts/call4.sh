#!/bin/bash
cd .devbin/s46
for r in 1 2 3; do for v in cur bs4 lb5; do echo "== fw $v round $r"; CASES=bench SHAPES="8,4096,2048,4 4,5120,4096,4" LAYOUTS=cl timeout 60 ./fw_$v | grep "bf16\|copy"; done; done
for v in bs4 lb5; do echo "== check $v"; CASES=check ./fw_$v | tail -1; done
