#!/bin/bash
# build_obj.sh NAME: the depthwise dev bench against .devbin/zp/src_NAME/hip, compiling only
# the files that differ from src_new (objects of src_new reused from obj_new).
cd /work/main; . scripts/toolchain.sh >/dev/null 2>&1
cd /work/main
name=$1; src=.devbin/zp/src_$name; obj=.devbin/zp/obj_$name; mkdir -p $obj
flags="-std=c++17 -O3 -DHIPCONV_PLATFORM_NVIDIA -DHIPCONV_SM90A_SASS -gencode arch=compute_90a,code=sm_90a -I$src/hip/include -I$src/hip/common -I$src/hip/conv3d -Iscripts/dev"
: > .devbin/zp/ptxas_$name.txt
pids=()
for f in depthwise depthwise_generic naive depthwise_toeplitz depthwise_toeplitz_last depthwise_diagonal implicit_gemm_sm90; do
  if [ "$name" != new ] && diff -rq $src/hip .devbin/zp/src_new/hip -x "*.hip" >/dev/null 2>&1 && cmp -s $src/hip/conv3d/$f.hip .devbin/zp/src_new/hip/conv3d/$f.hip; then
    cp .devbin/zp/obj_new/$f.o $obj/$f.o
  else
    nvcc $flags -Xptxas -v -x cu -c $src/hip/conv3d/$f.hip -o $obj/$f.o > $obj/$f.ptxas.txt 2>&1 || { echo FAIL $f; cat $obj/$f.ptxas.txt | grep -i error | head; exit 1; }
    cat $obj/$f.ptxas.txt >> .devbin/zp/ptxas_$name.txt
  fi
done
[ -f .devbin/zp/bench_main.o ] || nvcc $flags -Xcompiler -fopenmp -x cu -c scripts/dev/depthwise_bench.cu -o .devbin/zp/bench_main.o
nvcc -gencode arch=compute_90a,code=sm_90a .devbin/zp/bench_main.o $obj/*.o -o .devbin/zp/bench_$name -Xcompiler -fopenmp -L$(dirname $(which nvcc))/../lib -cudart static && echo built $name
