#!/bin/sh
# bench.sh "QDISC:NTCP ...": the fairness bench at 2 Mbit/s, one call per
# case, 3 trials; inside each trial VLMCC with pacing-catch-up=0 then at its
# default (10 ms), VLMCC-vplus at 10 ms then 0, then the TCP reference
# (the same order every trial), under nice -n 10. Each case's runs go to
# bench-QDISC-NTCP.json, its log (with the load per run) to .log.
# Run from the worktree's root; a file STOP here ends it between cases.
D=docs/data/vlmcc-catch-up
for c in $1; do
  [ -e "$D/STOP" ] && exit 0
  q=${c%:*}; n=${c#*:}
  { date -u +"start %H:%M:%S"; uptime; } > "$D/bench-$q-$n.log"
  BENCH_VLMCC_QDISC=$q BENCH_VLMCC_NTCP=$n BENCH_VLMCC_TRIALS=${TRIALS:-3} \
    BENCH_VLMCC_SCHEMES=VLMCC-nocatch,VLMCC,VLMCC-vplus,VLMCC-vplus-nocatch,TCP \
    BENCH_VLMCC_JSON=$PWD/$D/bench-$q-$n.json \
    nice -n 10 meson test -C build --benchmark vlmcc-fairness -v \
    >> "$D/bench-$q-$n.log" 2>&1
  { date -u +"end %H:%M:%S"; uptime; } >> "$D/bench-$q-$n.log"
done
