#!/bin/sh
# ackjitter.sh "PAIRS": vlmcc-ack-jitter with pacing-catch-up=0 (arm off)
# and at its default, 10 ms (arm on), off on in odd pairs, on off in even
# ones, under nice -n 10; one log a run with the load at top and bottom.
# Run from the worktree's root; a file STOP here ends it.
D=docs/data/vlmcc-late-turns
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
