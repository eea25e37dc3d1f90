#!/bin/bash
# build_src.sh NAME: the depthwise dev bench against .devbin/zp/src_NAME/hip (prepared by hand).
. scripts/toolchain.sh >/dev/null 2>&1
cd /work/main
name=$1; src=.devbin/zp/src_$name
nvcc -std=c++17 -O3 -DHIPCONV_PLATFORM_NVIDIA -DHIPCONV_SM90A_SASS \
    -gencode arch=compute_90a,code=sm_90a -I$src/hip/include -I$src/hip/common -I$src/hip/conv3d -Iscripts/dev -x cu scripts/dev/depthwise_bench.cu \
    $(for f in depthwise depthwise_generic naive depthwise_toeplitz depthwise_toeplitz_last depthwise_diagonal implicit_gemm_sm90; do echo -x cu $src/hip/conv3d/$f.hip; done) \
    -Xptxas -v -o .devbin/zp/bench_$name -Xcompiler -fopenmp -L$(dirname $(which nvcc))/../lib -cudart static > .devbin/zp/ptxas_$name.txt 2>&1 && echo built $name
