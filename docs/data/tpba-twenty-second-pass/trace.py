#!/usr/bin/env python3
"""Issue 17, twenty-second pass: where TPBA's rate beside the TCP flows comes
from, period by period, over [WARMUP, JOIN). For each probing period: its
length, the kept rate r_s against the TCP flows' mean rate over the same whole
1 s windows, and TPBA's own received rate there against theirs. For each
running period: r_s, the paced rate at its end against r_s (the climb), TPBA's
received rate against r_s and against the TCP flows' mean rate. Then the
run's share of fair, the seconds spent in each period and each period kind's
part of TPBA's and the TCP flows' bytes.
Usage: BENCH_TPBA_TIMES=80,65,75 trace.py RUNS.json ..."""
import importlib.util
import json
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.join(HERE, "..", "..", "..", "tests", "bench")
sys.path.insert(0, BENCH)
spec = importlib.util.spec_from_file_location(
    "bench", os.path.join(BENCH, "bench-tpba-fairness.py"))
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)
W, J = bench.WARMUP, bench.JOIN


def spans(run):
    """(start, end, kind, r_s of the running period or the one it starts)."""
    ps = run["periods"]
    out = []
    for i, (t, kind, rs) in enumerate(ps):
        end = ps[i + 1][0] if i + 1 < len(ps) else bench.END
        out.append((t, end, kind, rs))
    if ps and ps[0][0] > 0:
        out.insert(0, (0.0, ps[0][0], "probing", ps[0][2]))
    return out


def mean_over(xs, js):
    return statistics.mean(xs[j] for j in js) if js else None


def paced_at(run, t):
    """The sink's rate (its 1 s stats) last reported before t."""
    best = None
    for row in run["sink"]:
        if row[0] <= t:
            best = row[2]
    return best


def trace(run, name):
    R, n = run["R"], run["ntcp"]
    tcp = R[1:n + 1]
    print(f"\n{name}: {run['b'] / 1e6:g} Mbit/s, {run['ntcp']} {run['cc']} trial {run['trial']}, "
          f"{run['variant']}, start {run.get('start')}: "
          f"share {bench.metrics(run)['share1']:.2f}, "
          f"UDP share {bench.udp_share(run):.2f}")
    secs = {"probing": 0, "running": 0}
    byt = {"probing": [0, 0], "running": [0, 0]}
    for t0, t1, kind, rs in spans(run):
        js = [j for j in range(int(t0) + 1, min(int(t1), J)) if j >= W]
        if not js:
            continue
        mine = mean_over(R[0], js)
        theirs = statistics.mean(mean_over(r, js) for r in tcp)
        secs[kind] += len(js)
        byt[kind][0] += sum(R[0][j] for j in js)
        byt[kind][1] += sum(statistics.mean(r[j] for r in tcp) for j in js)
        if kind == "running":
            end_rate = paced_at(run, t1 - 0.05)
            print(f"  run   {t0:5.1f}-{t1:5.1f} s r_s {rs / 1e3:6.0f} k, paced at end "
                  f"{end_rate / rs:.2f} r_s, got {mine / rs:.2f} r_s, "
                  f"{mine / theirs:.2f} of TCP ({mine / 1e3:.0f} vs {theirs / 1e3:.0f} k)")
        else:
            print(f"  probe {t0:5.1f}-{t1:5.1f} s ({t1 - t0:4.1f} s) kept {rs / 1e3:6.0f} k = "
                  f"{rs / theirs:.2f} of TCP, got {mine / theirs:.2f} of TCP "
                  f"({mine / 1e3:.0f} vs {theirs / 1e3:.0f} k)")
    for k in secs:
        if secs[k]:
            print(f"  {k}: {secs[k]} s, TPBA/TCP over them "
                  f"{byt[k][0] / byt[k][1]:.2f}")


def main(paths):
    for p in paths:
        for run in json.load(open(p)):
            if run.get("ok") and bench.is_tpba(run["variant"]):
                trace(run, os.path.basename(p))


if __name__ == "__main__":
    main(sys.argv[1:])
