#!/bin/sh
# issue 17: TPBA's own start. The recommended line (ceiling 2) beside 1 cubic, 2 cubic and
# 1 reno at 1.2 Mbit/s, with the TCP flows started together with TPBA's connection
# (BENCH_TPBA_START=together, the new default) and in the old order (before); the two
# arms swap order every trial; one bed run at a time, under nice -n 10.
# usage: drive.sh [OUT] [TRIALS]; runs from the project root, leaves one JSON and log a run
# in OUT (touch OUT/stop to end after the current run)
cd "$(dirname "$0")/../../.."
OUT=${1:-/tmp/tpba-twenty-first-bed}
mkdir -p "$OUT"
V=TPBA-ours-cap6-ratio3-step1-ceil2
trial=0
while [ "$trial" -lt "${2:-6}" ]; do
  if [ $((trial % 2)) -eq 0 ]; then ARMS="together before"; else ARMS="before together"; fi
  for c in cubic:1 cubic:2 reno:1; do
    cc=${c%:*}; n=${c#*:}
    for arm in $ARMS; do
      [ -e "$OUT/stop" ] && exit 0
      echo "$(date +%T) start trial $trial $cc $n $arm $(cat /proc/loadavg)" >> "$OUT/load.log"
      BENCH_TPBA_START=$arm BENCH_TPBA_BOTTLENECK=1.2 BENCH_TPBA_CC=$cc BENCH_TPBA_NTCP=$n \
      BENCH_TPBA_RTT=0 BENCH_TPBA_VARIANTS=$V BENCH_TPBA_TRIALS=1 BENCH_TPBA_TIMES=80,65,75 \
      BENCH_TPBA_SS=100 BENCH_TPBA_JSON="$OUT/t$trial-$n$cc-$arm.json" \
        nice -n 10 meson test -C build --benchmark tpba-fairness --verbose \
        > "$OUT/t$trial-$n$cc-$arm.log" 2>&1
      echo "$(date +%T) end trial $trial $cc $n $arm rc=$? $(cat /proc/loadavg)" >> "$OUT/load.log"
    done
  done
  trial=$((trial + 1))
done
