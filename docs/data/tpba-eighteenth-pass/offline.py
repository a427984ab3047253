#!/usr/bin/env python3
"""The eighteenth pass, offline, on the seventeenth pass's stored runs of
kept-rate=equation-episodes (docs/results.md), before bed time:
- a factor on the per-second rule, fitted without the trial it is applied
  to: for each trial, the factor that centres the other trials' runs (one
  over the median of their run medians of kept / TCP, all three cases
  pooled), times that trial's kept rates;
- the rule over a longer window: e and R pooled over the run's last 2
  judged probing periods (events and seconds summed), each period's e from
  its stored equation-rate X and equation-rtt R, e = 3 8 s / (2 X R^2) with
  s = 1448, the period's events counted from cycle 1 (t0 + 1 s) to its end.
kept / TCP is r_s over the TCP flows' mean over the period's whole 1 s
windows (cycles.judged_periods); per run the median, per case the median of
run medians [range] and runs within 0.9-1.1.
Usage: BENCH_TPBA_TIMES=80,65,75 offline.py RUNS.json ..."""
import importlib.util
import json
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "cycles14", os.path.join(HERE, "..", "tpba-fourteenth-pass", "cycles.py"))
cycles = importlib.util.module_from_spec(spec)
spec.loader.exec_module(cycles)

SEGMENT = 1448


def rule(per_s, rtt):
    return 8 * SEGMENT * 3 / (2 * per_s * rtt * rtt)


def eq_after(run, t1):
    for t, period, _, _, _, rtt, rate in run["tcp"]:
        if period == "running" and t > t1:
            return rtt / 1e9, rate
    return -1, 0


def periods(run, pool):
    """(kept / TCP, pooled rule / TCP) per judged period."""
    seen = []
    for t0, t1, r_s, tcp in cycles.judged_periods(run):
        rtt, rate = eq_after(run, t1)
        if tcp <= 1e3 or rtt <= 0 or rate <= 0:
            continue
        secs = t1 - (t0 + 1)
        seen.append((rule(1, rtt) / rate * secs, secs, rtt))      # events, s, R
        last = seen[-pool:]
        e = sum(n for n, _, _ in last) / sum(s for _, s, _ in last)
        yield r_s / tcp, rule(e, statistics.mean(r for _, _, r in last)) / tcp


def cell(meds):
    meds = sorted(meds)
    return (f"{statistics.median(meds):.2f} [{meds[0]:.2f}-{meds[-1]:.2f}], "
            f"{sum(0.9 <= m <= 1.1 for m in meds)} of {len(meds)} within")


def main(argv):
    # the two sets of the seventeenth pass reuse trial numbers: the file's
    # prefix (fair, more) tells them apart
    keyed = []
    for path in argv:
        for r in json.load(open(path)):
            if r.get("ok") and r["variant"].endswith("-eqep") and "tcp" in r:
                keyed.append(((os.path.basename(path).split("-")[0], r["trial"]), r))
    med = {id(r): statistics.median(k for k, _ in periods(r, 1))
           for _, r in keyed if list(periods(r, 1))}
    trials = sorted({t for t, _ in keyed})
    print("| case | runs | kept / TCP (factor 1, as run) | times the factor fitted on the "
          "other trials | factor (range over trials) | the rule's X / TCP, 1 period | "
          "pooled over 2 periods | periods pooled |")
    print("|---|---|---|---|---|---|---|---|")
    factors = {}
    for t in trials:
        others = [med[id(r)] for u, r in keyed if u != t and id(r) in med]
        factors[t] = 1 / statistics.median(others)
    cases = sorted({(r["b"], r["ntcp"], r["cc"]) for _, r in keyed})
    for b, n, cc in cases:
        rs = [(t, r) for t, r in keyed if (r["b"], r["ntcp"], r["cc"]) == (b, n, cc)
              and id(r) in med]
        asrun = [med[id(r)] for _, r in rs]
        fitted = [med[id(r)] * factors[t] for t, r in rs]
        fs = [factors[t] for t, _ in rs]
        pooled = {k: [statistics.median(p for _, p in periods(r, k)) for _, r in rs]
                  for k in (1, 2)}
        npooled = sum(max(0, len(list(periods(r, 1))) - 1) for _, r in rs)
        print(f"| {b / 1e6:g} Mbit/s, {n} {cc} | {len(rs)} | {cell(asrun)} | {cell(fitted)} | "
              f"{statistics.median(fs):.2f} [{min(fs):.2f}-{max(fs):.2f}] | "
              f"{cell(pooled[1])} | {cell(pooled[2])} | {npooled} |")


if __name__ == "__main__":
    main(sys.argv[1:])
