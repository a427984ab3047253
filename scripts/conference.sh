#!/usr/bin/env bash
# The main job: installs what is needed, builds, and runs a conference on this
# machine: every participant in its own network namespace behind a link with
# its own rate (one of them slow), headless, printing each participant's
# statistics every second. It leaves one snapshot PNG, recording and
# statistics file per participant and a rate-over-time plot (rates.svg) in
# conference-out/. Options (see --help): --participants=N, --duration=S,
# --rates=R1,R2,... (bit/s, k/M suffixes), --loss=PERCENT, --join=ID:S,
# --leave=ID:S, --out-dir=DIR.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
[ -d build ] || meson setup build
ninja -C build
exec python3 scripts/conference.py "$@"
