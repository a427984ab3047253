#!/usr/bin/env python3
"""The eleventh pass's fairness table (docs/results.md): per case and variant,
median [range] over the runs of Jain's f over mean rates and per 1 s, the
share of the fair rate, the UDP share of TPBA's bytes, and what the sink sent
of its pacer's rate over UDP in running periods (its 1 s samples).
Usage: summarize.py RUNS.json ..."""
import importlib.util
import json
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "tests", "bench"))
spec = importlib.util.spec_from_file_location(
    "bench", os.path.join(HERE, "..", "..", "..", "tests", "bench", "bench-tpba-fairness.py"))
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)


def sent_over_paced(run):
    """Bits sent over UDP / bits the pacer allowed, over pairs of 1 s samples
    both in a running period (None without any)."""
    s = run.get("sink", [])
    sent = allowed = 0
    for (t0, p0, r0, b0), (t1, p1, _, b1) in zip(s, s[1:]):
        if p0 == p1 == "running" and t1 > t0:
            sent += (b1 - b0) * 8
            allowed += r0 * (t1 - t0)
    return sent / allowed if allowed else None


def cell(xs, spec=".2f"):
    xs = sorted(x for x in xs if x is not None)
    if not xs:
        return "-"
    return f"{format(statistics.median(xs), spec)} [{format(xs[0], spec)}-{format(xs[-1], spec)}]"


runs = [r for p in sys.argv[1:] for r in json.load(open(p)) if r.get("ok")]
rows = {}
for r in runs:
    m = bench.metrics(r)
    m["sent"] = sent_over_paced(r)
    rows.setdefault((r["b"], r["ntcp"]), {}).setdefault(r["variant"], []).append(m)
print("| case | variant | runs | f over mean rates | f per 1 s | share of fair rate | "
      "UDP share | sent / paced (running) |")
print("|---|---|---|---|---|---|---|---|")
for (b, n), d in sorted(rows.items()):
    first = True
    for v in sorted(d, key=lambda v: (v == "TCP", v)):
        ms = d[v]
        case = f"{b / 1e6:g} Mbit/s, {n} cubic" if first else ""
        first = False
        print(f"| {case} | {v} | {len(ms)} | {cell([m['f_means'] for m in ms], '.3f')} | "
              f"{cell([m['f1'] for m in ms], '.3f')} | {cell([m['share1'] for m in ms])} | "
              f"{cell([m['udp_share'] for m in ms])} | {cell([m['sent'] for m in ms])} |")
