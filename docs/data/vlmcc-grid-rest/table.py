#!/usr/bin/env python3
"""table.py: the tables of docs/results.md "VLMCC: the cells not run before"
from the p*.json files here: per cell and scheme the median over trials of
Jain's f over mean rates, the median f per 1 s and the share of the fair rate
(rates over 15-80 s, as the bench computes them), then the shares trial by
trial in the order run, with the load the bench noted after each run and, for
VLMCC, the sink's state."""
import glob
import os
import re
import statistics
import sys

os.environ["BENCH_VLMCC_TIMES"] = "80,15"
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "tests", "bench"))
import bench_vlmcc_fairness as bench  # noqa: E402
import json  # noqa: E402

SCHEMES = ["VLMCC", "VLMCC-vplus", "TCP", "TFMCC"]
CELLS = [("tbf", 4), ("red", 2), ("red", 4), ("codel", 2)]


def loads(log):
    """The load the bench printed at the end of each run of a call, in order."""
    with open(log) as fp:
        return [float(m.group(1)) for m in
                re.finditer(r"^# \d+ s: .*; load ([0-9.]+)$", fp.read(), re.M)]


def trials():
    """{(qdisc, ntcp): {scheme: [(metrics, load), ...]}} over the phases in order."""
    out = {}
    for path in sorted(glob.glob(os.path.join(HERE, "p*.json"))):
        runs = json.load(open(path))
        ld = loads(path[:-5] + ".log")
        for i, run in enumerate(runs):
            if not run["ok"]:
                continue
            m = bench.metrics(run)
            load = ld[i] if i < len(ld) else float("nan")
            m["sink"] = run.get("sink") or {}
            out.setdefault((run["qdisc"], run["ntcp"]), {}).setdefault(
                run["scheme"], []).append((m, load))
    return out


def trial_cell(m, load):
    """share (f over means; for VLMCC the sink's median W, halvings and the
    receiver's losses over 15-80 s; the load at the run's end)."""
    k = m["sink"]
    sink = (f"W {k['window']:.0f}, {k['loss_based']:.0%} loss-based, {k['halvings']} halvings, {k.get('rx_lost', '-')} lost; "
            if "window" in k else "")
    return f"{m['share']:.2f} ({m['f_means']:.3f}; {sink}load {load:.1f})"


def main():
    t = trials()
    print("| bottleneck, flows | " + " | ".join(SCHEMES) + " |")
    print("|---|" + "---|" * len(SCHEMES))
    for cell in CELLS:
        d = t.get(cell, {})
        row = []
        for s in SCHEMES:
            ms = [m for m, _ in d.get(s, [])]
            row.append("-" if not ms else " / ".join(
                f"{statistics.median(m[k] for m in ms):{spec}}"
                for k, spec in (("f_means", ".3f"), ("f_window", ".3f"), ("share", ".2f")))
                + f" ({len(ms)})")
        print(f"| {cell[0]} 2 Mbit/s, {cell[1]} cubic | " + " | ".join(row) + " |")
    print()
    print("| bottleneck, flows | " + " | ".join(SCHEMES) + " |")
    print("|---|" + "---|" * len(SCHEMES))
    for cell in CELLS:
        d = t.get(cell, {})
        row = [", ".join(trial_cell(m, ld) for m, ld in d.get(s, [])) or "-"
               for s in SCHEMES]
        print(f"| {cell[0]} 2, {cell[1]} cubic | " + " | ".join(row) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
