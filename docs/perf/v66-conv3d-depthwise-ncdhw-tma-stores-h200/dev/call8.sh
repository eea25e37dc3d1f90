#!/bin/bash
# Dev call 8 (57th session), after the record: why sm crashed. smb (the tree with the output
# tile's store box from column -2, the b32 epilogue), sm0 (sm with the box at column 0: outputs
# two columns off, timing only), against land2 (the tree).
tar xJf .devbin/s57/c8.tar.xz
B=.devbin/zp
for r in 1 2 3; do
  for v in land2 smb sm0; do
    NOCHECK=1 CASES="bench ncdhw" timeout 30 $B/bench_$v $v --time-only 2>&1 | grep -E "bench ncdhw|CUDA"
  done
done
CASES="two row tiles" timeout 60 compute-sanitizer --tool memcheck $B/bench_sm sm --check-only 2>&1 | grep -E "ERROR SUMMARY|Invalid|illegal|at 0x|by thread" | head -8
