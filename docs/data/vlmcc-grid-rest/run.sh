#!/bin/sh
# run.sh PHASE "QDISC:NTCP ...": the fairness bench at 2 Mbit/s, cubic, 80 s runs
# (rates over 15-80 s), one trial per call, under nice -n 10. Phase 1 runs
# VLMCC, VLMCC-vplus, the TCP reference and TFMCC in turn; later phases
# VLMCC-vplus and the TCP reference. Each call's runs go to
# pPHASE-QDISC-NTCP.json, its log (with the load per run) to .log.
# Run from the worktree's root; a file STOP here ends it between calls.
D=docs/data/vlmcc-grid-rest
p=$1
case $p in
  1) S=VLMCC,VLMCC-vplus,TCP,TFMCC ;;
  *) S=VLMCC-vplus,TCP ;;
esac
for c in $2; do
  [ -e "$D/STOP" ] && exit 0
  q=${c%:*}; n=${c#*:}
  f=$D/p$p-$q-$n
  { date -u +"start %H:%M:%S"; uptime; } > "$f.log"
  BENCH_VLMCC_BOTTLENECK=2 BENCH_VLMCC_CC=cubic BENCH_VLMCC_TIMES=80,15 \
    BENCH_VLMCC_QDISC=$q BENCH_VLMCC_NTCP=$n BENCH_VLMCC_TRIALS=1 \
    BENCH_VLMCC_SCHEMES=$S BENCH_VLMCC_JSON=$PWD/$f.json \
    nice -n 10 meson test -C build --benchmark vlmcc-fairness -v >> "$f.log" 2>&1
  { date -u +"end %H:%M:%S"; uptime; } >> "$f.log"
done
