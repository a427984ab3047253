#!/bin/sh
# usage: runfault.sh N PREFIX PROPS  (the test with the TPSS flow's props)
D=$(cd "$(dirname "$0")" && pwd)
cd "$D/../../.."
E=$(grep "^>>>" $D/stall-1.txt | head -1 | sed 's/^>>> //' | tr ' ' '\n' | grep "=" | grep -v MALLOC | tr '\n' ' ')
for i in $(seq 1 $1); do
  f=$D/$2-$i.txt
  { date -u; uptime; } > $f
  env $E H115_TPSS_PROPS="$3" nice -n 10 python3 $D/fault.py >> $f 2>&1
  { echo "END"; date -u; uptime; } >> $f
done
