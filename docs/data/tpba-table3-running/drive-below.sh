#!/bin/sh
# issue 17, Table 3 with the change inside a running period: the README's line and the
# same with reprobe-below=0.6 (ours, off by default), beside 1 cubic flow at 1.2 Mbit/s,
# short RTT, as drive.sh; the bench runs the two arms in turn in each trial.
# usage: drive-below.sh OUT [TRIALS]; writes OUT/table3-running-below.json, .log and
# OUT/load-below.log.
cd "$(dirname "$0")/../../.."
ROOT=$(pwd)
case $1 in /*) OUT=$1 ;; *) OUT=$ROOT/$1 ;; esac  # meson test runs in build/
mkdir -p "$OUT"
(while :; do uptime >> "$OUT/load-below.log"; sleep 30; done) &
LOADER=$!
V=TPBA-ours-cap6-ratio3-step1-ceil2
BENCH_TPBA_BOTTLENECK=1.2 BENCH_TPBA_CC=cubic BENCH_TPBA_NTCP=1 BENCH_TPBA_RTT=0 \
BENCH_TPBA_VARIANTS=$V,$V-below06 BENCH_TPBA_TRIALS=${2:-4} \
BENCH_TPBA_TIMES=140,20,40 BENCH_TPBA_CHANGE_IN=running \
BENCH_TPBA_JSON="$OUT/table3-running-below.json" \
  nice -n 10 meson test -C build --benchmark tpba-fairness --print-errorlogs \
  --logbase t3-running-below-h141 > "$OUT/table3-running-below.log" 2>&1
kill $LOADER
