#!/bin/bash
# build_obj.sh NAME: the depthwise dev bench against .devbin/zp/src_NAME/hip, compiling only
# the files that differ from the base tree src_$BASE (BASE=fin by default: v64's kernels; BASE=new
# for call 8, the landed tree), the others' objects reused from obj_$BASE.
cd /work/main && . scripts/toolchain.sh >/dev/null 2>&1
name=$1; base=${BASE:-fin}
src=.devbin/zp/src_$name; obj=.devbin/zp/obj_$name; mkdir -p $obj
flags="-std=c++17 -O3 -DHIPCONV_PLATFORM_NVIDIA -DHIPCONV_SM90A_SASS -gencode arch=compute_90a,code=sm_90a -I$src/hip/include -I$src/hip/common -I$src/hip/conv3d -Iscripts/dev"
: > .devbin/zp/ptxas_$name.txt
for f in depthwise depthwise_generic naive depthwise_toeplitz depthwise_toeplitz_last depthwise_diagonal implicit_gemm_sm90; do
  if [ "$name" != "$base" ] && diff -rq $src/hip .devbin/zp/src_$base/hip -x "*.hip" >/dev/null 2>&1 &&
     cmp -s $src/hip/conv3d/$f.hip .devbin/zp/src_$base/hip/conv3d/$f.hip; then
    cp .devbin/zp/obj_$base/$f.o $obj/$f.o
  else
    nvcc $flags -Xptxas -v -x cu -c $src/hip/conv3d/$f.hip -o $obj/$f.o > $obj/$f.ptxas.txt 2>&1 || { echo FAIL $f; grep -i error $obj/$f.ptxas.txt | head; exit 1; }
    cat $obj/$f.ptxas.txt >> .devbin/zp/ptxas_$name.txt
  fi
done
[ -f .devbin/zp/bench_main.o ] || nvcc $flags -Xcompiler -fopenmp -x cu -c scripts/dev/depthwise_bench.cu -o .devbin/zp/bench_main.o
nvcc -gencode arch=compute_90a,code=sm_90a .devbin/zp/bench_main.o $obj/*.o -o .devbin/zp/bench_$name -Xcompiler -fopenmp -L$(dirname $(which nvcc))/../lib -cudart static && echo built $name
