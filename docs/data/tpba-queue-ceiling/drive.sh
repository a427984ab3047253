#!/bin/sh
# issue 17, the queue-watching climb limit: the recommended line (ceiling 2 r_s, A)
# against the same line with running-queue-margin=20 ms (Q) and with the ceiling at the
# probe's best cycle (P, running-ceiling-peak), beside one TCP flow of CC at 1.2 Mbit/s
# (tbf, the drop-tail bed), TCP flows started together with TPBA's connection; the arm
# order rotates by one every trial (A Q P, Q P A, P A Q, ...), trial 0 adds the TCP
# reference. DRIVE_ARMS="A Q Q10" (letters: A, Q, Q10 = margin 10 ms, P) sets the arms.
# One bed run at a time per lane, under nice -n 10.
# usage: drive.sh OUT CC [END (4)] [FIRST (0)]: trials FIRST to END - 1; from anywhere;
# one JSON and log a run in OUT (touch OUT/stop to end after the current run)
cd "$(dirname "$0")/../../.."
OUT=$1; CC=$2; END=${3:-4}
mkdir -p "$OUT"
variant () {
  case $1 in
    A) echo TPBA-ours-cap6-ratio3-step1-ceil2 ;;
    Q) echo TPBA-ours-cap6-ratio3-step1-ceil2-queue20 ;;
    Q10) echo TPBA-ours-cap6-ratio3-step1-ceil2-queue10 ;;
    P) echo TPBA-ours-cap6-ratio3-step1-peakceil1 ;;
  esac
}
trial=${4:-0}
while [ "$trial" -lt "$END" ]; do
  set -- ${DRIVE_ARMS:-A Q P}
  k=0
  while [ "$k" -lt $((trial % $#)) ]; do
    first=$1; shift; set -- "$@" "$first"; k=$((k + 1))
  done
  ARMS=""
  for a in "$@"; do ARMS="$ARMS $(variant "$a")"; done
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
