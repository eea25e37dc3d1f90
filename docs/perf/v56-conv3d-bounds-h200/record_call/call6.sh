# Call 6 (48th session): the VAE 96ch NDHWC row on the dev bench, HEAD (A copies) / halves (A in two 32-channel
# boxes, 2 k-tiles of boxes ahead, as call 5's record) / a3 (3 ahead), interleaved; then the record script on the
# dist of the a3 tree.
B=.devbin/s48
for r in 1 2; do for v in head halves a3; do
  CASES="VAE 96ch" timeout 40 $B/ig_$v $v --time-only 2>&1 | grep " us" >> $OUT/dev_time.txt
done; done
cat $OUT/dev_time.txt
bash .devbin/record3d.sh
