#!/bin/bash
# build.sh: common objects once, then one backward_bench per variant folder v_*
. /work/main/scripts/toolchain.sh >/dev/null 2>&1
M=/work/main; L=$(dirname $(which nvcc))/../lib
FL="-std=c++17 -O3 -x cu -DHIPCONV_PLATFORM_NVIDIA -gencode arch=compute_90a,code=sm_90a -I$M/hip/include -I$M/hip/common -I$M/hip/conv1d"
mkdir -p common
if [ ! -f common/bench.o ]; then
  for f in backward backward_channel_first backward_channel_last_tiled backward_generic; do
    nvcc $FL -c $M/hip/conv1d/$f.hip -o common/$f.o & done
  nvcc -std=c++17 -O3 -gencode arch=compute_90a,code=sm_90a -I$M/hip/include -I$M/hip/common -I$M/scripts/dev -c $M/scripts/dev/backward_bench.cu -o common/bench.o
  wait
fi
for v in "$@"; do
  ( nvcc $FL -Xptxas -v -c v_$v/backward_channel_last.hip -o v_$v/cl.o 2> v_$v/ptxas.txt &&
    nvcc -gencode arch=compute_90a,code=sm_90a common/*.o v_$v/cl.o -o /work/dev/bin/bwd_$v -L$L -cudart static && echo built $v ) &
done
wait
