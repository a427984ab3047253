#!/bin/sh
while kill -0 $(cat /tmp/h103-ab/loop.pid) 2>/dev/null; do sleep 5; done
for p in 5 6; do
  if [ $((p % 2)) = 1 ]; then ORD="0 20"; else ORD="20 0"; fi
  for t in group admission tbf stall; do
    for a in $ORD; do
      if [ -e /tmp/h103-ab/STOP ]; then exit 0; fi
      /tmp/h103-ab/run.sh $a $t $p
    done
  done
done
