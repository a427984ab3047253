#!/bin/sh
# issue 17, running-queue-cut: the README's line (L), the same with
# running-queue-cut=10 ms (Q) and the TCP reference (T) in the same bench call; the
# order rotates every trial (L Q T, Q T L, T L Q). 80 s runs, the TCP flows started
# together with TPBA's connection (the default). Each CELL is MBITS:QDISC:N:CC.
# Trial-major: every cell gets trial 0, then trial 1, ... so a stopped lane leaves
# each cell with the same count. Runs from the project root under nice -n 10, one
# JSON and log a call in OUT, the load at each start and end in OUT/load.log
# (touch OUT/stop to end after the current call).
# usage: [FIRST=F] drive.sh OUT TRIALS CELL...   (trials F (0) to TRIALS - 1)
cd "$(dirname "$0")/../../.."
OUT=$1; TRIALS=$2; shift 2
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)          # the bench runs in build/
L=TPBA-ours-cap6-ratio3-step1-ceil2; Q=$L-qcut10
trial=${FIRST:-0}
while [ "$trial" -lt "$TRIALS" ]; do
  case $((trial % 3)) in
    0) V=$L,$Q,TCP ;;
    1) V=$Q,TCP,$L ;;
    *) V=TCP,$L,$Q ;;
  esac
  for c in "$@"; do
    B=${c%%:*}; r=${c#*:}; QD=${r%%:*}; r=${r#*:}; N=${r%%:*}; CC=${r#*:}
    [ -e "$OUT/stop" ] && exit 0
    tag=t$trial-${B}M-$QD-$N$CC
    echo "$(date +%T) start $tag $(cat /proc/loadavg)" >> "$OUT/load.log"
    BENCH_TPBA_BOTTLENECK=$B BENCH_TPBA_QDISC=$QD BENCH_TPBA_CC=$CC BENCH_TPBA_NTCP=$N \
    BENCH_TPBA_RTT=0 BENCH_TPBA_VARIANTS=$V BENCH_TPBA_TRIALS=1 BENCH_TPBA_TIMES=80,65,75 \
    BENCH_TPBA_JSON="$OUT/$tag.json" \
      nice -n 10 meson test -C build --no-rebuild --benchmark tpba-fairness --verbose \
        --logbase "h142-$tag" > "$OUT/$tag.log" 2>&1
    echo "$(date +%T) end $tag rc=$? $(cat /proc/loadavg)" >> "$OUT/load.log"
  done
  trial=$((trial + 1))
done
