#!/bin/bash
cd .devbin/s69 && ./layout_pattern 8 4096 2048 | tee $OUT/pattern.txt && ./layout_pattern 4 5120 4096 | tee -a $OUT/pattern.txt
