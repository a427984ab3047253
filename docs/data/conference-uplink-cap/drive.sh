#!/bin/sh
# Pairs of the 4-participant call on one build, A without and B with each sender's
# uplink-rate (scripts/conference.py --uplink-share=0 / $SHARE, default 0.85 of its upload
# rate), alternating A B / B A; each
# participant's CPU taken by ../conference-i420/cpuwrap.py. ../conference-fast-fps/ana.py and
# spread.py read $OUT. RATES (default 4M,4M,4M,1M) and UP_RATES (default: RATES) are the
# links' rates down and up.
# OUT=/tmp/uplinkcap sh drive.sh [FIRST LAST]
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
B=${BUILD:-$ROOT/build}
OUT=${OUT:-/tmp/conference-uplink-cap}
mkdir -p "$OUT"
cp "$HERE/../conference-i420/cpuwrap.py" "$B/examples/cpuwrap-uplinkcap"
cd "$ROOT"
for i in $(seq "${1:-1}" "${2:-8}"); do
  if [ $((i % 2)) = 1 ]; then order="A B"; else order="B A"; fi
  for arm in $order; do
    if [ $arm = A ]; then share=0; else share=${SHARE:-0.85}; fi
    d=$OUT/$arm-$i
    mkdir -p "$d"
    echo "$arm $i $(date +%T) $(cut -d' ' -f1-3 /proc/loadavg)" >> "$OUT/load.txt"
    CONF_REAL=$B/examples/conference CONF_CPU_LOG=$d/cpu.txt nice -n 10 python3 \
      scripts/conference.py --headless --participants=4 --rates="${RATES:-4M,4M,4M,1M}" \
      --up-rates="${UP_RATES:-}" --uplink-share=$share --join=4:5 --leave=3:18 --duration=20 \
      --binary="$B/examples/cpuwrap-uplinkcap" --out-dir "$d" \
      > "$d.log" 2>&1
  done
done
