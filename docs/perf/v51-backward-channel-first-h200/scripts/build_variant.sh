#!/bin/bash
# build.sh NAME: /tmp/bw/NAME/hip (a copy of hip/) + scripts/dev/backward_bench.cu -> .devbin/s43/bw_NAME;
# only backward_channel_first.hip is compiled per variant (the other objects are head's).
set -e
cd /work/main; . scripts/toolchain.sh >/dev/null 2>&1
T=/tmp/bw/$1/hip; O=/tmp/bw/$1/obj; H=/tmp/bw/head/obj; mkdir -p $O
F="-std=c++17 -O3 ${LINEINFO:+-lineinfo} -DHIPCONV_PLATFORM_NVIDIA -gencode arch=compute_90a,code=sm_90a -I$T/include -I$T/common -I$T/conv1d"
if [ "$1" = head ]; then files="backward backward_channel_first backward_channel_last backward_channel_last_tiled backward_generic"; else files=backward_channel_first; fi
for f in $files; do nvcc $F -Xptxas -v -x cu -c $T/conv1d/$f.hip -o $O/$f.o > $O/$f.log 2>&1; done
objs="$O/backward_channel_first.o"; for f in backward backward_channel_last backward_channel_last_tiled backward_generic; do objs="$objs $H/$f.o"; done
nvcc $F -Iscripts/dev scripts/dev/backward_bench.cu $objs -o .devbin/s43/bw_$1 -L$(dirname $(which nvcc))/../lib -cudart static
echo built $1
