#!/bin/bash
# timeline_build.sh OUT: the chained-launch dev bench with the streaming forward kernels of
# the seed shape instrumented by scripts/dev/timeline.h (copies of their sources with the
# hooks inserted; the library's sources are not changed). Run it as `OUT timeline`.
set -e
cd "$(dirname "$0")/../.."
. scripts/toolchain.sh >/dev/null
OUT=$1; T=$(mktemp -d)
F="-std=c++17 -O3 -rdc=true -x cu -DHIPCONV_PLATFORM_NVIDIA -gencode arch=compute_90a,code=sm_90a -Ihip/include -Ihip/common -Ihip/conv1d -Iscripts/dev"
sed -e '1i #include "timeline.h"' \
    -e 's|^\(    begin_chained_kernel();.*\)$|\1\n    timeline_begin();|' \
    -e 's|^\(    convolve_segment<T, kWidth, V, kSilu>(p, total, segment \* kSegment, loads, lane);\)$|\1\n    timeline_end();|' \
    hip/conv1d/direct_channel_first.hip > $T/direct_channel_first.hip
sed -e '1i #include "timeline.h"' \
    -e '/conv1d_direct_channel_last_words_kernel(hipconv_conv1d_params p) {/,/^}/ s|^\(    begin_chained_kernel();.*\)$|\1\n    timeline_begin();|' \
    -e 's|^\(    convolve_rows<T, kWidth, kVec, kStep, kSilu, true>(p, (int)blockIdx.z, t, word \* kVec);\)$|\1\n    timeline_end();|' \
    hip/conv1d/direct_channel_last.hip > $T/direct_channel_last.hip
# Each copy must have gained both hooks (the patterns follow the kernels' source lines).
for f in direct_channel_first direct_channel_last; do
    [ "$(grep -c 'timeline_\(begin\|end\)();' $T/$f.hip)" = 2 ] || { echo "timeline hooks not inserted in $f.hip" >&2; exit 1; }
done
for f in direct_channel_first direct_channel_last; do nvcc $F -c $T/$f.hip -o $T/$f.o & done
nvcc $F -DTIMELINE_DEFINE -c scripts/dev/chained_launch_bench.cu -o $T/bench.o
wait
nvcc -rdc=true -gencode arch=compute_90a,code=sm_90a $T/*.o -o $OUT -L$(dirname $(which nvcc))/../lib -cudart static
