#!/bin/sh
# Pairs of the 4-participant call, A (another build dir, $OLD) and B (this tree's build),
# alternating A B / B A; each arm runs with its own build's plugins, each participant's CPU
# taken by ../conference-i420/cpuwrap.py. ana.py and spread.py read $OUT. RATES (default
# 4M,4M,4M,1M) and UP_RATES (default: RATES) are the links' rates down and up.
# OLD=/path/to/other/build OUT=/tmp/fastfps sh drive.sh [FIRST LAST]
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
A=${OLD:?OLD=the other build directory}
B=${NEW:-$ROOT/build}
OUT=${OUT:-/tmp/conference-fast-fps}
mkdir -p "$OUT"
for b in "$A" "$B"; do cp "$HERE/../conference-i420/cpuwrap.py" "$b/examples/cpuwrap-fastfps"; done
cd "$ROOT"
for i in $(seq "${1:-1}" "${2:-8}"); do
  if [ $((i % 2)) = 1 ]; then order="A B"; else order="B A"; fi
  for arm in $order; do
    if [ $arm = A ]; then build=$A; else build=$B; fi
    d=$OUT/$arm-$i
    mkdir -p "$d"
    echo "$arm $i $(date +%T) $(cut -d' ' -f1-3 /proc/loadavg)" >> "$OUT/load.txt"
    CONF_REAL=$build/examples/conference CONF_CPU_LOG=$d/cpu.txt nice -n 10 python3 \
      scripts/conference.py --headless --participants=4 --rates="${RATES:-4M,4M,4M,1M}" \
      --up-rates="${UP_RATES:-}" --join=4:5 --leave=3:18 --duration=20 \
      --binary="$build/examples/cpuwrap-fastfps" --out-dir "$d" \
      > "$d.log" 2>&1
  done
done
