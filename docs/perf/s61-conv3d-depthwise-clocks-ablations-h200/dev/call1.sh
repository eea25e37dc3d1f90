#!/bin/bash
# Dev call 1 (61st session): the SM clock, power and clock-event reasons that nvidia-smi reports
# (every 20 ms) while a 16-byte copy and the tree's depthwise bench rows (NCDHW f16, NDHWC f16,
# NCDHW bf16 bias SiLU) each run for 4 s (SOAK_MS), then timed; and the rows timed without the soak.
mkdir -p .devbin/zp && tar xJf .devbin/s61/c1.tar.xz -C .devbin/zp
B=.devbin/zp
nvidia-smi --query-gpu=name,driver_version,power.limit,enforced.power.limit,power.max_limit,clocks.max.sm,clocks.max.mem,clocks.applications.graphics --format=csv
F=timestamp,clocks.sm,clocks.mem,power.draw,power.draw.instant,temperature.gpu,temperature.memory,clocks_event_reasons.active,clocks_event_reasons.sw_power_cap,clocks_event_reasons.hw_slowdown,clocks_event_reasons.sw_thermal_slowdown,clocks_event_reasons.hw_power_brake_slowdown
nvidia-smi --query-gpu=$F --format=csv > /dev/null 2>&1 || F=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_throttle_reasons.active
echo "fields $F"
nvidia-smi --query-gpu=$F --format=csv -lms 20 > $OUT/smi.csv 2>&1 &
SMI=$!
mark() { echo "$(date +%Y/%m/%d\ %H:%M:%S.%N) $*" >> $OUT/marks.txt; }
sleep 1; mark idle
mark copy; SOAK_MS=4000 timeout 30 $B/copy_soak; mark idle
sleep 1
for c in "bench ncdhw f16" "bench ndhwc f16" "bench ncdhw bf16 bias silu"; do
  mark "$c"; SOAK_MS=4000 NOCHECK=1 CASES="$c" timeout 40 $B/bench_fin60r fin60r --time-only; mark idle; sleep 1
done
mark copy; SOAK_MS=4000 timeout 30 $B/copy_soak; mark idle
sleep 0.5
kill $SMI
echo "== without soak"
for r in 1 2; do NOCHECK=1 CASES="bench n" timeout 40 $B/bench_fin60r fin60r --time-only; $B/copy_soak; done
cp $OUT/marks.txt /dev/stdout
