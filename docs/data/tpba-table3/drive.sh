#!/bin/sh
# issue 17, Table 3: the paper's TPBA and the recommended line beside 1 cubic flow at
# 1.2 Mbit/s, short RTT; a second cubic flow joins, and later leaves, 1 s into one of
# TPBA's own running (or probing) periods, the first that starts at or after 20 s (40 s).
# usage: drive.sh OUT running|probing [TRIALS]; the two cases ran as two lanes at once,
# each under nice -n 10; runs from the project root; writes OUT/table3-CASE.json and .log
# (BENCH_TPBA_TIMES=140,20,40 tests/bench/bench-tpba-fairness.py --report OUT/*.json prints
# the tables)
cd "$(dirname "$0")/../../.."
OUT=$1; CASE=$2
mkdir -p "$OUT"
BENCH_TPBA_BOTTLENECK=1.2 BENCH_TPBA_CC=cubic BENCH_TPBA_NTCP=1 BENCH_TPBA_RTT=0 \
BENCH_TPBA_VARIANTS=TPBA,TPBA-ours-cap6-ratio3-step1-ceil2 BENCH_TPBA_TRIALS=${3:-4} \
BENCH_TPBA_TIMES=140,20,40 BENCH_TPBA_CHANGE_IN=$CASE BENCH_TPBA_JSON="$OUT/table3-$CASE.json" \
  nice -n 10 meson test -C build --benchmark tpba-fairness --print-errorlogs --logbase "t3-$CASE" \
  > "$OUT/table3-$CASE.log" 2>&1
