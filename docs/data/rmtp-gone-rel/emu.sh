#!/bin/sh
# Issue 20, RELs retried to members given up: the emulator at 1,000
# receivers, parity over one block of 2048, 10 % loss (where members were
# given up in their unicast turn), the sink with gone-rel-retries=0 (as
# before) and the default (3), alternated seed by seed.
# Run from the worktree's root as root: sh docs/data/rmtp-gone-rel/emu.sh
out=docs/data/rmtp-gone-rel
export GST_PLUGIN_PATH_1_0="$PWD/build/gst/rmtp" GST_REGISTRY_FORK=no
export GST_REGISTRY_1_0=/tmp/h132-registry.bin
for seed in ${SEEDS:-1 2}; do
  for arm in r0 r3; do
    f=$out/emu-$arm-s$seed.txt
    [ -s "$f" ] && continue
    sink=""; [ $arm = r0 ] && sink="--sink=gone-rel-retries=0"
    { echo "# uptime before: $(uptime)"
      /usr/bin/time -f "# cpu user=%U sys=%S wall=%e maxrss-kib=%M" \
        nice -n 10 tests/emu/run-rmtp-emu.sh build/tests/emu/rmtp-emu \
        --receivers=1000 --loss=0.1 --size=2097152 --rate=1000000 \
        --parity=2048 --seed=$seed --timeout=300 $sink 2>&1
      echo "# exit=$?"
      echo "# uptime after: $(uptime)"; } > "$f.tmp" 2>&1
    mv "$f.tmp" "$f"
  done
done
