#!/bin/bash
# Dev call 10 (61st session): reads alone by a plain 16-byte grid-stride kernel at the bench
# row's size (read_probe.cu, built with nvcc -O3 -gencode arch=compute_90a,code=sm_90a),
# against the depthwise kernels' reads-only pipelines (46.7 us).
.devbin/s61/read_probe
