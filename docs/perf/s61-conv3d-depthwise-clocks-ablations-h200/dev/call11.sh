#!/bin/bash
# Dev call 11 (61st session): reads alone in the NCDHW kernel's pattern (3072 blocks, 16
# planes of 30 rows of 112 bytes each) by plain 16-byte loads (pattern_probe.cu, built like
# read_probe.cu), at five blocks an SM (39,408 bytes of shared memory a block, as the kernel)
# and at sixteen.
.devbin/s61/pattern_probe
