#!/usr/bin/env python3
"""Issue 17, Table 3 inside a running period: the running periods' rate changes at
their adaptation points (read from tpbasink's 1 s stats samples), the period the
join fell in against all other running periods. It shows whether a join makes the
cuts that reprobe-on-reductions counts (>= 20 %) any larger or more frequent than
the cuts beside the steady TCP flow, and when r first fell below BELOW r_s (the
reprobe-below rule, read offline). usage: cuts.py [-v] RUNS.json [...]"""
import json
import statistics
import sys

BELOW = 0.6


def changes(run, t0, t1):
    """The running period [t0, t1)'s rate changes, as r_new / r_old - 1."""
    out, prev = [], None
    for t, period, rate, _ in run["sink"]:
        if t0 < t <= t1 and period == "running":
            if prev and rate != prev:
                out.append(rate / prev - 1)
            prev = rate
    return out


def fell_below(run, t0, t1, r_s):
    """s from t0 to the first 1 s sample of the running period [t0, t1) with the
    rate below BELOW * r_s; None if none."""
    return next((t - t0 for t, period, rate, _ in run["sink"]
                 if t0 < t <= t1 and period == "running" and rate < BELOW * r_s), None)


def main():
    verbose = "-v" in sys.argv
    groups = {}
    for path in (a for a in sys.argv[1:] if a != "-v"):
        for run in json.load(open(path)):
            if "join_at" not in run or not run.get("ok"):
                continue
            per, join = run["periods"], run["join_at"]
            for i, (t0, period, r_s) in enumerate(per):
                if period != "running":
                    continue
                t1 = per[i + 1][0] if i + 1 < len(per) else 1e9
                kind = "join" if t0 <= join < t1 else "other"
                cs = changes(run, t0, t1)
                groups.setdefault((run["variant"], kind), []).append(
                    (cs, fell_below(run, t0, t1, r_s)))
                if verbose:
                    print(run["variant"], run["trial"], f"{t0:.1f}-{min(t1, 999):.1f}",
                          kind, " ".join(f"{c:+.2f}" for c in cs))
    print("| variant | running periods | periods | cuts a period (median) | "
          "cuts >= 20 % a period (median) | cut size (median) | two cuts >= 20 % in a row | "
          f"r below {BELOW} r_s: periods, s into the period |")
    print("|---|---|---|---|---|---|---|---|")
    for (v, kind), both in sorted(groups.items()):
        pers = [cs for cs, _ in both]
        below = sorted(b for _, b in both if b is not None)
        cuts = [[-c for c in cs if c < 0] for cs in pers]
        large = [sum(c >= 0.2 for c in cs) for cs in cuts]
        row2 = sum(any(a <= -0.2 and b <= -0.2 for a, b in zip(cs, cs[1:])) for cs in pers)
        sizes = [c for cs in cuts for c in cs]
        print(f"| {v} | {'the join fell in it' if kind == 'join' else 'all others'} | "
              f"{len(pers)} | {statistics.median(len(c) for c in cuts):.1f} | "
              f"{statistics.median(large):.1f} | "
              f"{statistics.median(sizes) if sizes else 0:.2f} | {row2} of {len(pers)} | "
              f"{len(below)} of {len(pers)}"
              + (f", {below[0]:.1f}-{below[-1]:.1f}" if below else "") + " |")


if __name__ == "__main__":
    main()
