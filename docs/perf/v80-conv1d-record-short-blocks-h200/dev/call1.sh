cd .devbin/sb
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
compute-sanitizer --tool memcheck --error-exitcode 9 ./short_blocks 2 256 512 2>&1 | grep -E "library|R |ERROR SUMMARY|CUDA" | head -12
./short_blocks 2>&1 | tee $OUT/short1.txt
./layout_pattern 8 4096 2048 2>&1 | tail -5 | tee $OUT/pattern.txt
