#!/bin/sh
# issue 17, Table 3 with the change inside a running period: the README's line, and the
# same with reprobe-on-reductions (2 cuts of >= 20 %, and 1), beside 1 cubic flow at
# 1.2 Mbit/s, short RTT; a second cubic flow joins, and later leaves, 1 s into one of
# TPBA's running periods, the first that starts at or after 20 s (40 s). The bench runs
# the three arms in turn in each trial. usage: drive.sh OUT [TRIALS]; runs from the
# project root; writes OUT/table3-running.json, .log and OUT/load.log (uptime every 30 s).
# BENCH_TPBA_TIMES=140,20,40 tests/bench/bench-tpba-fairness.py --report OUT/*.json
# prints the tables; cuts.py the running periods' cuts.
cd "$(dirname "$0")/../../.."
ROOT=$(pwd)
case $1 in /*) OUT=$1 ;; *) OUT=$ROOT/$1 ;; esac  # meson test runs in build/
mkdir -p "$OUT"
(while :; do uptime >> "$OUT/load.log"; sleep 30; done) &
LOADER=$!
V=TPBA-ours-cap6-ratio3-step1-ceil2
BENCH_TPBA_BOTTLENECK=1.2 BENCH_TPBA_CC=cubic BENCH_TPBA_NTCP=1 BENCH_TPBA_RTT=0 \
BENCH_TPBA_VARIANTS=$V,$V-reprobe,$V-reprobe1 BENCH_TPBA_TRIALS=${2:-4} \
BENCH_TPBA_TIMES=140,20,40 BENCH_TPBA_CHANGE_IN=running \
BENCH_TPBA_JSON="$OUT/table3-running.json" \
  nice -n 10 meson test -C build --benchmark tpba-fairness --print-errorlogs \
  --logbase t3-running-h141 > "$OUT/table3-running.log" 2>&1
kill $LOADER
