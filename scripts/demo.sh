#!/usr/bin/env bash
# The main job: installs what is needed, builds, and runs the demo on this
# machine. Until the conferencing demo exists this is the TPSS FEC demo: live
# H.264 across a lossy link, printing each second the media packets lost on
# the link and still missing after FEC, and the frames decoded intact.
# Options (see --help): --seconds=N, --loss=PERCENT (share of media packets
# the link loses on average), --burst=LEN (packets per loss burst), --k=K and
# --l=L (tpssfecenc packet-distance and subsegment-length).
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
[ -d build ] || meson setup build
ninja -C build
meson devenv -C build ./examples/tpss-fec-demo "$@"
