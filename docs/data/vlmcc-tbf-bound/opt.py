#!/usr/bin/env python3
"""opt.py: the table of docs/results.md "VLMCC: vplus with plus-loss-segment and
plus-recovery-hold together, 3 trials beside 2 and 4 cubic flows" from the
o*.json files here (opt.sh). Share of fair and Jain's f over mean rates per
arm: median and range over the trials, with the load after each run."""
import statistics

import table  # the same folder: its runs() and figures()

ARMS = ["VLMCC-vplus", "VLMCC-vplus-seg-hold", "TCP"]


def cells(pattern):
    by = {}
    for run, load in table.runs(pattern):
        if run["ok"]:
            by.setdefault((run["qdisc"], run["ntcp"]), {}).setdefault(
                run["scheme"], []).append((table.figures(run), load))
    return by


def spread(xs, spec):
    return (f"{format(statistics.median(xs), spec)} "
            f"({format(min(xs), spec)}-{format(max(xs), spec)})")


def main():
    print("| cell | arm | trials | share of fair: median (range) | each trial | "
          "f over means: median (range) | cubic flows' shares | arm's loss (median) | load |")
    print("|---|---|---|---|---|---|---|---|---|")
    for pattern in ("o[0-9]*.json", "oc*.json"):
        by = cells(pattern)
        for (q, n) in sorted(by, key=lambda c: (c[0] != "tbf", c)):
            for arm in ARMS:
                got = by[(q, n)].get(arm, [])
                if not got:
                    continue
                fs = [f for f, _ in got]
                cross = [c for f in fs for c in f["cross"]]
                loss = [100 * f["loss"] for f in fs if "loss" in f]
                print(f"| {q}, {n} cubic | {arm} | {len(fs)} | {spread([f['share'] for f in fs], '.2f')} | "
                      + ", ".join(f"{f['share']:.2f}" for f in fs) + " | "
                      f"{spread([f['f'] for f in fs], '.3f')} | {min(cross):.2f}-{max(cross):.2f} | "
                      + (f"{statistics.median(loss):.2f} %" if loss else "-") + " | "
                      + ", ".join(f"{ld:.1f}" for _, ld in got) + " |")


if __name__ == "__main__":
    main()
