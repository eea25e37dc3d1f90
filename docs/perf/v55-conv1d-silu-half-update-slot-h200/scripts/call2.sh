#!/bin/bash
# Dev call 2 (s47): CF 16-bit SiLU: half-scale, V=3 at 5 blocks; f32 update: circular path diagnosis.
cd .devbin/s47
{
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
CASES=check ./fw_v3b5 > check_v3b5.txt 2>&1; echo "check v3b5 rc $? BAD $(grep -c BAD check_v3b5.txt)"; tail -1 check_v3b5.txt
for r in 1 2 3; do for v in head half v3b5; do echo "== bench $v round $r"; CASES=bench LAYOUTS=cf ./fw_$v | grep -E "copy|silu=1"; done; done
for r in 1 2 3; do for v in head nocirc nocache; do echo "== update $v round $r"; ./up_$v f32 | grep "tokens 4"; done; done
} > $OUT/call2.txt 2>&1
grep -E "check|==|bf16.*silu=1|circular|shifting" $OUT/call2.txt | head -120
