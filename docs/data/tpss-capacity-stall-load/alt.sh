#!/bin/sh
# usage: alt.sh PAIRS PREFIX : old check (A) and new check (B), alternated A B, B A
D=$(cd "$(dirname "$0")" && pwd)
cd "$D/../../.."
E=$(grep "^>>>" $D/stall-1.txt | head -1 | sed 's/^>>> //' | tr ' ' '\n' | grep "=" | grep -v MALLOC | tr '\n' ' ')
one() {  # ARM N
  f=$D/$2-$1-$3.txt
  { date -u; uptime; } > $f
  if [ $1 = old ]; then env $E nice -n 10 python3 $D/old_stall.py >> $f 2>&1
  else env $E nice -n 10 python3 ./tests/net/test_tpss_capacity_stall.py >> $f 2>&1; fi
  { echo "END rc=$?"; date -u; uptime; } >> $f
}
for i in $(seq 1 $1); do
  if [ $((i % 2)) = 1 ]; then one old $2 $i; one new $2 $i; else one new $2 $i; one old $2 $i; fi
done
