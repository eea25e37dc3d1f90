#!/bin/bash
# Dev call 6 (62nd session): pattern_order.cu (reads alone in the NCDHW kernel's pattern by
# plain 16-byte loads, the planes' order varied; five and sixteen blocks an SM), built here
# with: nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -Iscripts/dev
#   pattern_order.cu -o pattern_order -L$(dirname $(which nvcc))/../lib -cudart static
# and carried in .devbin/s62/probe.
cd .devbin/s62/probe && ./pattern_order
