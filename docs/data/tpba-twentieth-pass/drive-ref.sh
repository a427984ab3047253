#!/bin/sh
# issue 17 (a): the TCP reference alone, started 0.1 s after the TCP flows beside it
# (as the bench used to), together with them, or 0.1 s before them; the three arms
# rotate their order every trial, one bed run at a time.
# usage: drive-ref.sh [OUT] [CASES]; runs from the project root (no GStreamer needed)
cd "$(dirname "$0")/../../.."
OUT=${1:-/tmp/tpba-twentieth-ref}
CASES=${2:-"cubic:1 cubic:2"}
mkdir -p "$OUT"
for trial in 0 1 2 3 4 5; do
  case $((trial % 3)) in
    0) ARMS="0.1 0 -0.1";; 1) ARMS="0 -0.1 0.1";; 2) ARMS="-0.1 0.1 0";;
  esac
  for c in $CASES; do
    for a in $ARMS; do
      [ -e $OUT/stop ] && exit 0
      cc=${c%:*}; n=${c#*:}
      echo "$(date +%T) start trial $trial $cc $n ref-start $a $(cat /proc/loadavg)" >> $OUT/load.log
      BENCH_TPBA_BOTTLENECK=1.2 BENCH_TPBA_CC=$cc BENCH_TPBA_NTCP=$n BENCH_TPBA_RTT=0 \
      BENCH_TPBA_VARIANTS=TCP BENCH_TPBA_TRIALS=1 BENCH_TPBA_TIMES=80,65,75 BENCH_TPBA_SS=100 \
      BENCH_TPBA_REF_START=$a BENCH_TPBA_JSON=$OUT/t$trial-$n$cc-$a.json \
        python3 tests/bench/bench-tpba-fairness.py > $OUT/t$trial-$n$cc-$a.log 2>&1
      echo "$(date +%T) end trial $trial $cc $n ref-start $a rc=$? $(cat /proc/loadavg)" >> $OUT/load.log
    done
  done
done
