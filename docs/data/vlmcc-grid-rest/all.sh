#!/bin/sh
# all.sh: the calls in the order run (trial 1 of every cell, then trial 2, 3).
D=docs/data/vlmcc-grid-rest
CELLS="tbf:4 red:2 red:4 codel:2"
$D/run.sh 1 "$CELLS"
$D/run.sh 2 "$CELLS"
$D/run.sh 3 "$CELLS"
