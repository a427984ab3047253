#!/bin/sh
# seg.sh: one trial beside 4 cubic flows on the tbf of VLMCC-vplus-seg-hold
# (plus-loss-segment=1448 plus-recovery-hold=true) and VLMCC-vplus, to x1-*.
D=docs/data/vlmcc-tbf-bound
$D/run.sh x1 "tbf:4" VLMCC-vplus-seg-hold,VLMCC-vplus
