#!/usr/bin/env python3
"""The thirteenth pass's tables (docs/results.md): per case and variant,
median [range] over the runs in [WARMUP, JOIN) of Jain's f over mean rates
and per 1 s, the share of the fair rate, the UDP share of TPBA's bytes, the
kept-rate bias (bench-tpba-fairness.py's kept_bias: r_s over the TCP flows'
mean over the probing period's own windows), the seconds in probing and
running, and how the probing and running periods ended (the sink's
counters at the end of the run). --pairs: the new variant against the old
in the same trial. Usage: BENCH_TPBA_TIMES=75,65,70 summarize.py [--pairs]
RUNS.json ... (SUMMARIZE_NEW: the variant --pairs sets against TPBA-ours)"""
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
from breakdown import breakdown  # noqa: E402

OLD = "TPBA-ours"
NEW = os.environ.get("SUMMARIZE_NEW", "TPBA-ours-cap6-ratio3")


def cell(xs, f="{:.2f}"):
    xs = sorted(x for x in xs if x is not None)
    if not xs:
        return "-"
    return f"{f.format(statistics.median(xs))} [{f.format(xs[0])}-{f.format(xs[-1])}]"


def ends(rs, keys):
    return "/".join(str(sum(int(r["last"].get(k, 0)) for r in rs)) for k in keys)


def score(r):
    m = bench.metrics(r)
    if bench.is_tpba(r["variant"]):
        m.update(breakdown(r, bench.WARMUP, bench.JOIN))
    return m


def main(argv):
    pairs = "--pairs" in argv
    runs = [r for p in argv if p != "--pairs" for r in json.load(open(p)) if r.get("ok")]
    rows = {}
    for r in runs:
        rows.setdefault((r["b"], r["ntcp"]), {}).setdefault(r["variant"], []).append((r, score(r)))
    if pairs:
        print("| case | trials | new f over means higher | new share nearer 1 | new UDP share higher |")
        print("|---|---|---|---|---|")
        for (b, n), d in sorted(rows.items()):
            old = {r["trial"]: m for r, m in d.get(OLD, [])}
            new = {r["trial"]: m for r, m in d.get(NEW, [])}
            ts = sorted(set(old) & set(new))
            w = lambda f: sum(1 for t in ts if f(new[t], old[t]))  # noqa: E731
            print(f"| {b / 1e6:g} Mbit/s, {n} cubic | {len(ts)} | "
                  f"{w(lambda a, o: a['f_means'] > o['f_means'])} | "
                  f"{w(lambda a, o: abs(a['share1'] - 1) < abs(o['share1'] - 1))} | "
                  f"{w(lambda a, o: a['udp_share'] > o['udp_share'])} |")
        return
    print("| case | variant | runs | f over mean rates | f per 1 s | share of fair | UDP share "
          "| kept / TCP | probing s | running s | probing ended: criterion/max-cycles/never "
          "| running ended: timer/reductions |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for (b, n), d in sorted(rows.items()):
        first = True
        for v in sorted(d, key=lambda v: (v == "TCP", v)):
            ms = [m for _, m in d[v]]
            rs = [r for r, _ in d[v]]
            case = f"{b / 1e6:g} Mbit/s, {n} cubic" if first else ""
            first = False
            if not bench.is_tpba(v):
                print(f"| {case} | {v} | {len(ms)} | {cell([m['f_means'] for m in ms], '{:.3f}')} | "
                      f"{cell([m['f1'] for m in ms], '{:.3f}')} | {cell([m['share1'] for m in ms])} "
                      "| - | - | - | - | - | - |")
                continue
            never = sum(1 for m in ms if m["open_probe"])
            print(f"| {case} | {v} | {len(ms)} | {cell([m['f_means'] for m in ms], '{:.3f}')} | "
                  f"{cell([m['f1'] for m in ms], '{:.3f}')} | {cell([m['share1'] for m in ms])} | "
                  f"{cell([m['udp_share'] for m in ms])} | {cell([m['kept_bias'] for m in ms])} | "
                  f"{cell([m['t_probe'] for m in ms], '{:.0f}')} | "
                  f"{cell([m['t_run'] for m in ms], '{:.0f}')} | "
                  f"{ends(rs, ['probe-end-criterion', 'probe-end-max-cycles'])}/{never} | "
                  f"{ends(rs, ['run-end-timer', 'run-end-reductions'])} |")


if __name__ == "__main__":
    main(sys.argv[1:])
