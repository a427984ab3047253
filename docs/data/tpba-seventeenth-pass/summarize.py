#!/usr/bin/env python3
"""The seventeenth pass's tables (docs/results.md): the sixteenth pass's
(summarize.py there, imported, and through it the fifteenth's and
fourteenth's) with this pass's variant named, then per case and TPBA variant
what the equation saw: periods that kept it and that fell back to the
probe's rate (the sink's kept-by-equation and equation-fallbacks at the
run's end), and over the periods that kept it the median [range] of the loss
event rate p, the mean RTT R (ms) and, for every variant, the probe's
retransmitted fraction p-probe (one value per running period, from the
sink's 1 s samples).
--pairs A B: variant B against A in the same trial (the fourteenth's).
Usage: BENCH_TPBA_TIMES=80,65,75 summarize.py [--pairs A B] RUNS.json ..."""
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "summarize16", os.path.join(HERE, "..", "tpba-sixteenth-pass", "summarize.py"))
s16 = importlib.util.module_from_spec(spec)
spec.loader.exec_module(s16)
s15, s14 = s16.s15, s16.s14

s14.LABEL.update({
    "TPBA-ours-cap6-ratio3-step1-ceil2-eq": "ceiling 2, equation",
    "TPBA-ours-cap6-ratio3-step1-ceil2-eqep": "ceiling 2, equation-episodes",
})


def per_period(run):
    """One (p-probe, p, R ns) per running period, as its samples show them."""
    seen, out = set(), []
    for t, period, _, p_probe, p, rtt, _ in run.get("tcp", []):
        if period != "running":
            continue
        key = (p_probe, p, rtt)
        if key not in seen:
            seen.add(key)
            out.append(key)
    return out


def equation(rows):
    print("| case | variant | runs | kept the equation / fell back | loss event rate p "
          "| mean RTT R, ms | p-probe |")
    print("|---|---|---|---|---|---|---|")
    for (bw, cc, n), d in sorted(rows.items()):
        for v in sorted(d):
            if not s14.bench.is_tpba(v):
                continue
            runs = [r for r, _ in d[v]]
            kept = sum(int(r["last"].get("kept-by-equation", 0)) for r in runs)
            back = sum(int(r["last"].get("equation-fallbacks", 0)) for r in runs)
            pp = [x for r in runs for x in per_period(r)]
            ps = [p for _, p, _ in pp if p > 0]
            rtts = [rtt / 1e6 for _, _, rtt in pp if rtt > 0]
            probe = [x for x, _, _ in pp if x >= 0]
            print(f"| {bw / 1e6:g} Mbit/s, {n} {cc} | {s14.LABEL.get(v, v)} | {len(runs)} | "
                  f"{kept} / {back} | {s14.cell(ps, '{:.3f}')} | {s14.cell(rtts, '{:.0f}')} | "
                  f"{s14.cell(probe, '{:.3f}')} |")


def main(argv):
    if argv[:1] == ["--pairs"]:
        s14.main(argv)
        return
    rows = s14.load(argv)
    s14.table(rows)
    print()
    s15.goals(rows)
    print()
    equation(rows)


if __name__ == "__main__":
    main(sys.argv[1:])
