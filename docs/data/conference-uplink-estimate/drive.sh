#!/bin/sh
# Triples of the 4-participant call on one build: A without a bound (--uplink-share=0),
# B the configured bound (--uplink-share=0.85), C the estimate (--uplink-share=0
# --uplink-estimate); the order turns each triple (A B C, B C A, C A B). Each participant's
# CPU taken by ../conference-i420/cpuwrap.py. ../conference-fast-fps/ana.py and spread.py
# read $OUT. RATES (default 4M,4M,4M,1M) and UP_RATES (default: RATES) are the links'
# rates down and up; ARMS (default "A B C") the arms run; DURATION (default 20) the call's
# length and LEAVE (default 18) when p3 leaves, in seconds.
# OUT=/tmp/uplinkest sh drive.sh [FIRST LAST]
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
B=${BUILD:-$ROOT/build}
OUT=${OUT:-/tmp/conference-uplink-estimate}
mkdir -p "$OUT"
cp "$HERE/../conference-i420/cpuwrap.py" "$B/examples/cpuwrap-uplinkest"
cd "$ROOT"
FIRST=${1:-1}
LAST=${2:-5}
for i in $(seq "$FIRST" "$LAST"); do
  # the arms in turn: A B C, B C A, C A B, ... (ARMS="A C": A C, C A, ...)
  set -- ${ARMS:-A B C}
  for k in $(seq 2 "$i"); do first=$1; shift; set -- "$@" "$first"; done
  for arm in "$@"; do
    case $arm in
      A) flags="--uplink-share=0" ;;
      B) flags="--uplink-share=0.85" ;;
      C) flags="--uplink-share=0 --uplink-estimate" ;;
    esac
    d=$OUT/$arm-$i
    mkdir -p "$d"
    echo "$arm $i $(date +%T) $(cut -d' ' -f1-3 /proc/loadavg)" >> "$OUT/load.txt"
    CONF_REAL=$B/examples/conference CONF_CPU_LOG=$d/cpu.txt nice -n 10 python3 \
      scripts/conference.py --headless --participants=4 --rates="${RATES:-4M,4M,4M,1M}" \
      --up-rates="${UP_RATES:-}" $flags --join=4:5 --leave=3:${LEAVE:-18} --duration=${DURATION:-20} \
      --binary="$B/examples/cpuwrap-uplinkest" --out-dir "$d" \
      > "$d.log" 2>&1
  done
done
