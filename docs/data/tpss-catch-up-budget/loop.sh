#!/bin/sh
# loop.sh "PAIRS" "TESTS": for each pair, each test in turn, its two arms
# in the order 0 20 in odd pairs and 20 0 in even ones (A B B A); run.sh
# runs one. A file STOP in $D ends it.
PAIRS=$1; TESTS=$2; D=${D:-/tmp/h103-ab}
for p in $PAIRS; do
  if [ $((p % 2)) = 1 ]; then ORD="0 20"; else ORD="20 0"; fi
  for t in $TESTS; do
    for a in $ORD; do
      if [ -e "$D/STOP" ]; then exit 0; fi
      "$D/run.sh" $a $t $p
    done
  done
done
