#!/bin/bash
# Dev call 3 (60th session): ncu at the GPU's own clocks (--clock-control none), the L2's
# throughput broken down: fin59's NCDHW and NDHWC bench rows, do's NCDHW row (dense output
# tiles) and a 16-byte copy of the same bytes.
mkdir -p .devbin/zp && tar xJf .devbin/s60/c3.tar.xz -C .devbin/zp
B=.devbin/zp
NCU=/usr/local/cuda/bin/ncu
M=gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,lts__cycles_elapsed.avg.per_second,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_requests_srcunit_tex.sum,lts__t_tag_requests.sum,breakdown:lts__throughput.avg.pct_of_peak_sustained_elapsed
run() { timeout 100 $NCU --clock-control none -k regex:$1 -s 3 -c 1 --metrics $M "${@:2}" 2>&1 | grep -E "^\s+[a-z0-9_]+__|copy " | awk '{print $1, $(NF)}'; }
echo "== copy16"; run copy16 $B/copy16
for v in fin59 do; do echo "== $v ncdhw"; NOCHECK=1 CASES="bench ncdhw f16" run depthwise $B/bench_$v $v --time-only; done
echo "== fin59 ndhwc"; NOCHECK=1 CASES="bench ndhwc f16" run depthwise $B/bench_fin59 fin59 --time-only
