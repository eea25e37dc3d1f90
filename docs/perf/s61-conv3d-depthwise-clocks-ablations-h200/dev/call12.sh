#!/bin/bash
# Dev call 12 (61st session): pattern_items.cu (pattern_probe.cu with 1, 2 or 4 consecutive
# items a block, its loads running on from one item to the next), at five and sixteen
# blocks an SM.
.devbin/s61/pattern_items
