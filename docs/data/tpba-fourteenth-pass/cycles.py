#!/usr/bin/env python3
"""The probe's climb (docs/results.md, fourteenth pass): for every probing
period after a run's first that ends before JOIN, TPBA's rate at the
receiver in each whole 1 s window from the period's start (about one cycle
of T_tcp = 1 s each) over the mean rate of the TCP flows in the same window;
per case, the median [quartiles] by window index, and how many periods reach
it. Usage: BENCH_TPBA_TIMES=80,65,75 cycles.py [--variant SUBSTR] RUNS.json ..."""
import json
import os
import statistics
import sys

WARMUP = 10
JOIN = int(os.environ.get("BENCH_TPBA_TIMES", "90,45,70").split(",")[1])


def probing_spans(periods):
    spans, t0 = [], 0.0
    for t, p, _ in periods:
        if p == "running" and t0 is not None:
            spans.append((t0, t))
            t0 = None
        elif p == "probing" and t0 is None:
            t0 = t
    return spans


def judged_periods(run):
    """Each probing period after the run's first that ends by JOIN and spans
    at least two whole 1 s windows: (t0, t1, its kept r_s, the TCP flows'
    mean rate over those windows)."""
    R, n = run["R"], run["ntcp"]
    kept = [r for _, p, r in run["periods"] if p == "running"]
    for i, ((t0, t1), r_s) in enumerate(zip(probing_spans(run["periods"]), kept)):
        js = list(range(int(t0) + 1, min(int(t1), JOIN)))
        if i == 0 or t1 > JOIN or len(js) < 2:
            continue
        yield t0, t1, r_s, statistics.mean(statistics.mean(r[j] for j in js)
                                           for r in R[1:n + 1])


def climb(run):
    R, n = run["R"], run["ntcp"]
    out = []
    for t0, t1 in probing_spans(run["periods"])[1:]:
        if t1 > JOIN:
            continue
        ratios = []
        for j in range(int(t0) + 1, int(t1)):
            tcp = statistics.mean(r[j] for r in R[1:n + 1])
            ratios.append(R[0][j] / tcp if tcp > 1e3 else None)
        out.append(ratios)
    return out


def q(xs):
    xs = sorted(xs)
    return (f"{statistics.median(xs):.2f} [{xs[len(xs) // 4]:.2f}-{xs[(3 * len(xs)) // 4]:.2f}]"
            f" n={len(xs)}")


def main(argv):
    sub = None
    if argv[:1] == ["--variant"]:
        sub, argv = argv[1], argv[2:]
    cells = {}
    for p in argv:
        for r in json.load(open(p)):
            if not r.get("ok") or not r["variant"].startswith("TPBA") or \
                    (sub and sub not in r["variant"]):
                continue
            key = (r["b"], r["ntcp"], r["cc"], r["variant"])
            cells.setdefault(key, []).extend(climb(r))
    for (b, n, cc, v), probes in sorted(cells.items()):
        print(f"{b / 1e6:g} Mbit/s, {n} {cc}, {v}: {len(probes)} probing periods")
        for k in range(8):
            xs = [p[k] for p in probes if len(p) > k and p[k] is not None]
            if xs:
                print(f"  window {k + 1}: TPBA / TCP {q(xs)}")


if __name__ == "__main__":
    main(sys.argv[1:])
