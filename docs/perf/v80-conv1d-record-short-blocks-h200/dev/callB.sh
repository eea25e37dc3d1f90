# Call B: the conv1d test binaries not in the record call's dist, the decode example, then
# ncu of the short-block prototype, the library's kernel and the pattern (one cold launch each).
start=$(date +%s)
rm -rf dist && tar xJf .devbin/distB.tar.xz
export HIPCONV_REQUIRE_GPU=1
( cd dist
for t in tests/*; do n=$(basename "${t%-*}"); s=$(date +%s)
  timeout 120 "$t" > /tmp/test-$n.log 2>&1; rc=$?
  echo "test $n exit $rc ($(( $(date +%s) - s )) s): $(grep -E '^test result' /tmp/test-$n.log | tail -1)"
  [ $rc -eq 0 ] || grep -E "panicked|FAILED|error" /tmp/test-$n.log | head -8
done
timeout 60 examples/decode 2>&1 | tail -4 ) | tee $OUT/tests_b.txt
cd .devbin/sb
sec="--section SpeedOfLight --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis --section LaunchStats"
for v in 32,1 32,8 lib; do s=$(date +%s)
  k=short_backward; [ $v = lib ] && k=tiled
  PROFILE=$v timeout 120 ncu --clock-control none --kernel-name regex:$k --launch-skip 1 --launch-count 1 $sec ./short_blocks 8 4096 2048 > $OUT/ncu_$v.txt 2>&1
  echo "ncu $v exit $? ($(( $(date +%s) - s )) s)"
done
s=$(date +%s)
ONLY_RUN=32 timeout 120 ncu --clock-control none --kernel-name regex:sum_pattern --launch-skip 1 --launch-count 1 $sec ./layout_pattern 8 4096 2048 > $OUT/ncu_pattern32.txt 2>&1
echo "ncu pattern exit $? ($(( $(date +%s) - s )) s)"
for f in $OUT/ncu_*.txt; do echo "== $f"; grep -E "^  [a-z_]+.*\(|Duration|DRAM Throughput|Achieved Occupancy|Theoretical Occupancy|Registers Per|Block Limit|L2 Cache Throughput|Stall|Warp Cycles Per Issued" $f | head -20; done
echo "done at $(( $(date +%s) - start )) s"
