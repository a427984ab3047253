#!/bin/sh
# pairs 1..4: ABBA per test; conference in each pair too
for p in 1 2 3 4 5 6 7 8; do
  if [ $((p % 2)) = 1 ]; then ORD="0 20"; else ORD="20 0"; fi
  if [ $p -le 4 ]; then TESTS="group admission tbf stall conf"; else TESTS="conf"; fi
  for t in $TESTS; do
    for a in $ORD; do
      if [ -e /tmp/h103-ab/STOP ]; then exit 0; fi
      /tmp/h103-ab/run.sh $a $t $p
    done
  done
done
