#!/bin/sh
# issue 17, twenty-second pass: the recommended line (ceiling 2 r_s) against the same line
# with the climb stopped at the probe's best cycle (running-ceiling=1
# running-ceiling-peak=true), beside 1 reno and 1 cubic at 1.2 Mbit/s, the TCP flows
# started together with TPBA's connection (the default); the arms swap order every trial,
# and trials 0 and 1 add the TCP reference (not with DRIVE_B=VARIANT, another second arm);
# one bed run at a time, under nice -n 10.
# usage: drive.sh [OUT] [END] [FIRST]: trials FIRST (0) to END - 1 (4); runs from the project root, leaves one JSON and log a run
# in OUT (touch OUT/stop to end after the current run)
cd "$(dirname "$0")/../../.."
OUT=${1:-/tmp/tpba-twenty-second-bed}
mkdir -p "$OUT"
A=TPBA-ours-cap6-ratio3-step1-ceil2
B=${DRIVE_B:-TPBA-ours-cap6-ratio3-step1-peakceil1}
trial=${3:-0}
while [ "$trial" -lt "${2:-4}" ]; do
  if [ $((trial % 2)) -eq 0 ]; then ARMS="$A $B"; else ARMS="$B $A"; fi
  [ "$trial" -lt 2 ] && [ -z "$DRIVE_B" ] && ARMS="$ARMS TCP"
  for c in reno:1 cubic:1; do
    cc=${c%:*}; n=${c#*:}
    for v in $ARMS; do
      [ -e "$OUT/stop" ] && exit 0
      echo "$(date +%T) start trial $trial $cc $n $v $(cat /proc/loadavg)" >> "$OUT/load.log"
      BENCH_TPBA_BOTTLENECK=1.2 BENCH_TPBA_CC=$cc BENCH_TPBA_NTCP=$n \
      BENCH_TPBA_RTT=0 BENCH_TPBA_VARIANTS=$v BENCH_TPBA_TRIALS=1 BENCH_TPBA_TIMES=80,65,75 \
      BENCH_TPBA_JSON="$OUT/t$trial-$n$cc-$v.json" \
        nice -n 10 meson test -C build --benchmark tpba-fairness --verbose \
        > "$OUT/t$trial-$n$cc-$v.log" 2>&1
      echo "$(date +%T) end trial $trial $cc $n $v rc=$? $(cat /proc/loadavg)" >> "$OUT/load.log"
    done
  done
  trial=$((trial + 1))
done
