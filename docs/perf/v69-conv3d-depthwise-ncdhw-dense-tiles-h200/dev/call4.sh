#!/bin/bash
# Dev call 4 (60th session): fin59 (HEAD) against do / dobp with the dense output tiles really
# taken (call 1's launcher left them out: a device-side macro in host code), rb (timing only:
# each plane's rows as one 1-D bulk copy, landed as if dense) and rbdo (both); checks of do and
# dobp; ncu at the GPU's own clocks: L2 sectors and fabric of fin59, do and rbdo.
mkdir -p .devbin/zp && tar xJf .devbin/s60/c4.tar.xz -C .devbin/zp
B=.devbin/zp
for r in 1 2 3; do for v in fin59 do dobp rb rbdo; do
  NOCHECK=1 CASES="bench ncdhw" timeout 20 $B/bench_$v $v --time-only 2>&1 | grep -E "bench ncdhw"
done; done
for v in do dobp; do
  timeout 60 $B/bench_$v $v --check-only > /tmp/c.txt 2>&1; echo "$v: rc $? $(tail -1 /tmp/c.txt) $(grep -ci fail /tmp/c.txt) fail"
  grep -i fail /tmp/c.txt | head -5
done
NCU=/usr/local/cuda/bin/ncu
M=gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__ltcfabric2ltc_cycles_active.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_tag_requests.avg.pct_of_peak_sustained_elapsed,lts__xbar2lts_cycles_active.avg.pct_of_peak_sustained_elapsed
for v in fin59 do rbdo; do
  echo "== $v"
  NOCHECK=1 CASES="bench ncdhw f16" timeout 100 $NCU --clock-control none -k regex:depthwise -s 3 -c 1 --metrics $M $B/bench_$v $v --time-only 2>&1 | grep -E "^\s+[a-z0-9_]+__" | awk '{print $1, $(NF)}'
done
