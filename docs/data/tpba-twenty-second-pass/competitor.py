#!/usr/bin/env python3
"""Issue 17, twenty-second pass: the TCP competitor's side of TPBA's periods,
from the runs' `ss` samples (BENCH_TPBA_SS): per run and period kind over
[WARMUP, JOIN), the competitor's median cwnd (segments), median RTT (ms) and
retransmitted segments a second. Usage: BENCH_TPBA_TIMES=80,65,75
competitor.py RUNS.json ..."""
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import trace  # noqa: E402

bench = trace.bench


def kind_at(spans, t):
    for t0, t1, kind, _ in spans:
        if t0 <= t < t1:
            return kind
    return None


def main(paths):
    print("| run | kind | s | cwnd | RTT ms | retransmitted segments / s |\n|---|---|---|---|---|---|")
    for p in paths:
        for run in json.load(open(p)):
            if not run.get("ok") or not bench.is_tpba(run["variant"]) or "ss" not in run:
                continue
            sp = trace.spans(run)
            samples = run["ss"].get(str(bench.CROSS_PORT), [])
            for kind in ("running", "probing"):
                xs = [s for s in samples if trace.W <= s[0] < trace.J and kind_at(sp, s[0]) == kind]
                if len(xs) < 2:
                    continue
                secs = 0.0
                retr = 0
                for a, b in zip(xs, xs[1:]):
                    if b[0] - a[0] < 0.5 and a[3] >= 0 and b[3] >= 0:
                        secs += b[0] - a[0]
                        retr += b[3] - a[3]
                print(f"| {run['cc']} {run.get('start')} {os.path.basename(p)}:{run['trial']} | {kind} | "
                      f"{secs:.0f} | {statistics.median(s[2] for s in xs):.0f} | "
                      f"{statistics.median(s[1] for s in xs):.0f} | "
                      f"{retr / secs if secs else 0:.2f} |")


if __name__ == "__main__":
    main(sys.argv[1:])
