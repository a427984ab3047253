#!/bin/bash
# A B B A pairs of the 4-participant call, this tree's conference binary ("new") against
# another build's ($OLD, "old"), each participant's CPU taken by cpuwrap.py; sum.py reads them.
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
NEW=${NEW:-$ROOT/build/examples/conference}
OLD=${OLD:?OLD=path of the other build\'s examples/conference}
cp "$HERE/cpuwrap.py" "$ROOT/build/examples/cpuwrap"   # the plugins come from ROOT/build
cd "$ROOT"
for k in $(seq 1 "${PAIRS:-4}"); do
  for arm in new old old new; do
    d=$HERE/runs/$arm-$k-$RANDOM; mkdir -p "$d"
    real=$NEW; [ $arm = old ] && real=$OLD
    echo "$arm $k $(cut -d' ' -f1 /proc/loadavg) $d" >> "$HERE/runs.txt"
    CONF_REAL=$real CONF_CPU_LOG=$d/cpu.txt nice -n 10 python3 scripts/conference.py \
      --headless --participants=4 --rates=4M,4M,4M,1M --join=4:5 --leave=3:18 --duration=20 \
      --max-queue-age=400 --binary="$ROOT/build/examples/cpuwrap" --out-dir "$d" > "$d/out.txt" 2>&1
  done
done
