#!/bin/sh
# fixc, main, deepq in turn until /tmp/h102/stop4 exists
i=1
while [ ! -e /tmp/h102/stop4 ]; do
  ./run.sh main $((i+30))
  [ -e /tmp/h102/stop4 ] && break
  ./run.sh deepq $i
  [ -e /tmp/h102/stop4 ] && break
  ./run.sh fixc $((i+1))
  i=$((i+1))
done
