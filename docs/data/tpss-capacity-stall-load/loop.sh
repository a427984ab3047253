#!/bin/sh
# usage: loop.sh TEST N PREFIX
D=$(cd "$(dirname "$0")" && pwd)
cd "$D/../../.."
for i in $(seq 1 $2); do
  f=$D/$3-$i.txt
  { date -u; uptime; } > $f
  nice -n 10 meson test -C build $1 -v --no-rebuild >> $f 2>&1
  { echo "END"; date -u; uptime; } >> $f
done
