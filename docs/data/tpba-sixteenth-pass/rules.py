#!/usr/bin/env python3
"""Step 1 of the sixteenth pass (docs/results.md): candidate kept rates for a
probe bounded by max-probe-cycles, checked on stored runs before any bed
time. A probing period's cycles r[i] are read from the sender's 1 s
tpba-stats samples (during probing the sink is offered r[i] (1 +
probe_headroom), headroom 0.25): the sample after cycle i ended holds r[i];
the last cycle ends the period and is not sampled, but with max-probe-peak
it is r_s when r_s is above the sampled ones. For every probing period after
a run's first that ended before JOIN, each rule's kept rate over the TCP
flows' mean over the period's whole 1 s windows; per run the median (as
bench-tpba-fairness.py's kept_bias), then per case and stored variant the
median of the run medians [range], how many runs and periods fall in
0.9-1.1. --runs prints every run.
Usage: BENCH_TPBA_TIMES=80,65,75 rules.py [--runs] RUNS.json ..."""
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

HEADROOM = 1.25


def rise(x):
    """The least-squares slope of x (oldest first) per cycle, as tpbacore's
    rate_rise has it up to the factor n - 1: its sign is all a rule uses."""
    n = len(x)
    mi, mx = (n - 1) / 2, sum(x) / n
    sxx = sum((i - mi) ** 2 for i in range(n))
    return sum((i - mi) * (v - mx) for i, v in enumerate(x)) / sxx if sxx else 0.0


def later_median(x):
    return statistics.median(x[len(x) // 2:])


RULES = {
    "median (ceiling 2)": statistics.median,
    "peak (max-probe-peak)": max,
    "last cycle": lambda x: x[-1],
    "mean of the two largest": lambda x: sum(sorted(x)[-2:]) / 2,
    "mean of peak and median": lambda x: (max(x) + statistics.median(x)) / 2,
    "peak if not rising, else later median": lambda x: max(x) if rise(x) <= 0
    else later_median(x),
    "peak if rising, else later median": lambda x: max(x) if rise(x) >= 0
    else later_median(x),
}


def probe_cycles(run, t0, t1, r_s):
    """r[1..] of the probing period [t0, t1), as the sender's samples show them."""
    xs = [rate / HEADROOM for t, p, rate, _ in run["sink"] if t0 < t < t1 and p == "probing"]
    xs = xs[2:]        # the rate before cycle 0 ended, then r[0]
    if "peak" in run["variant"] and xs and r_s > max(xs) * 1.001:
        xs.append(r_s)
    return xs


def periods(run):
    for t0, t1, r_s, tcp in cycles.judged_periods(run):
        xs = probe_cycles(run, t0, t1, r_s)
        if tcp > 1e3 and len(xs) >= 3:
            yield r_s / tcp, [x / tcp for x in xs]


def main(argv):
    show_runs = argv[:1] == ["--runs"]
    argv = argv[1:] if show_runs else argv
    cells = {}
    for path in argv:
        for run in json.load(open(path)):
            if not run.get("ok") or "sink" not in run or "cap8" in run["variant"]:
                continue
            ps = list(periods(run))
            if not ps:
                continue
            per_rule = {k: [f(xs) for _, xs in ps] for k, f in RULES.items()}
            per_rule["kept (stored r_s)"] = [k for k, _ in ps]
            key = (run["b"], run["ntcp"], run["cc"], run["variant"])
            cells.setdefault(key, []).append(per_rule)
            if show_runs:
                print(f"{run['b'] / 1e6:g} Mbit/s {run['ntcp']} {run['cc']} {run['variant']} "
                      f"trial {run['trial']}: " + "; ".join(
                          f"{k} {statistics.median(v):.2f}" for k, v in per_rule.items()))
    print("| case | stored variant | rule | runs | kept / TCP (run medians) "
          "| runs within 10 % | periods within 10 % |")
    print("|---|---|---|---|---|---|---|")
    for (b, n, cc, v), runs in sorted(cells.items()):
        for rule in ["kept (stored r_s)"] + list(RULES):
            meds = sorted(statistics.median(r[rule]) for r in runs)
            allp = [x for r in runs for x in r[rule]]
            print(f"| {b / 1e6:g} Mbit/s, {n} {cc} | {v.replace('TPBA-ours-cap6-ratio3-step1-', '')}"
                  f" | {rule} | {len(runs)} | {statistics.median(meds):.2f} "
                  f"[{meds[0]:.2f}-{meds[-1]:.2f}] | {sum(0.9 <= m <= 1.1 for m in meds)} "
                  f"| {sum(0.9 <= x <= 1.1 for x in allp)} of {len(allp)} |")


if __name__ == "__main__":
    main(sys.argv[1:])
