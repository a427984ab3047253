#!/usr/bin/env bash
# The main job: installs what is needed, builds, and runs the demo on this
# machine. Until the conferencing demo exists this is the TPSS FEC demo: live
# H.264 across a lossy link, printing what was lost and recovered.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
[ -d build ] || meson setup build
ninja -C build
meson devenv -C build ./examples/tpss-fec-demo "$@"
