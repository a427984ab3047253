#!/bin/sh
# issue 17, Table 3 with the change inside a running period: the paper's TPBA (defaults)
# and the same with reprobe-on-reductions (section 4's suggestion; 2 cuts of >= 20 %),
# beside 1 cubic flow at 1.2 Mbit/s, short RTT, as drive.sh. usage: drive-paper.sh OUT
# [TRIALS]; writes OUT/table3-running-paper.json, .log and OUT/load-paper.log.
cd "$(dirname "$0")/../../.."
ROOT=$(pwd)
case $1 in /*) OUT=$1 ;; *) OUT=$ROOT/$1 ;; esac  # meson test runs in build/
mkdir -p "$OUT"
(while :; do uptime >> "$OUT/load-paper.log"; sleep 30; done) &
LOADER=$!
BENCH_TPBA_BOTTLENECK=1.2 BENCH_TPBA_CC=cubic BENCH_TPBA_NTCP=1 BENCH_TPBA_RTT=0 \
BENCH_TPBA_VARIANTS=TPBA,TPBA-reprobe BENCH_TPBA_TRIALS=${2:-3} \
BENCH_TPBA_TIMES=140,20,40 BENCH_TPBA_CHANGE_IN=running \
BENCH_TPBA_JSON="$OUT/table3-running-paper.json" \
  nice -n 10 meson test -C build --benchmark tpba-fairness --print-errorlogs \
  --logbase t3-running-paper-h141 > "$OUT/table3-running-paper.log" 2>&1
kill $LOADER
