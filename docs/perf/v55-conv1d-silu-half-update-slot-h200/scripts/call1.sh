#!/bin/bash
# Dev call 1 (s47): CF forward variants (half-scale SiLU, +bound 5) and the update's 4-word groups.
cd .devbin/s47
{
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader
for v in half halfb5; do echo "== check $v"; CASES=check ./fw_$v > check_$v.txt 2>&1; echo "rc $? BAD $(grep -c BAD check_$v.txt) lines $(wc -l < check_$v.txt)"; tail -2 check_$v.txt; done
for r in 1 2 3; do for v in head half halfb5; do echo "== bench $v round $r"; CASES=bench LAYOUTS=cf ./fw_$v; done; done
for r in 1 2 3; do for v in head g4 g4b6 g4nb; do echo "== update $v round $r"; ./up_$v; done; done
} > $OUT/call1.txt 2>&1
cp check_*.txt $OUT/
grep -E "==|silu|update" $OUT/call1.txt | head -150
