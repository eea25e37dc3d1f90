#!/bin/bash
# timeline_backward.sh OUT [PATCH]: the backward dev bench (scripts/dev/backward_bench.cu)
# with the tiled channel-last kernel instrumented by scripts/dev/timeline.h (a copy of
# hip/conv1d/backward_channel_last_tiled.hip, PATCH applied to it first if given, with
# timeline_begin() at the kernel's start and timeline_end() after its last dx store; the
# library's sources are not changed). Run it as `OUT timeline cl f32 B D L`.
set -e
cd "$(dirname "$0")/../.."
. scripts/toolchain.sh >/dev/null
OUT=$1; PATCH=$2; T=$(mktemp -d)
F="-std=c++17 -O3 -x cu -DHIPCONV_PLATFORM_NVIDIA -gencode arch=compute_90a,code=sm_90a -Ihip/include -Ihip/common -Ihip/conv1d -Iscripts/dev"
cp hip/conv1d/backward_channel_last_tiled.hip $T/tiled.hip
[ -z "$PATCH" ] || patch -s $T/tiled.hip < "$PATCH"
python3 - "$T/tiled.hip" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
begin = "    allow_dependent_launch();  // the reduction of the partials may be placed (launch_dependent)\n"
end = "    if (kUseTma && tid == 0) tma::wait_stores<0>();  // the last dx box written before the block ends\n#endif\n"
assert s.count(begin) == 1 and s.count(end) == 1, "timeline hooks not inserted"
s = '#define TIMELINE_DEFINE\n#include "timeline.h"\n' + s.replace(begin, begin + "    timeline_begin();\n").replace(end, end + "    timeline_end();\n")
# The records are read through host functions of this object: no -rdc (with it the kernel's
# dynamic shared memory lost its 128-byte alignment, which TMA needs).
s += '''
void timeline_reset() {
    const unsigned zero = 0;
    if (cudaMemcpyToSymbol(g_timeline_count, &zero, sizeof(zero)) != cudaSuccess) abort();
}
unsigned timeline_download(TimelineRecord *out, unsigned capacity) {
    unsigned count = 0;
    if (cudaMemcpyFromSymbol(&count, g_timeline_count, sizeof(count)) != cudaSuccess) abort();
    count = count < capacity ? count : capacity;
    if (cudaMemcpyFromSymbol(out, g_timeline, count * sizeof(TimelineRecord)) != cudaSuccess) abort();
    return count;
}
'''
open(p, "w").write(s)
PY
for f in backward backward_channel_first backward_channel_last backward_generic; do
  nvcc $F -c hip/conv1d/$f.hip -o $T/$f.o &
done
nvcc $F -c $T/tiled.hip -o $T/tiled.o &
nvcc $F -DTIMELINE_BENCH -c scripts/dev/backward_bench.cu -o $T/bench.o
wait
nvcc -gencode arch=compute_90a,code=sm_90a $T/*.o -o $OUT -L$(dirname $(which nvcc))/../lib -cudart static
rm -r $T
