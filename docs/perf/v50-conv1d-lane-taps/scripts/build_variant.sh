#!/bin/bash
# build.sh NAME: builds /tmp/fwd/NAME/hip (a copy of hip/) into .devbin/s42/fwd_NAME
set -e
cd /work/main; . scripts/toolchain.sh >/dev/null 2>&1
T=/tmp/fwd/$1/hip; O=/tmp/fwd/$1/obj; mkdir -p $O
F="-std=c++17 -O3 ${LINEINFO:+-lineinfo} -DHIPCONV_PLATFORM_NVIDIA -gencode arch=compute_90a,code=sm_90a -I$T/include -I$T/common -I$T/conv1d"
for f in direct_channel_first direct_channel_last; do nvcc $F -x cu -c $T/conv1d/$f.hip -o $O/$f.o & done; wait
nvcc $F -Iscripts/dev scripts/dev/forward_bench.cu $O/direct_channel_first.o $O/direct_channel_last.o -o .devbin/s42/fwd_$1 -L$(dirname $(which nvcc))/../lib -cudart static
echo built $1
