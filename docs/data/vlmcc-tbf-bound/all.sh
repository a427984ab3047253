#!/bin/sh
# all.sh: the calls in the order run. Trials 1-3 of the two tbf cells with
# VLMCC-vplus, the TCP reference, TCP-paced and CBR-fair in turn (bN-*), then trials 2
# and 3 of VLMCC and TFMCC in the four cells of vlmcc-grid-rest (gN-*; trial
# 1 is that folder's p1-*).
D=docs/data/vlmcc-tbf-bound
for t in 1 2 3; do
  $D/run.sh b$t "tbf:2 tbf:4" VLMCC-vplus,TCP,TCP-paced,CBR-fair
done
for t in 2 3; do
  $D/run.sh g$t "tbf:4 red:2 red:4 codel:2" VLMCC,TFMCC
done
