#!/bin/sh
# Runs rmtp-emu (first argument) in a network namespace of its own whose
# loopback carries multicast: the group is routed to lo, nothing leaves it.
# Exits 77 (skipped) without root.
set -e
if [ "$(id -u)" != 0 ] || ! command -v unshare >/dev/null || ! command -v ip >/dev/null; then
  echo "rmtp-emu needs root, unshare and ip for its namespace: skipped"
  exit 77
fi
exec unshare --net sh -c '
  ip link set lo up multicast on &&
  ip route add 224.0.0.0/4 dev lo &&
  exec "$@"' rmtp-emu-ns "$@"
