#!/bin/sh
# Issue 20, members given up in their unicast turn (gone-complete): the
# emulator's runs at 1,000 receivers with parity over blocks of 2048 (the
# ones whose members were released yet counted failed), after the fix.
# Run from the worktree's root as root: sh docs/data/rmtp-gone-complete/run.sh
# PREFIX=before- names the files of a build without the fix (the core's
# two MEMBER_GONE tests taken out by hand: the comparison run).
out=docs/data/rmtp-gone-complete
export GST_PLUGIN_PATH_1_0="$PWD/build/gst/rmtp" GST_REGISTRY_FORK=no
export GST_REGISTRY_1_0=/tmp/h126-registry.bin
for run in ${RUNS:-0.01:1 0.01:3 0.1:1}; do
  loss=${run%:*}; seed=${run#*:}
  f=$out/${PREFIX}p2048-l$loss-s$seed.txt
  [ -s "$f" ] && continue
  { echo "# uptime before: $(uptime)"
    /usr/bin/time -f "# cpu user=%U sys=%S wall=%e maxrss-kib=%M" \
      nice -n 10 tests/emu/run-rmtp-emu.sh build/tests/emu/rmtp-emu \
      --receivers=1000 --loss=$loss --size=2097152 --rate=1000000 \
      --parity=2048 --seed=$seed --timeout=300 2>&1
    echo "# exit=$?"
    echo "# uptime after: $(uptime)"; } > "$f.tmp" 2>&1
  mv "$f.tmp" "$f"
done
