#!/bin/sh
# issue 17: TPBA (the README's line, L), the same with running-hold-on-loss (H) and
# the TCP reference (T) in the same bench call, BENCH_TPBA_START=together (the
# default), beside N (1) cubic or reno flows; the order rotates every trial (L H T, H T L,
# T L H). One lane per case; runs from the project root under nice -n 10,
# one JSON and log a trial in OUT, the load at each start and end in OUT/load.log
# (touch OUT/stop to end after the current trial).
# usage: drive.sh OUT B CC RTT [TRIALS] [FIRST] [N]   (trials FIRST..TRIALS-1)
cd "$(dirname "$0")/../../.."
OUT=$1; B=$2; CC=$3; RTT=$4; N=${7:-1}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)          # the bench runs in build/
trial=${6:-0}
while [ "$trial" -lt "${5:-3}" ]; do
  L=TPBA-ours-cap6-ratio3-step1-ceil2; H=$L-hold
  case $((trial % 3)) in
    0) V=$L,$H,TCP ;;
    1) V=$H,TCP,$L ;;
    *) V=TCP,$L,$H ;;
  esac
  [ -e "$OUT/stop" ] && exit 0
  tag=t$trial-${B}M-$N$CC-rtt$RTT
  echo "$(date +%T) start $tag $(cat /proc/loadavg)" >> "$OUT/load.log"
  BENCH_TPBA_START=together BENCH_TPBA_BOTTLENECK=$B BENCH_TPBA_CC=$CC BENCH_TPBA_NTCP=$N \
  BENCH_TPBA_RTT=$RTT BENCH_TPBA_VARIANTS=$V BENCH_TPBA_TRIALS=1 BENCH_TPBA_TIMES=80,65,75 \
  BENCH_TPBA_SS=100 BENCH_TPBA_JSON="$OUT/$tag.json" \
    nice -n 10 meson test -C build --no-rebuild --benchmark tpba-fairness --verbose --logbase "h128-$tag" \
    > "$OUT/$tag.log" 2>&1
  echo "$(date +%T) end $tag rc=$? $(cat /proc/loadavg)" >> "$OUT/load.log"
  trial=$((trial + 1))
done
