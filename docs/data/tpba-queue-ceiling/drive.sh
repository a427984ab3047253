#!/bin/sh
# issue 17, the queue-watching climb limit: the recommended line (ceiling 2 r_s, A)
# against the same line with running-queue-margin=20 ms (Q) and with the ceiling at the
# probe's best cycle (P, running-ceiling-peak), beside one TCP flow of CC at 1.2 Mbit/s
# (tbf, the drop-tail bed), TCP flows started together with TPBA's connection; the arm
# order rotates every trial (A Q P, Q P A, P A Q, ...), trial 0 adds the TCP reference.
# One bed run at a time per lane, under nice -n 10.
# usage: drive.sh OUT CC [TRIALS (4)] [FIRST (0)]; from anywhere; one JSON and log a run
# in OUT (touch OUT/stop to end after the current run)
cd "$(dirname "$0")/../../.."
OUT=$1; CC=$2
mkdir -p "$OUT"
A=TPBA-ours-cap6-ratio3-step1-ceil2
Q=TPBA-ours-cap6-ratio3-step1-ceil2-queue20
P=TPBA-ours-cap6-ratio3-step1-peakceil1
trial=${4:-0}
while [ "$trial" -lt "${3:-4}" ]; do
  case $((trial % 3)) in
    0) ARMS="$A $Q $P" ;;
    1) ARMS="$Q $P $A" ;;
    2) ARMS="$P $A $Q" ;;
  esac
  [ "$trial" -eq 0 ] && ARMS="$ARMS TCP"
  for v in $ARMS; do
    [ -e "$OUT/stop" ] && exit 0
    echo "$(date +%T) start trial $trial $CC 1 $v $(cat /proc/loadavg)" >> "$OUT/load.log"
    BENCH_TPBA_BOTTLENECK=1.2 BENCH_TPBA_CC=$CC BENCH_TPBA_NTCP=1 \
    BENCH_TPBA_RTT=0 BENCH_TPBA_VARIANTS=$v BENCH_TPBA_TRIALS=1 BENCH_TPBA_TIMES=80,65,75 \
    BENCH_TPBA_JSON="$OUT/t$trial-1$CC-$v.json" \
      nice -n 10 meson test -C build --benchmark tpba-fairness --verbose \
      > "$OUT/t$trial-1$CC-$v.log" 2>&1
    echo "$(date +%T) end trial $trial $CC 1 $v rc=$? $(cat /proc/loadavg)" >> "$OUT/load.log"
  done
  trial=$((trial + 1))
done
