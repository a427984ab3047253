#!/bin/sh
# issue 17 at 10 Mbit/s and +160 ms: the recommended line and the TCP reference beside
# 1 or 2 cubic flows, with BENCH_TPBA_START=together (the default; the reference now
# starts by the same rule) and before (the old order); the arms swap order every trial.
# usage: drive.sh OUT B NTCP RTT [TRIALS] [FIRST] (trials FIRST..TRIALS-1); one lane per case (the three cases ran as
# three lanes at once, each under nice -n 10); runs from the project root, leaves one
# JSON and log a run in OUT (touch OUT/stop to end after the current run)
cd "$(dirname "$0")/../../.."
OUT=$1; B=$2; N=$3; RTT=$4
mkdir -p "$OUT"
V=TPBA-ours-cap6-ratio3-step1-ceil2,TCP
trial=${6:-0}
while [ "$trial" -lt "${5:-3}" ]; do
  if [ $((trial % 2)) -eq 0 ]; then ARMS="together before"; else ARMS="before together"; fi
  for arm in $ARMS; do
    [ -e "$OUT/stop" ] && exit 0
    tag=t$trial-${B}M-${N}cubic-rtt$RTT-$arm
    echo "$(date +%T) start $tag $(cat /proc/loadavg)" >> "$OUT/load.log"
    BENCH_TPBA_START=$arm BENCH_TPBA_BOTTLENECK=$B BENCH_TPBA_CC=cubic BENCH_TPBA_NTCP=$N \
    BENCH_TPBA_RTT=$RTT BENCH_TPBA_VARIANTS=$V BENCH_TPBA_TRIALS=1 BENCH_TPBA_TIMES=80,65,75 \
    BENCH_TPBA_SS=100 BENCH_TPBA_JSON="$OUT/$tag.json" \
      nice -n 10 meson test -C build --benchmark tpba-fairness --verbose --logbase "h124-$tag" \
      > "$OUT/$tag.log" 2>&1
    echo "$(date +%T) end $tag rc=$? $(cat /proc/loadavg)" >> "$OUT/load.log"
  done
  trial=$((trial + 1))
done
