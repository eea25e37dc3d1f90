#!/bin/bash
# Dev call 2 (67th session): ncu over one launch of the NCDHW f16 bench row, the tree (t72)
# against zl (dense slots by bulk copies): which kernel instance runs, DRAM bytes, L2 read
# sectors, shared-memory wavefronts, instructions, time.
mkdir -p .devbin/zq && tar xJf .devbin/s67/c1.tar.xz -C .devbin/zq
B=.devbin/zq
M=dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_op_read.sum,lts__t_requests_op_read.sum,gpu__time_duration.sum,smsp__inst_executed.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,sm__warps_active.avg.pct_of_peak_sustained_active
for v in t72 zl; do
  NOCHECK=1 CASES="bench ncdhw f16" timeout 120 ncu --launch-skip 6 --launch-count 1 --metrics $M $B/bench_$v $v --time-only > $OUT/ncu_$v.txt 2>&1
  echo "ncu $v exit $?"; grep -E "toeplitz|dram__|lts__|gpu__time|smsp__|l1tex__|sm__|Error" $OUT/ncu_$v.txt | cut -c1-150
done
