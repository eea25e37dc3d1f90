set -e
cd /work/main
. scripts/toolchain.sh >/dev/null 2>&1
F="-std=c++17 -O3 -x cu -DHIPCONV_PLATFORM_NVIDIA -gencode arch=compute_90a,code=sm_90a -Ihip/include -Ihip/common -Ihip/conv1d"
for f in backward backward_channel_first backward_channel_last backward_generic; do
  nvcc $F -c hip/conv1d/$f.hip -o /tmp/bb/$f.o & done
nvcc $F -c hip/conv1d/backward_channel_last_tiled.hip -o /tmp/bb/direct/tiled.o &
cp /tmp/bb/head_tiled.hip hip/conv1d/.head_tiled.hip
nvcc $F -c hip/conv1d/.head_tiled.hip -o /tmp/bb/head/tiled.o &
nvcc -std=c++17 -O3 -gencode arch=compute_90a,code=sm_90a -Ihip/include -Ihip/common -c scripts/dev/backward_bench.cu -o /tmp/bb/bench.o &
wait
rm hip/conv1d/.head_tiled.hip
L="-L$(dirname $(which nvcc))/../lib -cudart static"
for v in head direct; do
  nvcc -gencode arch=compute_90a,code=sm_90a /tmp/bb/*.o /tmp/bb/$v/tiled.o -o /tmp/bb/backward_bench_$v $L -lcuda 2>&1 || nvcc -gencode arch=compute_90a,code=sm_90a /tmp/bb/*.o /tmp/bb/$v/tiled.o -o /tmp/bb/backward_bench_$v $L
done
ls -la /tmp/bb
