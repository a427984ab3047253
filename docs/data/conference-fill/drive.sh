#!/bin/sh
# Rounds of the issue's two calls on one build, each under nice -n 10 with
# scripts/conference.py's defaults (each sender's uplink-rate 0.85 x its upload rate):
# C4, the 4-participant call of tests/net/test_conference.py (4M,4M,4M,1M, p4 joining at
# 5 s, p3 leaving at 18 s, 30 s), and C3, the README's call (3 participants, 4M,4M,1M, 30 s).
# Arm A: the defaults; arm B: $B_ARGS added (default --layer-max-spread=1000: no spread bound
# in effect; B_ARGS=--uplink-share=0.92 for the share). ARMS="A" runs A alone; otherwise
# A B and B A alternate by round.
# tbfsample.py records the bytes each participant's download tbf sent; cpuwrap.py each
# participant's CPU. fill.py reads $OUT.
# OUT=/tmp/conffill sh drive.sh [FIRST LAST]
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
B=${BUILD:-$ROOT/build}
OUT=${OUT:-/tmp/conference-fill}
mkdir -p "$OUT"
cp "$HERE/../conference-i420/cpuwrap.py" "$B/examples/cpuwrap-fill"
cd "$ROOT"
for i in $(seq "${1:-1}" "${2:-6}"); do
  if [ "${ARMS:-A B}" = A ]; then order=A
  elif [ $((i % 2)) = 1 ]; then order="A B"; else order="B A"; fi
  for arm in $order; do
    if [ $arm = A ]; then extra=""; else extra=${B_ARGS:---layer-max-spread=1000}; fi
    for call in C4 C3; do
      d=$OUT/$call-$arm-$i
      mkdir -p "$d"
      echo "$call $arm $i $(date +%T) $(cut -d' ' -f1-3 /proc/loadavg)" >> "$OUT/load.txt"
      if [ $call = C4 ]; then
        args="--participants=4 --rates=4M,4M,4M,1M --join=4:5 --leave=3:18 --duration=30"
      else
        args=""
      fi
      # shellcheck disable=SC2086
      CONF_REAL=$B/examples/conference CONF_CPU_LOG=$d/cpu.txt nice -n 10 python3 \
        scripts/conference.py --headless $args $extra \
        --binary="$B/examples/cpuwrap-fill" --out-dir "$d" > "$d.log" 2>&1 &
      pid=$!
      python3 "$HERE/tbfsample.py" "$d/tbf.json" $pid &
      wait $pid
      wait
    done
  done
done
