#!/usr/bin/env python3
"""The seventeenth pass, between the two equation rules (docs/results.md):
on runs of kept-rate=equation, which store each period's loss event rate p
(events per data segment), mean RTT R and the equation's rate, what
kept-rate=equation-episodes would have kept. The events per second are p
times the probe's segments per second, the mean of its cycles after the
first (the sender's 1 s samples, sixteenth pass's rules.py) over 8 s, s
taken as 1448 bytes (offline.py); then 3 / (2 e R^2) packets a second.
Also the equation's first term alone (no timeout term), 8 s / (R
sqrt(2 p / 3)), which needs no s: it is the kept rate times the whole
denominator over the first term's. All over the TCP flows' mean over the
period's whole 1 s windows; per run the median, per case the median of the
run medians [range], runs within 0.9-1.1.
Usage: BENCH_TPBA_TIMES=80,65,75 episodes.py RUNS.json ..."""
import importlib.util
import json
import math
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def load(name, path):
    spec = importlib.util.spec_from_file_location(name, os.path.join(HERE, path))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


offline = load("offline17", "offline.py")
rules = load("rules16", os.path.join("..", "tpba-sixteenth-pass", "rules.py"))
cycles = offline.cycles


def episodes_rate(s, rtt, per_s):
    """3 / (2 e R^2) packets of s bytes a second, bits/s (tpbacore's)."""
    return 8 * s * 3 / (2 * per_s * rtt * rtt)


def eq_after(run, t1):
    """(p, R s, equation's rate) of the first running sample after t1."""
    for t, period, _, _, p, rtt, rate in run["tcp"]:
        if period == "running" and t > t1:
            return p, rtt / 1e9, rate
    return -1, -1, 0


def periods(run):
    for t0, t1, r_s, tcp in cycles.judged_periods(run):
        p, rtt, rate = eq_after(run, t1)
        xs = rules.probe_cycles(run, t0, t1, r_s)
        if tcp > 1e3 and p > 0 and rtt > 0 and xs:
            per_s = p * statistics.mean(xs) / (8 * offline.SEGMENT)
            first = rtt * math.sqrt(2 * p / 3)
            whole = 8 / offline.equation(1, rtt, p)
            yield (rate / tcp, rate * whole / first / tcp,
                   episodes_rate(offline.SEGMENT, rtt, per_s) / tcp)


def main(argv):
    cells = {}
    for path in argv:
        for run in json.load(open(path)):
            if run.get("ok") and "tcp" in run and run["variant"].endswith("-eq"):
                ps = list(periods(run))
                if ps:
                    cells.setdefault((run["b"], run["ntcp"], run["cc"]), []).append(ps)
    print("| case | runs | periods | equation / TCP (as kept) | first term only / TCP "
          "| episodes / TCP (s = 1448) |")
    print("|---|---|---|---|---|---|")
    for (b, n, cc), runs in sorted(cells.items()):
        cols = [offline.cell([statistics.median(x[k] for x in r) for r in runs])
                for k in range(3)]
        print(f"| {b / 1e6:g} Mbit/s, {n} {cc} | {len(runs)} | {sum(len(r) for r in runs)} | "
              + " | ".join(cols) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])
