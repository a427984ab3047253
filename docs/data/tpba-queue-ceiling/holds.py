#!/usr/bin/env python3
"""Issue 17, running-queue-margin: per run of the queue arm, the sink's final
queue-holds (loss-free points that took no step), probe-rtt (the last probe's
mean TCP RTT) and r-s; then per case the medians. Usage: holds.py RUNS.json ..."""
import json
import statistics
import sys

rows = {}
for p in sys.argv[1:]:
    for r in json.load(open(p)):
        last = r.get("last") or {}
        if not r.get("ok") or "queue-holds" not in last or "queue" not in r["variant"]:
            continue
        holds, prtt = int(last["queue-holds"]), int(last["probe-rtt"]) / 1e6
        print(f"{p.split('/')[-1]}: queue-holds {holds}, probe-rtt {prtt:.0f} ms, "
              f"r-s {int(last['r-s']) / 1e3:.0f} kbit/s")
        rows.setdefault(r["cc"], []).append((holds, prtt))
for cc, xs in sorted(rows.items()):
    print(f"1 {cc}: {len(xs)} runs, queue-holds median {statistics.median(h for h, _ in xs)} "
          f"[{min(h for h, _ in xs)}-{max(h for h, _ in xs)}], probe-rtt median "
          f"{statistics.median(p for _, p in xs):.0f} ms")
