#!/bin/bash
# build.sh NAME: /tmp/bw2/NAME/hip (a copy of hip/) + scripts/dev/backward_bench.cu -> .devbin/s44/bw_NAME;
# only $VARY (default backward_channel_last_tiled) is compiled per variant (the other objects are head's).
set -e
cd /work/main; . scripts/toolchain.sh >/dev/null 2>&1
VARY=${VARY:-backward_channel_last_tiled}
T=/tmp/bw2/$1/hip; O=/tmp/bw2/$1/obj; H=/tmp/bw2/head/obj; mkdir -p $O .devbin/s44
F="-std=c++17 -O3 ${LINEINFO:+-lineinfo} -DHIPCONV_PLATFORM_NVIDIA -gencode arch=compute_90a,code=sm_90a -I$T/include -I$T/common -I$T/conv1d"
all="backward backward_channel_first backward_channel_last backward_channel_last_tiled backward_generic"
if [ "$1" = head ]; then files="$all"; else files=$VARY; fi
for f in $files; do nvcc $F -Xptxas -v -x cu -c $T/conv1d/$f.hip -o $O/$f.o > $O/$f.log 2>&1 & done; wait
objs=""; for f in $all; do if [ -f $O/$f.o ] && { [ "$1" = head ] || [ $f = $VARY ]; }; then objs="$objs $O/$f.o"; else objs="$objs $H/$f.o"; fi; done
nvcc $F -Iscripts/dev scripts/dev/backward_bench.cu $objs -o .devbin/s44/bw_$1 -L$(dirname $(which nvcc))/../lib -cudart static
cuobjdump -sass $O/$VARY.o > /tmp/bw2/$1/$VARY.sass 2>/dev/null || true
echo built $1
