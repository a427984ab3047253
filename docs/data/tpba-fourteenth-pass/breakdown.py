#!/usr/bin/env python3
"""Where TPBA's time and bytes go (docs/results.md, thirteenth pass): per run
of bench-tpba-fairness.py, from the sink's period decisions and the
receiver's UDP/total bytes over [WARMUP, JOIN) (JOIN from BENCH_TPBA_TIMES, 45): seconds and bytes in probing
and in running, how many periods, how each probing period ended (the sink's
`probe-end-*` counters when present, else: decided running = a criterion,
still probing at the end = never), how each running period ended (its length
against t-running, or the sink's `run-end-*` counters).
Usage: breakdown.py [--runs] RUNS.json ..."""
import json
import os
import statistics
import sys

WARMUP = 10
JOIN = int(os.environ.get("BENCH_TPBA_TIMES", "90,45,70").split(",")[1])


def spans(run, end):
    """[(start, end, period)] of the sink's periods (it starts probing at 0)."""
    out, t0, p = [], 0.0, "probing"
    for t, q, _ in run["periods"]:
        if q != p:
            out.append((t0, t, p))
            t0, p = t, q
    out.append((t0, end, p))
    return out


def breakdown(run, lo, hi):
    R, U = run["R"][0], run["U"]
    tot = sum(R[lo:hi])
    udp = sum(U[lo:hi])
    sp = spans(run, len(R))
    t_run = sum(max(0.0, min(b, hi) - max(a, lo)) for a, b, p in sp if p == "running")
    probes = [(a, b) for a, b, p in sp if p == "probing"]
    runs = [(a, b) for a, b, p in sp if p == "running"]
    last = run.get("last", {})
    return dict(
        t_probe=(hi - lo) - t_run, t_run=t_run,
        udp_share=udp / tot if tot else None,
        rate_probe=(tot - udp) / ((hi - lo) - t_run) if (hi - lo) - t_run > 1 else None,
        rate_run=udp / t_run if t_run > 1 else None,
        n_probe=len(probes), n_run=len(runs),
        probe_len=[b - a for a, b in probes[:-1] or probes],
        open_probe=sp[-1][2] == "probing",
        first_probe=probes[0][1] - probes[0][0],
        run_len=[b - a for a, b in runs[:-1]],
        ends={k: v for k, v in last.items() if k.startswith(("probe-end", "run-end"))},
        cycles=int(last.get("n-r", 0)))


def med(xs, f="{:.1f}"):
    xs = sorted(xs)
    if not xs:
        return "-"
    return f.format(statistics.median(xs)) + " [" + f.format(xs[0]) + "-" + f.format(xs[-1]) + "]"


def main(argv):
    show_runs = "--runs" in argv
    paths = [a for a in argv if a != "--runs"]
    runs = [r for p in paths for r in json.load(open(p))
            if r.get("ok") and r["variant"].startswith("TPBA")]
    cells = {}
    for r in runs:
        hi = min(JOIN, len(r["R"][0]))
        b = breakdown(r, WARMUP, hi)
        cells.setdefault((r["b"], r["ntcp"], r["variant"]), []).append(b)
        if show_runs:
            print(f"{r['b'] / 1e6:g}M {r['ntcp']}c {r['variant']} t{r['trial']}: "
                  f"probing {b['t_probe']:.1f} s running {b['t_run']:.1f} s, "
                  f"UDP share {b['udp_share']:.2f}, {b['n_probe']} probing "
                  f"(first {b['first_probe']:.1f} s, {'never ended' if b['open_probe'] else 'ended'} last), "
                  f"{b['n_run']} running {['%.1f' % x for x in b['run_len']]} {b['ends']}")
    print(f"| case | variant | runs | probing s in [10, {JOIN}) | running s | UDP share | "
          "first probing s | runs that never left probing | probing periods that ended "
          "| later probing s | running s (ended) | kbit/s probing / running |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for (b, n, v), bs in sorted(cells.items()):
        ended = sum(x["n_probe"] - (1 if x["open_probe"] else 0) for x in bs)
        allp = sum(x["n_probe"] for x in bs)
        never = sum(1 for x in bs if x["n_run"] == 0)
        later = [l for x in bs for l in x["probe_len"][1:]]
        print(f"| {b / 1e6:g} Mbit/s, {n} cubic | {v} | {len(bs)} | {med([x['t_probe'] for x in bs])} | "
              f"{med([x['t_run'] for x in bs])} | {med([x['udp_share'] for x in bs], '{:.2f}')} | "
              f"{med([x['first_probe'] for x in bs])} | {never} | {ended} of {allp} | "
              f"{med(later)} | {med([l for x in bs for l in x['run_len']])} | "
              f"{med([x['rate_probe'] / 1e3 for x in bs if x['rate_probe']], '{:.0f}')} / "
              f"{med([x['rate_run'] / 1e3 for x in bs if x['rate_run']], '{:.0f}')} |")


if __name__ == "__main__":
    main(sys.argv[1:])
