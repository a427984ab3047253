#!/usr/bin/env python3
"""The fourteenth pass's tables (docs/results.md): per case (bottleneck,
congestion control, TCP flows) and variant, median [range] over the runs in
[WARMUP, JOIN) of Jain's f over mean rates and per 1 s, the share of the fair
rate, the UDP share of TPBA's bytes, the kept-rate bias (r_s over the TCP
flows' mean over the same probing period's 1 s windows: the run's median,
and the probing periods within 0.9-1.1 of all), and the runs meeting the
goals: UDP share >= 0.70, f over mean rates >= the TCP reference's median
minus 0.02, share of fair 0.85-1.15 (all three: "goals met").
--pairs A B: variant B against A in the same trial.
Usage: BENCH_TPBA_TIMES=80,65,75 summarize.py [--pairs A B] RUNS.json ..."""
import importlib.util
import json
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# the thirteenth pass's breakdown.py splits a run into probing and running
sys.path.insert(0, os.path.join(HERE, "..", "tpba-thirteenth-pass"))
sys.path.insert(1, os.path.join(HERE, "..", "..", "..", "tests", "bench"))
spec = importlib.util.spec_from_file_location(
    "bench", os.path.join(HERE, "..", "..", "..", "tests", "bench", "bench-tpba-fairness.py"))
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)
from breakdown import breakdown  # noqa: E402

LABEL = {
    "TPBA-ours": "recommended",
    "TPBA-ours-cap6-ratio3-step1-ceil2": "ceiling 2",
    "TPBA-ours-cap6-ratio3-step1-ceil2-afterloss": "ceiling 2, after loss",
    "TCP": "TCP reference",
}


def cell(xs, f="{:.2f}"):
    xs = sorted(x for x in xs if x is not None)
    if not xs:
        return "-"
    return f"{f.format(statistics.median(xs))} [{f.format(xs[0])}-{f.format(xs[-1])}]"


def kept_ratios(run):
    """r_s over the TCP flows' mean rate for every probing period after the
    first that ended before JOIN (bench-tpba-fairness.py's kept_bias, per
    period)."""
    R, n, out = run["R"], run["ntcp"], []
    spans = bench.probing_spans(run["periods"])
    kept = [r for _, p, r in run["periods"] if p == "running"]
    for (t0, t1), r_s in list(zip(spans, kept))[1:]:
        js = range(int(t0) + 1, min(int(t1), bench.JOIN))
        if len(js) < 2 or not r_s:
            continue
        tcp = statistics.mean(statistics.mean(r[j] for j in js) for r in R[1:n + 1])
        if tcp > 1e3:
            out.append(r_s / tcp)
    return out


def score(r):
    m = bench.metrics(r)
    if bench.is_tpba(r["variant"]):
        m.update(breakdown(r, bench.WARMUP, bench.JOIN))
        m["kept_all"] = kept_ratios(r)
    return m


def load(paths):
    rows = {}
    for p in paths:
        for r in json.load(open(p)):
            if r.get("ok"):
                key = (r["b"], r["cc"], r["ntcp"])
                rows.setdefault(key, {}).setdefault(r["variant"], []).append((r, score(r)))
    return rows


def pairs(rows, a, b):
    print(f"| case | trials | {LABEL.get(b, b)} against {LABEL.get(a, a)}: f over means higher "
          "| share nearer 1 | kept / TCP nearer 1 | UDP share higher |")
    print("|---|---|---|---|---|---|")
    for (bw, cc, n), d in sorted(rows.items()):
        old = {r["trial"]: m for r, m in d.get(a, [])}
        new = {r["trial"]: m for r, m in d.get(b, [])}
        ts = sorted(set(old) & set(new))
        w = lambda f: sum(1 for t in ts if f(new[t], old[t]))  # noqa: E731
        k = [t for t in ts if new[t]["kept_bias"] and old[t]["kept_bias"]]
        kw = sum(1 for t in k if abs(new[t]["kept_bias"] - 1) < abs(old[t]["kept_bias"] - 1))
        print(f"| {bw / 1e6:g} Mbit/s, {n} {cc} | {len(ts)} | "
              f"{w(lambda x, o: x['f_means'] > o['f_means'])} | "
              f"{w(lambda x, o: abs(x['share1'] - 1) < abs(o['share1'] - 1))} | "
              f"{kw} of {len(k)} | {w(lambda x, o: x['udp_share'] > o['udp_share'])} |")


def table(rows):
    print("| case | variant | runs | f over mean rates | f per 1 s | share of fair | UDP share "
          "| kept / TCP (run medians) | probes kept within 10 % | runs: UDP share / f / share "
          "/ goals met |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for (bw, cc, n), d in sorted(rows.items()):
        ref = statistics.median(m["f_means"] for _, m in d.get("TCP", [])) \
            if d.get("TCP") else None
        first = True
        order = sorted(d, key=lambda v: list(LABEL).index(v) if v in LABEL else 99)
        for v in order:
            ms = [m for _, m in d[v]]
            case = f"{bw / 1e6:g} Mbit/s, {n} {cc}" if first else ""
            first = False
            head = (f"| {case} | {LABEL.get(v, v)} | {len(ms)} | "
                    f"{cell([m['f_means'] for m in ms], '{:.3f}')} | "
                    f"{cell([m['f1'] for m in ms], '{:.3f}')} | {cell([m['share1'] for m in ms])}")
            if not bench.is_tpba(v):
                print(head + " | - | - | - | - |")
                continue
            udp = [m["udp_share"] >= 0.70 for m in ms]
            fok = [ref is not None and m["f_means"] >= ref - 0.02 for m in ms]
            sok = [0.85 <= m["share1"] <= 1.15 for m in ms]
            allk = [k for m in ms for k in m["kept_all"]]
            within = sum(1 for k in allk if 0.9 <= k <= 1.1)
            print(head + f" | {cell([m['udp_share'] for m in ms])} | "
                  f"{cell([m['kept_bias'] for m in ms])} | {within} of {len(allk)} | "
                  f"{sum(udp)} / {sum(fok)} / {sum(sok)} / "
                  f"{sum(1 for u, f, s in zip(udp, fok, sok) if u and f and s)} |")


def main(argv):
    if argv[:1] == ["--pairs"]:
        pairs(load(argv[3:]), argv[1], argv[2])
    else:
        table(load(argv))


if __name__ == "__main__":
    main(sys.argv[1:])
