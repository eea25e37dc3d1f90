#!/bin/bash
# How this session's dev binaries were built (from the repository root at 5fd3acd, with
# this commit's scripts/dev/backward_bench.cu and forward_bench.cu): the backward's other
# objects once, the dev bench, then one tiled object a variant; the forward bench in its
# wide mode against two launch bounds of the wide Toeplitz kernel.
set -e
. scripts/toolchain.sh >/dev/null 2>&1
B=/tmp/bb; mkdir -p $B
P=docs/perf/v83-conv1d-record-tickets-wide-h200/patches
G="-gencode arch=compute_90a,code=sm_90a"
F="-std=c++17 -O3 -x cu -DHIPCONV_PLATFORM_NVIDIA $G -Ihip/include -Ihip/common -Ihip/conv1d"
L="-L$(dirname $(which nvcc))/../lib -cudart static"
for f in backward backward_channel_first backward_channel_last backward_generic; do
  nvcc $F -c hip/conv1d/$f.hip -o $B/$f.o; done
nvcc -std=c++17 -O3 $G -Ihip/include -Ihip/common -c scripts/dev/backward_bench.cu -o $B/bench.o
O="$B/backward.o $B/backward_channel_first.o $B/backward_channel_last.o $B/backward_generic.o $B/bench.o"
variant() {  # variant NAME [PATCH [NVCC FLAGS]]: .devbin/backward_bench_NAME
  local src=hip/conv1d/.dev_tiled.hip
  cp hip/conv1d/backward_channel_last_tiled.hip $src
  [ -z "$2" ] || patch -s $src < "$2"
  nvcc $F $3 -c $src -o $B/$1.o && rm $src
  nvcc $G $O $B/$1.o -o .devbin/backward_bench_$1 $L
}
mkdir -p .devbin
variant head                                      # calls 1 and 2
variant tickets $P/dev_tickets_one_ahead.patch    # call 1 (DEV_TICKETS=0 turns it off)
variant pf2 $P/dev_l2_prefetch.patch -DDEV_PF_AHEAD=2   # call 2
variant pf3 $P/dev_l2_prefetch.patch -DDEV_PF_AHEAD=3
# Call 5: the forward bench's wide mode, the wide Toeplitz kernel at 3 (HEAD), 4 and 5
# blocks an SM (its HIPCONV_BOUNDS_NVIDIA second argument).
nvcc -std=c++17 -O3 -DHIPCONV_PLATFORM_NVIDIA -DDEV_WIDE_TOEPLITZ $G -Ihip/include -Ihip/common -Ihip/conv1d \
  -Iscripts/dev -c scripts/dev/forward_bench.cu -o $B/fbw.o
for n in 3 4 5; do
  sed "s/HIPCONV_BOUNDS_NVIDIA(kThreads, 3) conv1d_direct_toeplitz_channel_first_kernel/HIPCONV_BOUNDS_NVIDIA(kThreads, $n) conv1d_direct_toeplitz_channel_first_kernel/" \
    hip/conv1d/direct_toeplitz_channel_first.hip > hip/conv1d/.dev_t$n.hip
  nvcc $F -c hip/conv1d/.dev_t$n.hip -o $B/t$n.o && rm hip/conv1d/.dev_t$n.hip
  nvcc $G $B/fbw.o $B/t$n.o -o .devbin/fwide_t$n $L
done
