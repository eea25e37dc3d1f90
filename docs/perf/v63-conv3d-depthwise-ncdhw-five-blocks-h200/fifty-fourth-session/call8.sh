#!/bin/bash
# Dev call 8 (54th session). NCDHW: head, wgpf (wg pipelined, the accumulators pinned around each wait: plane j's group of wgmma runs
# while output j - 3, copied out of its slot after plane j - 1's group, is converted; five
# blocks an SM).
tar xJf .devbin/a8.tar.xz
B=.devbin/zp
for r in 1 2 3; do
  for v in head wgpf; do NOCHECK=1 CASES="bench ncdhw" $B/bench_$v $v --time-only 2>&1 | grep -E "bench ncdhw"; done
done
timeout 100 $B/bench_wgpf wgpf --check-only > $OUT/check_wgpf.txt 2>&1; echo "rc $?" >> $OUT/check_wgpf.txt
echo "wgpf: $(tail -2 $OUT/check_wgpf.txt | paste -sd' ') $(grep -ci fail $OUT/check_wgpf.txt) fail"
for c in "two row tiles" "pad d 2" "causal frames" "depth chunks" "one row"; do
  CASES="$c" timeout 60 compute-sanitizer --tool memcheck $B/bench_wgpf wgpf --check-only 2>&1 | grep -E "ERROR SUMMARY|FAIL" | sed "s/^/memcheck $c: /"
done
for c in "two row tiles" "pad d 2" "depth chunks"; do
  CASES="$c" timeout 60 compute-sanitizer --tool racecheck $B/bench_wgpf wgpf --check-only 2>&1 | grep -E "RACECHECK SUMMARY|FAIL" | sed "s/^/racecheck $c: /"
done
