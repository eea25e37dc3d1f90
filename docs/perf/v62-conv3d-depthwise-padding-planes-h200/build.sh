#!/bin/bash
# build.sh NAME [FILE SED-EXPRESSION]...: a copy of hip/ with those sed edits (FILE under
# hip/conv3d/), then scripts/dev/depthwise_bench.cu against it as .devbin/zp/bench_NAME.
. scripts/toolchain.sh >/dev/null 2>&1
cd /work/main
name=$1; shift
src=.devbin/zp/src_$name
rm -rf $src && mkdir -p $src && cp -r hip $src/
while [ $# -gt 0 ]; do f=$1; e=$2; shift 2; sed -i "$e" $src/hip/conv3d/$f; grep -c . $src/hip/conv3d/$f >/dev/null; done
diff -r hip $src/hip | head -20
nvcc -std=c++17 -O3 -DHIPCONV_PLATFORM_NVIDIA -DHIPCONV_SM90A_SASS \
    -gencode arch=compute_90a,code=sm_90a -I$src/hip/include -I$src/hip/common -I$src/hip/conv3d -Iscripts/dev -x cu scripts/dev/depthwise_bench.cu \
    $(for f in depthwise depthwise_generic naive depthwise_toeplitz depthwise_toeplitz_last depthwise_diagonal implicit_gemm_sm90; do echo -x cu $src/hip/conv3d/$f.hip; done) \
    -Xptxas -v -o .devbin/zp/bench_$name -Xcompiler -fopenmp -L$(dirname $(which nvcc))/../lib -cudart static > .devbin/zp/ptxas_$name.txt 2>&1 && echo built $name
