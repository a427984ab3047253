#!/bin/sh
# Issue 20: rmtp-emu at 1,000 receivers, 2 MiB at 1 Mbit/s, 1 % and 10 %
# loss, retransmission (--parity=0) and parity over blocks of 128 and 2048,
# the modes alternated run by run; one file a run, uptime before and after.
# Run from the worktree's root as root: sh docs/data/rmtp-emu-1000/run.sh
out=docs/data/rmtp-emu-1000
export GST_PLUGIN_PATH_1_0="$PWD/build/gst/rmtp" GST_REGISTRY_FORK=no
export GST_REGISTRY_1_0=/tmp/h123-registry.bin
for seed in ${SEEDS:-1 2 3}; do
  for loss in 0.01 0.1; do
    for parity in 0 128 2048; do
      f=$out/p$parity-l$loss-s$seed.txt
      [ -s "$f" ] && continue
      { echo "# uptime before: $(uptime)"
        /usr/bin/time -f "# cpu user=%U sys=%S wall=%e maxrss-kib=%M" \
          nice -n 10 tests/emu/run-rmtp-emu.sh build/tests/emu/rmtp-emu \
          --receivers=1000 --loss=$loss --size=2097152 --rate=1000000 \
          --parity=$parity --seed=$seed --timeout=300 2>&1
        echo "# exit=$?"
        echo "# uptime after: $(uptime)"; } > "$f.tmp" 2>&1
      mv "$f.tmp" "$f"
    done
  done
done
