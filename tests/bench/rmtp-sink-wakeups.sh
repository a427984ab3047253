#!/bin/sh
# The sink's wake-ups and CPU against send-interval: rmtpsink streams FILE
# (4 MiB windows, 40 Mbit/s, 1400-byte packets, as net/rmtp-stream) to 3
# rmtpsrc on the loopback of a network namespace of its own, once for each
# send-interval given (ns), alternating, RUNS times. Prints, a run, the
# sink's user and system CPU seconds, its wall time and its loop-turns.
# Needs root (unshare --net) and the build's plugins:
#   GST_REGISTRY=/tmp/reg.bin GST_PLUGIN_PATH=build/gst/rmtp RUNS=3 tests/bench/rmtp-sink-wakeups.sh FILE 0 1000000
set -e
FILE=$1
shift
URI="rmtp://239.255.139.39:16939"
exec unshare --net sh -c '
ip link set lo up multicast on
ip route add 224.0.0.0/4 dev lo
file=$1; uri=$2; shift 2
for run in $(seq 1 "${RUNS:-3}"); do
  for interval in "$@"; do
    pids=""
    for m in 1 2 3; do
      gst-launch-1.0 -q rmtpsrc uri="$uri?member=$m&multicast-iface=lo&buffer-size=4194304" ! fakesink &
      pids="$pids $!"
    done
    sleep 1
    out=$( { /usr/bin/time -f "cpu-user=%U cpu-sys=%S wall=%e" gst-launch-1.0 -m filesrc location="$file" ! \
      rmtpsink uri="$uri?receivers=3&multicast-iface=lo&rate=40000000&packet-size=1400&window-size=4194304&send-interval=$interval" ; } 2>&1 )
    turns=$(echo "$out" | grep -o "loop-turns=(guint64)[0-9]*" | tail -1 | cut -d")" -f2)
    echo "send-interval=$interval run=$run $(echo "$out" | grep -o "cpu-user.*") loop-turns=$turns"
    wait $pids || true
  done
done' rmtp-sink-wakeups "$FILE" "$URI" "$@"
