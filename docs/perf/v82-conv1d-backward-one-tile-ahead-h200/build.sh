#!/bin/bash
# How this session's dev binaries were built (run from the repository root at 9825393, whose
# backward_channel_last_tiled.hip the patches are against): the backward's other objects and
# the dev bench once, then one tiled object a variant. Variants: head (no patch); halo
# (call 1: patches/dev_halo_rows_loaded.patch); halo of calls 2-4 and split (call 2:
# patches/dev_halo_boxes_and_split_barriers.patch, split with -DDEV_SPLIT_ONLY); defer
# (call 3: patches/dev_halo_deferred.patch); halo2 (calls 4-6:
# patches/dev_halo_boxes_run_ends.patch); lead1 (calls 7-8: the change this session landed,
# built from the tree after it); lead1b (call 8: patches/dev_one_tile_ahead_after_two.patch).
# The timeline binaries: scripts/dev/timeline_backward.sh OUT [PATCH].
set -e
. scripts/toolchain.sh >/dev/null 2>&1
B=/tmp/bb; mkdir -p $B
F="-std=c++17 -O3 -x cu -DHIPCONV_PLATFORM_NVIDIA -gencode arch=compute_90a,code=sm_90a -Ihip/include -Ihip/common -Ihip/conv1d"
for f in backward backward_channel_first backward_channel_last backward_generic; do
  nvcc $F -c hip/conv1d/$f.hip -o $B/$f.o & done
nvcc -std=c++17 -O3 -gencode arch=compute_90a,code=sm_90a -Ihip/include -Ihip/common -c scripts/dev/backward_bench.cu -o $B/bench.o
wait
variant() {  # variant NAME [PATCH [NVCC FLAGS]]
  local src=hip/conv1d/.dev_tiled.hip
  cp hip/conv1d/backward_channel_last_tiled.hip $src
  [ -z "$2" ] || patch -s $src < "$2"
  mkdir -p $B/$1 && nvcc $F $3 -c $src -o $B/$1/tiled.o && rm $src
  nvcc -gencode arch=compute_90a,code=sm_90a $B/*.o $B/$1/tiled.o -o $B/backward_bench_$1 \
    -L$(dirname $(which nvcc))/../lib -cudart static
}
P=docs/perf/v82-conv1d-backward-one-tile-ahead-h200/patches
variant head
variant halo2 $P/dev_halo_boxes_run_ends.patch
variant split $P/dev_halo_boxes_and_split_barriers.patch -DDEV_SPLIT_ONLY
variant lead1b $P/dev_one_tile_ahead_after_two.patch
