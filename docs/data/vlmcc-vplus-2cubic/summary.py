#!/usr/bin/env python3
"""Medians per case and scheme over the runs of bench_vlmcc_fairness.py
JSON files (f over mean rates, median f per 1 s, share of the fair rate,
the shares one by one in run order), and for VLMCC schemes the median
halvings and window over [15, 50) s. Usage: summary.py RUNS.json ..."""
import json
import statistics
import sys

sys.path.insert(0, "../../../tests/bench")
import bench_vlmcc_fairness as bench  # noqa: E402

by = {}
for path in sys.argv[1:]:
    for run in json.load(open(path)):
        if not run.get("ok"):
            continue
        m = bench.metrics(run)
        s = run.get("sink") or {}
        key = (run["ntcp"], run["scheme"])
        by.setdefault(key, []).append((m, s))
for (ntcp, scheme), rows in sorted(by.items()):
    med = lambda k: statistics.median(m[k] for m, _ in rows)  # noqa: E731
    extra = ""
    if rows[0][1]:
        extra = (f"; halvings {statistics.median(s['halvings'] for _, s in rows)}"
                 f", W {statistics.median(s['window'] for _, s in rows)}")
    print(f"{ntcp} cubic {scheme:22s} n={len(rows)} {med('f_means'):.3f} / "
          f"{med('f_window'):.3f} / {med('share'):.2f} (shares "
          + ", ".join(f"{m['share']:.2f}" for m, _ in rows) + ")" + extra)
