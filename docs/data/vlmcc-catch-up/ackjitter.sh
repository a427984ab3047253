#!/bin/sh
# ackjitter.sh "PAIRS": vlmcc-ack-jitter with pacing-catch-up=0 (arm off)
# and at its default, 10 ms (arm on), in the order off on in odd pairs and
# on off in even ones (A B B A), under nice -n 10. Each run's log goes to
# ackjitter-PAIR-ARM.log with the load average and the times at its top.
# Run from the worktree's root; a file STOP here ends it.
D=docs/data/vlmcc-catch-up
for p in $1; do
  if [ $((p % 2)) = 1 ]; then ORD="off on"; else ORD="on off"; fi
  for a in $ORD; do
    [ -e "$D/STOP" ] && exit 0
    log=$D/ackjitter-$p-$a.log
    { date -u +"start %H:%M:%S"; uptime; } > "$log"
    if [ $a = off ]; then q=pacing-catch-up=0; else q=; fi
    VLMCC_SINK_QUERY=$q nice -n 10 meson test -C build vlmcc-ack-jitter -v \
      >> "$log" 2>&1
    { date -u +"end %H:%M:%S"; uptime; } >> "$log"
  done
done
