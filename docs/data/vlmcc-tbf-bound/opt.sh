#!/bin/sh
# opt.sh (issue 19, h149): 3 trials beside 2 and 4 cubic flows on the tbf of
# VLMCC-vplus, VLMCC-vplus-seg-hold (plus-loss-segment=1448
# plus-recovery-hold=true) and the TCP reference, in turn inside each trial
# (the order rotates between trials), to oN-tbf-{2,4}. Then one trial each of
# the two vplus arms on RED and CoDel beside 2 cubic (oc1-*). Run from the
# worktree's root; a file STOP in this folder ends it between calls.
D=docs/data/vlmcc-tbf-bound
$D/run.sh o1 "tbf:2 tbf:4" VLMCC-vplus,VLMCC-vplus-seg-hold,TCP
$D/run.sh o2 "tbf:4 tbf:2" VLMCC-vplus-seg-hold,TCP,VLMCC-vplus
$D/run.sh o3 "tbf:2 tbf:4" TCP,VLMCC-vplus,VLMCC-vplus-seg-hold
$D/run.sh oc1 "red:2 codel:2" VLMCC-vplus-seg-hold,VLMCC-vplus
