#!/bin/sh
# trials of 3 cases x 3 variants, one bed run at a time; order of the two TPBA arms swaps per trial
# usage: drive.sh [OUT]; runs from the project root, leaves one JSON and log a run in OUT
cd "$(dirname "$0")/../../.."
OUT=${1:-/tmp/tpba-twentieth-bed}
mkdir -p "$OUT"
for trial in 0 1 2 3 4 5 6 7 8 9; do
  if [ $((trial % 2)) -eq 0 ]; then V=TPBA-ours-cap6-ratio3-step1-ceil2-eqsaw,TPBA-ours-cap6-ratio3-step1-ceil2,TCP
  else V=TPBA-ours-cap6-ratio3-step1-ceil2,TPBA-ours-cap6-ratio3-step1-ceil2-eqsaw,TCP; fi
  for c in cubic:1 cubic:2 reno:1; do
    [ -e $OUT/stop ] && exit 0
    cc=${c%:*}; n=${c#*:}
    echo "$(date +%T) start trial $trial $cc $n $(cat /proc/loadavg)" >> $OUT/load.log
    BENCH_TPBA_BOTTLENECK=1.2 BENCH_TPBA_CC=$cc BENCH_TPBA_NTCP=$n BENCH_TPBA_RTT=0 \
    BENCH_TPBA_VARIANTS=$V BENCH_TPBA_TRIALS=1 BENCH_TPBA_TIMES=80,65,75 BENCH_TPBA_SS=100 \
    BENCH_TPBA_JSON=$OUT/t$trial-$n$cc.json \
      meson test -C build --benchmark tpba-fairness --verbose > $OUT/t$trial-$n$cc.log 2>&1
    echo "$(date +%T) end trial $trial $cc $n rc=$? $(cat /proc/loadavg)" >> $OUT/load.log
  done
done
