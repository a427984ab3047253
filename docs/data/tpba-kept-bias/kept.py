#!/usr/bin/env python3
"""Issue 17, the kept rate's bias (docs/results.md, "Issue 17: the kept rate against
the TCP flows over the same probing period"). For each TPBA run, every probing period
the bench scores (after the first, ended before JOIN: the bench's kept_spans): r_s, the
TCP flows' mean rate and TPBA's own rate at the receivers over the period's whole 1 s
windows (kbit/s), r_s over each; then, per cell and arm, the medians over the runs of
the bench's kept_bias (r_s / TCP) and kept_own (r_s / TPBA), and TPBA / TCP in the
k-th whole second of a probing period (the bench's probe_ratios) pooled over the runs.
Usage: BENCH_TPBA_TIMES=80,65,75 kept.py RUN.json ..."""
import importlib.util
import json
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.join(HERE, "..", "..", "..", "tests", "bench")
sys.path.insert(0, BENCH)               # the bench imports its neighbours
spec = importlib.util.spec_from_file_location(
    "bench", os.path.join(BENCH, "bench-tpba-fairness.py"))
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)


def med(xs):
    xs = [x for x in xs if x is not None]
    return (f"{statistics.median(xs):.2f} [{min(xs):.2f}-{max(xs):.2f}]") if xs else "-"


def main(paths):
    groups = {}
    print("| file | arm | r_s kbit/s | TCP kbit/s | TPBA kbit/s | r_s / TCP | r_s / TPBA |\n"
          "|---|---|---|---|---|---|---|")
    for p in paths:
        for run in json.load(open(p)):
            if not run.get("ok") or not bench.is_tpba(run["variant"]):
                continue
            key = (f"{run['b'] / 1e6:g} Mbit/s, {run['ntcp']} {run['cc']}", run["variant"])
            groups.setdefault(key, []).append(run)
            for r_s, tcp, own in bench.kept_spans(run):
                print(f"| {os.path.basename(p)} | {run['variant']} | {r_s / 1e3:.0f} | "
                      f"{tcp / 1e3:.0f} | {own / 1e3:.0f} | {r_s / tcp:.2f} | {r_s / own:.2f} |")
    print("\n| cell | arm | runs | r_s / TCP (kept_bias) | r_s / TPBA (kept_own) | "
          "TPBA / TCP in probing second 1 | 2 | 3 | 4 | 5 |\n" + "|---" * 10 + "|")
    for (case, arm), runs in sorted(groups.items()):
        k = [x for r in runs for x in bench.probe_ratios(r)]
        by_k = [med([v for i, v in k if i == n]) for n in range(1, 6)]
        print(f"| {case} | {arm} | {len(runs)} | {med([bench.kept_bias(r) for r in runs])} | "
              f"{med([bench.kept_own(r) for r in runs])} | {' | '.join(by_k)} |")


if __name__ == "__main__":
    main(sys.argv[1:])
