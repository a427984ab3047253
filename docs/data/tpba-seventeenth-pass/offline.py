#!/usr/bin/env python3
"""Step 2 of the seventeenth pass (docs/results.md), offline: what TCP's
throughput equation (RFC 5348 section 3.1, b = 1, t_RTO = 4 R) would have
kept on stored runs, before any bed time. The stored runs (fourteenth to
sixteenth passes) lack what kept-rate=equation uses, so it is approximated:
p is the period's retransmitted fraction p-probe (retransmitted over data
segments sent in the cycles after the first; a packet loss rate, at least
the loss event rate, so the equation comes out at most what it would with
the event rate), read from the first running sample after the period; R is
the run's last tcp-rtt (the runs store the RTT only at their end); s is
1448 bytes (a full segment on the bed's 1500-byte MTU). For every probing
period after a run's first that ended before JOIN: the equation's rate and
the kept r_s over the TCP flows' mean over the period's whole 1 s windows
(as summarize.py's kept_ratios); per run the median, then per case and
variant the median of the run medians [range] and runs within 0.9-1.1.
Usage: BENCH_TPBA_TIMES=80,65,75 offline.py RUNS.json ..."""
import importlib.util
import json
import math
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "cycles14", os.path.join(HERE, "..", "tpba-fourteenth-pass", "cycles.py"))
cycles = importlib.util.module_from_spec(spec)
spec.loader.exec_module(cycles)

SEGMENT = 1448


def equation(s, rtt, p):
    """RFC 5348 3.1, bits/s."""
    return 8 * s / (rtt * math.sqrt(2 * p / 3)
                    + 4 * rtt * 3 * math.sqrt(3 * p / 8) * p * (1 + 32 * p * p))


def p_after(run, t1):
    """p-probe of the first running sample after t1 (the sink's samples and
    the losses list hold the running samples in the same order)."""
    k = 0
    for t, period, _, _ in run["sink"]:
        if period != "running":
            continue
        if t > t1 and k < len(run["losses"]):
            return run["losses"][k][1]
        k += 1
    return -1


def periods(run):
    rtt = int(run["last"].get("tcp-rtt", -1)) / 1e9
    for t0, t1, r_s, tcp in cycles.judged_periods(run):
        p = p_after(run, t1)
        if tcp > 1e3 and p > 0 and rtt > 0:
            yield r_s / tcp, equation(SEGMENT, rtt, p) / tcp, p


def cell(meds):
    meds = sorted(meds)
    return (f"{statistics.median(meds):.2f} [{meds[0]:.2f}-{meds[-1]:.2f}], "
            f"{sum(0.9 <= m <= 1.1 for m in meds)} within")


def main(argv):
    cells = {}
    for path in argv:
        for run in json.load(open(path)):
            if not run.get("ok") or "sink" not in run or not run["variant"].startswith("TPBA"):
                continue
            ps = list(periods(run))
            if ps:
                key = (run["b"], run["ntcp"], run["cc"], run["variant"])
                cells.setdefault(key, []).append(ps)
    print("| case | stored variant | runs | periods | kept r_s / TCP | equation / TCP "
          "| p-probe (median) |")
    print("|---|---|---|---|---|---|---|")
    for (b, n, cc, v), runs in sorted(cells.items()):
        kept = [statistics.median(k for k, _, _ in r) for r in runs]
        eq = [statistics.median(e for _, e, _ in r) for r in runs]
        p = statistics.median(x for r in runs for _, _, x in r)
        print(f"| {b / 1e6:g} Mbit/s, {n} {cc} | "
              f"{v.replace('TPBA-ours-cap6-ratio3-step1-', '')} | {len(runs)} | "
              f"{sum(len(r) for r in runs)} | {cell(kept)} | {cell(eq)} | {p:.3f} |")


if __name__ == "__main__":
    main(sys.argv[1:])
