#!/bin/bash
# build_t.sh NAME:TIMES:BUFFERS ...: the tiled channel-last kernel with f32 tiles, HEAD's other objects
. /work/main/scripts/toolchain.sh >/dev/null 2>&1
M=/work/main; L=$(dirname $(which nvcc))/../lib
FL="-std=c++17 -O3 -x cu -DHIPCONV_PLATFORM_NVIDIA -gencode arch=compute_90a,code=sm_90a -I$M/hip/include -I$M/hip/common -I$M/hip/conv1d"
for spec in "$@"; do IFS=: read n tm bf th <<< "$spec"
  ( nvcc $FL -DF32_TIMES=$tm -DF32_BUFFERS=$bf -DF32_THREADS=${th:-128} -Xptxas -v -c t/${SRC:-tiled}.hip -o t/$n.o 2> t/$n.ptxas.txt &&
    nvcc -gencode arch=compute_90a,code=sm_90a common/backward.o common/backward_channel_first.o common/backward_generic.o common/bench.o v_land/cl.o t/$n.o -o /work/dev/bin/bwd_$n -L$L -cudart static && echo built $n ) &
done
wait
