#!/usr/bin/env python3
"""Issue 17, twenty-second pass (docs/results.md, "Issue 17: the running
climb beside reno"): per case and variant, medians [ranges] over the runs of
TPBA's share of the fair rate, Jain's f over the flows' mean rates in
[WARMUP, JOIN) and per 1 s window (median), the UDP share of TPBA's bytes, the
kept rate against the TCP flows' (the bench's own metrics) and TPBA's rate
against the TCP flow's over the running and over the probing seconds
(trace.py's split); for the TCP reference the same rate and fairness figures.
Usage: BENCH_TPBA_TIMES=80,65,75 summarize.py RUNS.json ..."""
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import trace  # noqa: E402

bench = trace.bench


def cell(xs, spec=".2f"):
    xs = [x for x in xs if x is not None]
    if not xs:
        return "-"
    return (f"{format(statistics.median(xs), spec)} "
            f"[{format(min(xs), spec)}-{format(max(xs), spec)}]")


def split(run):
    """TPBA's rate over the TCP flows' mean rate in the running and in the
    probing seconds of [WARMUP, JOIN); None for a run without periods."""
    if not bench.is_tpba(run["variant"]):
        return None, None
    R, n = run["R"], run["ntcp"]
    sums = {"running": [0.0, 0.0], "probing": [0.0, 0.0]}
    for t0, t1, kind, _ in trace.spans(run):
        for j in range(int(t0) + 1, min(int(t1), trace.J)):
            if j >= trace.W:
                sums[kind][0] += R[0][j]
                sums[kind][1] += statistics.mean(r[j] for r in R[1:n + 1])
    return tuple(a / b if b else None for a, b in (sums["running"], sums["probing"]))


def main(paths):
    runs = []
    for p in paths:
        for r in json.load(open(p)):
            if r.get("ok"):
                # drive.sh runs one trial per file: its number is in the name (tN-...)
                name = os.path.basename(p)
                r["trial"] = int(name[1:name.index("-")]) if name.startswith("t") else 0
                runs.append(r)
    groups = {}
    for r in runs:
        groups.setdefault((f"{r['b'] / 1e6:g} Mbit/s, {r['ntcp']} {r['cc']}",
                           r["variant"]), []).append(r)
    print("| case | variant | runs | share of fair | f over mean rates | f per 1 s | "
          "UDP share | kept / TCP | TPBA / TCP running | TPBA / TCP probing |\n"
          "|---|---|---|---|---|---|---|---|---|---|")
    for (case, v), rs in sorted(groups.items()):
        ms = [bench.metrics(r) for r in rs]
        sp = [split(r) for r in rs]
        print(f"| {case} | {v} | {len(rs)} | {cell([m['share1'] for m in ms])} | "
              f"{cell([m['f_means'] for m in ms], '.3f')} | "
              f"{cell([m['f1'] for m in ms], '.3f')} | {cell([m['udp_share'] for m in ms])} | "
              f"{cell([m['kept_bias'] for m in ms])} | {cell([s[0] for s in sp])} | "
              f"{cell([s[1] for s in sp])} |")
    pairs(groups)


def pairs(groups):
    """Per case, over the trials that ran both TPBA arms: in how many the
    second arm's (the option's) share was nearer 1 and its f over mean rates
    higher."""
    print("\n| case | arms | trials with both | share nearer 1 with the second | "
          "f over mean rates higher with the second |\n|---|---|---|---|---|")
    cases = sorted({c for c, _ in groups})
    for case in cases:
        arms = sorted(v for c, v in groups if c == case and bench.is_tpba(v))
        if len(arms) != 2:
            continue
        by = [{r["trial"]: bench.metrics(r) for r in groups[(case, v)]} for v in arms]
        both = sorted(set(by[0]) & set(by[1]))
        nearer = sum(abs(by[1][t]["share1"] - 1) < abs(by[0][t]["share1"] - 1) for t in both)
        higher = sum(by[1][t]["f_means"] > by[0][t]["f_means"] for t in both)
        print(f"| {case} | {arms[0]} / {arms[1]} | {len(both)} | {nearer} | {higher} |")


if __name__ == "__main__":
    main(sys.argv[1:])
