#!/bin/bash
# Call 5: ncu (warm: --cache-control none, the launch after one of the same) of the tiled
# channel-last f32 kernel, HEAD against halo2, at (8,4096,2048,4) and (4,5120,4096,4).
cd .devbin
for shape in "8 4096 2048" "4 5120 4096"; do for v in head halo2; do
  f=$OUT/ncu_${v}_$(echo $shape | tr ' ' _).txt
  timeout 120 ncu --clock-control none --cache-control none -k regex:channel_last_tiled --launch-skip 1 --launch-count 1 \
    --section SpeedOfLight \
    --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_ltcfabric.sum,lts__t_sectors.sum,lts__t_sector_op_read_hit_rate.pct,sm__cycles_active.avg,sm__cycles_active.max,sm__cycles_active.min,smsp__inst_executed.sum,lts__d_sectors_fill_sysmem.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum \
    ./backward_bench_$v profile cl f32 $shape > $f 2>&1
  echo "== $v $shape exit $?"; grep -E "Duration|DRAM Throughput|L2 Cache Throughput|dram__|lts__|sm__cycles|inst_exec" $f
done; done
