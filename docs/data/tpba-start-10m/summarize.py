#!/usr/bin/env python3
"""Issue 17 at 10 Mbit/s and +160 ms (docs/results.md, "Issue 17: the start rule at
10 Mbit/s and at +160 ms RTT"): per case, flow in TPBA's place (the recommended
line or the TCP reference) and start arm, medians [ranges] of the bench's own
metrics (share of fair, Jain's f over the mean rates and per 1 s in [WARMUP, JOIN),
UDP share, kept / TCP), how many runs lost a first window (a flow's first bytes more
than LATE s after the earliest flow's), and how long after the flow in TPBA's place
was seen connecting the TCP flows began to send (ms). Then, per case and flow, in
how many trials "together" had the share nearer 1 and the higher f.
Usage: BENCH_TPBA_TIMES=80,65,75 summarize.py RUN.json ..."""
import importlib.util
import json
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.join(HERE, "..", "..", "..", "tests", "bench")
sys.path.insert(0, BENCH)
spec = importlib.util.spec_from_file_location(
    "bench", os.path.join(BENCH, "bench-tpba-fairness.py"))
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)

LATE = 0.5      # s after the earliest flow's first bytes: a lost first window


def cell(xs, spec=".2f"):
    xs = [x for x in xs if x is not None]
    if not xs:
        return "-"
    return (f"{format(statistics.median(xs), spec)} "
            f"[{format(min(xs), spec)}-{format(max(xs), spec)}]")


def late(run):
    """(the flow in TPBA's place lost its first window, a TCP flow did)."""
    n, fb = run["ntcp"], run.get("first_bytes") or []
    fb = [x for x in fb[:n + 1]]
    if not fb or None in fb:
        return (None, None)
    first = min(fb)
    return (fb[0] - first > LATE, any(x - first > LATE for x in fb[1:]))


def send_lag(run):
    """ms from the flow in TPBA's place seen connecting to the TCP flows' first send."""
    n, conn = run["ntcp"], run.get("connects")
    seen = run.get("ref_seen") if run["variant"] == "TCP" else (conn or [None])[0]
    if not conn or seen is None or None in conn[1:n + 1]:
        return None
    return (min(conn[1:n + 1]) - seen) * 1000


def case_name(r):
    rtt = f", +{r['rtt']} ms" if r["rtt"] else ""
    return f"{r['b'] / 1e6:g} Mbit/s, {r['ntcp']} {r['cc']}{rtt}"


def flow(r):
    return "TCP ref" if r["variant"] == "TCP" else "TPBA"


def main(paths):
    runs = [r for p in paths for r in json.load(open(p)) if r.get("ok")]
    groups = {}
    for r in runs:
        groups.setdefault((case_name(r), flow(r), r["start"]), []).append(r)
    print("| case | flow | start | runs | share of fair | f, mean rates | f per 1 s | "
          "UDP share | kept / TCP | first window lost: own / a TCP flow's | "
          "TCP flows' send after its connect, ms |\n" + "|---" * 11 + "|")
    for key, rs in sorted(groups.items()):
        ms = [bench.metrics(r) for r in rs]
        lt = [late(r) for r in rs]
        print(f"| {' | '.join(key)} | {len(rs)} | {cell([m['share1'] for m in ms])} | "
              f"{cell([m['f_means'] for m in ms], '.3f')} | {cell([m['f1'] for m in ms], '.3f')} | "
              f"{cell([m['udp_share'] for m in ms])} | {cell([m['kept_bias'] for m in ms])} | "
              f"{sum(1 for a, _ in lt if a)} / {sum(1 for _, b in lt if b)} | "
              f"{cell([send_lag(r) for r in rs], '.0f')} |")
    print("\n| case | flow | trials with both arms | share nearer 1 with together | "
          "f, mean rates higher with together |\n|---|---|---|---|---|")
    for case, fl in sorted({(c, f) for c, f, _ in groups}):
        by = {a: {r["trial"]: bench.metrics(r) for r in groups.get((case, fl, a), [])}
              for a in ("together", "before")}
        ts = sorted(set(by["together"]) & set(by["before"]))
        near = sum(abs(by["together"][t]["share1"] - 1) < abs(by["before"][t]["share1"] - 1)
                   for t in ts)
        higher = sum(by["together"][t]["f_means"] > by["before"][t]["f_means"] for t in ts)
        print(f"| {case} | {fl} | {len(ts)} | {near} | {higher} |")


if __name__ == "__main__":
    main(sys.argv[1:])
