#!/usr/bin/env python3
"""Step 1 of the fifteenth pass (docs/results.md): over the fourteenth
pass's stored runs, for every probing period after a run's first that ended
before JOIN, what each candidate kept rate would have been against the TCP
flows' mean over the same period's whole 1 s windows: r_s (the median of
cycles 2-6, as kept), TPBA's largest 1 s window after the first (the peak),
its upper quartile; the median and how many of the periods fall in 0.9-1.1.
Then the TCP throughput equation's input: TCP's retransmitted fraction
p_probe behind each r_s, in the periods that kept below and above the
median: if the probe's loss tracks its own share, an equation on it returns
that share. Usage: BENCH_TPBA_TIMES=80,65,75 decide.py RUNS.json ..."""
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


def p_probe_per_running_period(run):
    """p_probe as the running periods' 1 s samples report it, one a period."""
    out = []
    for _, q in run["losses"]:
        if q >= 0 and (not out or out[-1] != q):
            out.append(q)
    return out


def candidates(run):
    R, n = run["R"], run["ntcp"]
    kept = [r for _, p, r in run["periods"] if p == "running"]
    pp = p_probe_per_running_period(run)
    for i, ((t0, t1), r_s) in enumerate(zip(cycles.probing_spans(run["periods"]), kept)):
        js = list(range(int(t0) + 1, int(t1)))
        if i == 0 or t1 > cycles.JOIN or len(js) < 3:
            continue
        tcp = statistics.mean(statistics.mean(r[j] for j in js) for r in R[1:n + 1])
        w = sorted(R[0][j] for j in js[1:])
        yield dict(kept=r_s / tcp, peak=w[-1] / tcp, q75=w[(3 * len(w)) // 4] / tcp,
                   p=pp[i] if i < len(pp) else None)


def main(argv):
    cells = {}
    for path in argv:
        for r in json.load(open(path)):
            if r.get("ok") and "ceil2" in r["variant"]:
                key = (r["b"], r["ntcp"], r["cc"], r["variant"])
                cells.setdefault(key, []).extend(candidates(r))
    for (b, n, cc, v), ps in sorted(cells.items()):
        line = [f"{b / 1e6:g} Mbit/s, {n} {cc}, {v}: {len(ps)} periods"]
        for k in ("kept", "peak", "q75"):
            xs = [p[k] for p in ps]
            line.append(f"{k} {statistics.median(xs):.2f} ({sum(0.9 <= x <= 1.1 for x in xs)}"
                        " in 0.9-1.1)")
        mid = statistics.median(p["kept"] for p in ps)
        lo = [p["p"] for p in ps if p["p"] is not None and p["kept"] < mid]
        hi = [p["p"] for p in ps if p["p"] is not None and p["kept"] >= mid]
        line.append(f"p_probe below / above the median kept {statistics.median(lo):.3f} / "
                    f"{statistics.median(hi):.3f}")
        print("; ".join(line))


if __name__ == "__main__":
    main(sys.argv[1:])
