#!/bin/sh
# issue 17, twenty-second pass, one case at 10 Mbit/s: the same two arms as drive.sh beside
# 1 reno, the TCP flows started together with TPBA's connection, then the TCP reference.
# usage: drive-10m.sh [OUT] [TRIALS]; as drive.sh
cd "$(dirname "$0")/../../.."
OUT=${1:-/tmp/tpba-twenty-second-bed}
mkdir -p "$OUT"
A=TPBA-ours-cap6-ratio3-step1-ceil2
B=TPBA-ours-cap6-ratio3-step1-peakceil1
trial=0
while [ "$trial" -lt "${2:-1}" ]; do
  if [ $((trial % 2)) -eq 0 ]; then ARMS="$A $B TCP"; else ARMS="$B $A"; fi
  for v in $ARMS; do
    [ -e "$OUT/stop" ] && exit 0
    echo "$(date +%T) start 10M trial $trial reno 1 $v $(cat /proc/loadavg)" >> "$OUT/load.log"
    BENCH_TPBA_BOTTLENECK=10 BENCH_TPBA_CC=reno BENCH_TPBA_NTCP=1 \
    BENCH_TPBA_RTT=0 BENCH_TPBA_VARIANTS=$v BENCH_TPBA_TRIALS=1 BENCH_TPBA_TIMES=80,65,75 \
    BENCH_TPBA_JSON="$OUT/t$trial-10M-1reno-$v.json" \
      nice -n 10 meson test -C build --benchmark tpba-fairness --verbose \
      > "$OUT/t$trial-10M-1reno-$v.log" 2>&1
    echo "$(date +%T) end 10M trial $trial reno 1 $v rc=$? $(cat /proc/loadavg)" >> "$OUT/load.log"
  done
  trial=$((trial + 1))
done
