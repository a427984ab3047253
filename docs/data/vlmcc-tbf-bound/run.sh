#!/bin/sh
# run.sh NAME "QDISC:NTCP ..." SCHEMES: one trial of each cell at 2 Mbit/s,
# cubic, 80 s runs (rates over 15-80 s), the schemes in turn inside it, under
# nice -n 10. Each call's runs go to NAME-QDISC-NTCP.json, its log (with the
# load after each run) to .log. Run from the worktree's root; a file STOP
# here ends it between calls.
D=docs/data/vlmcc-tbf-bound
for c in $2; do
  [ -e "$D/STOP" ] && exit 0
  q=${c%:*}; n=${c#*:}
  f=$D/$1-$q-$n
  { date -u +"start %H:%M:%S"; uptime; } > "$f.log"
  BENCH_VLMCC_BOTTLENECK=2 BENCH_VLMCC_CC=cubic BENCH_VLMCC_TIMES=80,15 \
    BENCH_VLMCC_QDISC=$q BENCH_VLMCC_NTCP=$n BENCH_VLMCC_TRIALS=1 \
    BENCH_VLMCC_SCHEMES=$3 BENCH_VLMCC_JSON=$PWD/$f.json \
    nice -n 10 meson test -C build --benchmark vlmcc-fairness -v >> "$f.log" 2>&1
  { date -u +"end %H:%M:%S"; uptime; } >> "$f.log"
done
