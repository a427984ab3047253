#!/usr/bin/env python3
"""Issue 17, Table 3 inside a running period: per variant, how the running periods
ended (tpbasink's run-end-timer, run-end-reductions, run-end-below at the end of
each run), and the time from the join to the next probing period.
usage: ends.py RUNS.json [...]"""
import json
import statistics
import sys

rows = {}
for path in sys.argv[1:]:
    for run in json.load(open(path)):
        if "join_at" not in run or not run.get("ok"):
            continue
        last, join = run["last"], run["join_at"]
        wait = next((t - join for t, p, _ in run["periods"] if p == "probing" and t > join),
                    None)
        rows.setdefault(run["variant"], []).append(
            [int(last.get(k, 0)) for k in ("run-end-timer", "run-end-reductions",
                                           "run-end-below")] + [wait])
print("| variant | runs | ended at their length | by reprobe-on-reductions | by reprobe-below "
      "| join to next probe s, median [range] |\n|---|---|---|---|---|---|")
for v, rs in rows.items():
    waits = [r[3] for r in rs if r[3] is not None]
    print(f"| {v} | {len(rs)} | {sum(r[0] for r in rs)} | {sum(r[1] for r in rs)} | "
          f"{sum(r[2] for r in rs)} | {statistics.median(waits):.1f} "
          f"[{min(waits):.1f}-{max(waits):.1f}] |")
