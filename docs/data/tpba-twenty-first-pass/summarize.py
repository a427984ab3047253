#!/usr/bin/env python3
"""Issue 17, TPBA's own start (docs/results.md, "Issue 17: TPBA's own start"):
per case and start arm (the run's "start": together, the new default, or
before, the old order), medians [ranges] over the runs of Jain's f over the
flows' mean rates in [WARMUP, JOIN) and per 1 s window (median), TPBA's share of
the fair rate, the UDP share of its bytes and the kept rate against the TCP
flows' (the bench's own metrics); and the start: how long after the bench saw
the sink's connection the TCP flows began to send (ms), the first bytes at the
receivers (TPBA's from tpbasrc's 100 ms stats), how long after the bench saw
the sink's socket it first held unacked data, and in how many runs a flow's
first bytes came more than 0.5 s after the earliest flow's (it lost its first
window and waited out a timeout).
Usage: BENCH_TPBA_TIMES=80,65,75 summarize.py RUNS.json ..."""
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

LATE = 0.5                    # s after the earliest flow's first bytes: a lost first window


def cell(xs, spec=".2f"):
    xs = [x for x in xs if x is not None]
    if not xs:
        return "-"
    return (f"{format(statistics.median(xs), spec)} "
            f"[{format(min(xs), spec)}-{format(max(xs), spec)}]")


def start_figures(run):
    """(ms from the sink's connection seen to the TCP flows' first send, TPBA's
    first bytes s, the TCP flows' first bytes s, TPBA late, a TCP flow late,
    ms from the sink's connection seen to its first unacked data)."""
    conn, fb, n = run.get("connects"), run.get("first_bytes"), run["ntcp"]
    if not conn or conn[0] is None or not fb:
        return None
    lag = (min(conn[1:n + 1]) - conn[0]) * 1000
    tcp_fb = fb[1:n + 1]
    first = min(x for x in fb[:n + 1] if x is not None)
    tx = run.get("tpba_first_tx")
    return (lag, fb[0], tcp_fb, fb[0] - first > LATE,
            any(x - first > LATE for x in tcp_fb),
            (tx - conn[0]) * 1000 if tx is not None else None)


def main(paths):
    runs = [r for p in paths for r in json.load(open(p)) if r.get("ok")]
    groups = {}
    for r in runs:
        groups.setdefault((f"{r['b'] / 1e6:g} Mbit/s, {r['ntcp']} {r['cc']}",
                           r.get("start", "before")), []).append(r)
    print("| case | start | runs | f over mean rates | f per 1 s | share of fair | "
          "UDP share | kept / TCP |\n|---|---|---|---|---|---|---|---|")
    for (case, arm), rs in sorted(groups.items()):
        ms = [bench.metrics(r) for r in rs]
        print(f"| {case} | {arm} | {len(rs)} | {cell([m['f_means'] for m in ms], '.3f')} | "
              f"{cell([m['f1'] for m in ms], '.3f')} | {cell([m['share1'] for m in ms])} | "
              f"{cell([m['udp_share'] for m in ms])} | {cell([m['kept_bias'] for m in ms])} |")
    print("\n| case | start | runs | TCP flows' first send after the sink's connection, ms | "
          "sink's first data after its connection, ms | "
          "TPBA's first bytes, s | TCP flows' first bytes, s | runs TPBA late | "
          "runs a TCP flow late |\n|---|---|---|---|---|---|---|---|---|")
    for (case, arm), rs in sorted(groups.items()):
        st = [s for s in map(start_figures, rs) if s]
        print(f"| {case} | {arm} | {len(st)} | {cell([s[0] for s in st], '.0f')} | "
              f"{cell([s[5] for s in st], '.0f')} | {cell([s[1] for s in st], '.2f')} | "
              f"{cell([x for s in st for x in s[2]], '.2f')} | {sum(s[3] for s in st)} | "
              f"{sum(s[4] for s in st)} |")
    pairs(groups)


def pairs(groups):
    """Per case, over the trials with both arms: in how many "together" had
    the share of fair nearer 1 and the higher f over mean rates."""
    print("\n| case | trials with both arms | share nearer 1 with together | "
          "f over mean rates higher with together |\n|---|---|---|---|")
    for case in sorted({c for c, _ in groups}):
        by_arm = {arm: {r["trial"]: bench.metrics(r) for r in groups.get((case, arm), [])}
                  for arm in ("together", "before")}
        trials = sorted(set(by_arm["together"]) & set(by_arm["before"]))
        near = sum(abs(by_arm["together"][t]["share1"] - 1) < abs(by_arm["before"][t]["share1"] - 1)
                   for t in trials)
        higher = sum(by_arm["together"][t]["f_means"] > by_arm["before"][t]["f_means"]
                     for t in trials)
        print(f"| {case} | {len(trials)} | {near} | {higher} |")


if __name__ == "__main__":
    main(sys.argv[1:])
