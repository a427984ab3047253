#!/usr/bin/env python3
"""Issue 17, running-queue-margin: per TPBA run, the sink's final
queue-holds (loss-free points that took no step) and, from the 1 s samples
(rr_rtt, runs from trial 2 on), the last RR's RTT less the probe's mean TCP
RTT over the running seconds: its median and the fraction of samples more
than 10 and 20 ms above; then per case and arm the medians.
Usage: holds.py RUNS.json ..."""
import json
import os
import statistics
import sys

rows = {}
for p in sys.argv[1:]:
    for r in json.load(open(p)):
        last = r.get("last") or {}
        if not r.get("ok") or not r["variant"].startswith("TPBA") or "queue-holds" not in last:
            continue
        holds = int(last["queue-holds"])
        ex = [(x[2] - x[3]) / 1e6 for x in r.get("rr_rtt", [])
              if x[1] == "running" and x[2] > 0 and x[3] > 0]
        line = f"{os.path.basename(p)}: queue-holds {holds}"
        row = [holds, None, None, None]
        if ex:
            row[1:] = [statistics.median(ex), sum(e > 10 for e in ex) / len(ex),
                       sum(e > 20 for e in ex) / len(ex)]
            line += (f", RR RTT - probe RTT median {row[1]:.0f} ms, "
                     f"> 10 ms {row[2]:.2f}, > 20 ms {row[3]:.2f} of running seconds")
        print(line)
        rows.setdefault((r["cc"], r["variant"]), []).append(row)


def med(xs, spec):
    xs = [x for x in xs if x is not None]
    return format(statistics.median(xs), spec) if xs else "-"


for (cc, v), xs in sorted(rows.items()):
    print(f"1 {cc}, {v}: {len(xs)} runs, queue-holds median {med([x[0] for x in xs], 'g')} "
          f"[{min(x[0] for x in xs)}-{max(x[0] for x in xs)}]; RR - probe median "
          f"{med([x[1] for x in xs], '.0f')} ms, > 10 ms {med([x[2] for x in xs], '.2f')}, "
          f"> 20 ms {med([x[3] for x in xs], '.2f')}")
