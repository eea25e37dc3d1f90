#!/bin/bash
# Dev call 9 (s47): channel-first forward, whole segments of whole-vector rows without bound tests or the
# element path (bulk) against HEAD (cur). Not for landing this session: measured for the next.
cd .devbin/s47
{
CASES=check ./fw_bulk > check_bulk.txt 2>&1; echo "check bulk rc $? BAD $(grep -c BAD check_bulk.txt)"; tail -1 check_bulk.txt
for r in 1 2 3; do for v in cur bulk; do echo "== $v round $r"; CASES=bench LAYOUTS=cf SHAPES="8,4096,2048,4 4,5120,4096,4 4,2048,2048,4 8,4096,2047,4" ./fw_$v | grep -v "^copy"; done; done
} > $OUT/call9.txt 2>&1
cat $OUT/call9.txt | grep -E "check|==|silu=1|2047|2048,2048"
