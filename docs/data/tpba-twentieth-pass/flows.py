#!/usr/bin/env python3
"""The twentieth pass (docs/results.md, issue 17): in the reference runs (a TCP
flow in TPBA's place), each TCP flow's share of the fair rate, loss events a
second, mean RTT (ms) and mean cwnd (segments) over the steady window
[WARMUP, JOIN), from the bench's `ss -ti` samples (BENCH_TPBA_SS) and rates.
Flows are ranked by the time they first appear in `ss` (their start order),
so a deficit that follows the start order shows apart from one that follows
the port (5004 is the flow in TPBA's place, 6000.. the flows beside it).
Runs made with BENCH_TPBA_REF_START (this pass) are grouped by it.
Loss events as the eighteenth pass's shared.py counts them.
--pooled: per case all runs pooled, by start order only, with how often the
flow in TPBA's place was the one that started so.
Usage: BENCH_TPBA_TIMES=80,65,75 flows.py [--pooled | --variant TCP] RUNS.json ..."""
import importlib.util
import json
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "shared18", os.path.join(HERE, "..", "tpba-eighteenth-pass", "shared.py"))
shared = importlib.util.module_from_spec(spec)
spec.loader.exec_module(shared)

WARMUP = 10
JOIN = int(os.environ.get("BENCH_TPBA_TIMES", "80,65,75").split(",")[1])
REF_PORT = "5004"


def flow_row(run, port, k):
    """(share of fair, events/s, mean RTT ms, mean cwnd, start s) of one flow; its
    start is when its first bytes arrived where the run stored it (this pass),
    else when it first showed in `ss` (100 ms steps)."""
    samples = run["ss"][port]
    ev = shared.loss_events(samples)
    e, rtt = shared.span_stats(samples, ev, WARMUP, JOIN)
    cw = [c for t, _, c, *_ in samples if WARMUP <= t < JOIN and c > 0]
    rate = statistics.mean(run["R"][k][WARMUP:JOIN])
    fair = run["b"] / (run["ntcp"] + 1)
    start = run["first_bytes"][k] if run.get("first_bytes") else samples[0][0]
    return rate / fair, e, rtt * 1000, statistics.mean(cw), start


def run_rows(run):
    """{port: flow_row} of the flows active over the whole window (the joiner left out)."""
    ports = [REF_PORT] + [str(6000 + k) for k in range(run["ntcp"])]
    return {p: flow_row(run, p, k) for k, p in enumerate(ports) if p in run["ss"]}


def by_start(rows, case):
    """Rows of the flows by start order, pooled over the runs given."""
    n = len(rows[0])
    rows = [rr for rr in rows if len(rr) == n]
    ranked = [sorted(rr.items(), key=lambda kv: kv[1][4]) for rr in rows]
    for i in range(n):
        vals = [r[i][1] for r in ranked]
        ref = sum(1 for r in ranked if r[i][0] == REF_PORT)
        lowest = sum(1 for r in ranked if r[i][1][0] == min(v[0] for _, v in r))
        d_rtt = [r[i][1][2] - r[0][1][2] for r in ranked]
        above = sum(1 for d in d_rtt if d > 0)
        print(f"| {case} | {len(vals)} | started #{i + 1} | {med([v[0] for v in vals]):.2f} | "
              f"{med([v[1] for v in vals]):.2f} | {med([v[2] for v in vals]):.0f} | "
              f"{med([v[3] for v in vals]):.1f} | {med([v[4] for v in vals]):.3f} | "
              f"{med(d_rtt):+.1f} ({above}) | {lowest} | {ref} |")


def med(xs):
    return statistics.median(xs) if xs else float("nan")


def main(args):
    variant = "TCP"
    if args[:1] == ["--variant"]:
        variant, args = args[1], args[2:]
    runs = [r for p in args for r in json.load(open(p))
            if r["variant"] == variant and r.get("ok") and r.get("ss")]
    by_case = {}
    for r in runs:
        arm = f", ref-start {r['ref_start']:+g} s" if "ref_start" in r else ""
        by_case.setdefault(f"{r['ntcp']} {r['cc']}{arm}", []).append(r)
    print("| case | runs | flow | share of fair | loss events 1/s | RTT ms | cwnd | "
          "start, s | runs it was lowest in share |\n|---|---|---|---|---|---|---|---|---|")
    for case, rs in by_case.items():
        rows = [run_rows(r) for r in rs]
        keys = [("port " + p, lambda rr, p=p: rr.get(p)) for p in sorted(rows[0])]
        # by start order: the i-th flow to appear in ss
        n = len(rows[0])
        keys += [(f"started #{i + 1}",
                  lambda rr, i=i: sorted(rr.values(), key=lambda v: v[4])[i]
                  if len(rr) == n else None) for i in range(n)]
        for name, get in keys:
            vals = [get(rr) for rr in rows]
            vals = [v for v in vals if v]
            lowest = sum(1 for rr in rows if get(rr) and len(rr) == n and
                         get(rr)[0] == min(v[0] for v in rr.values()))
            print(f"| {case} | {len(vals)} | {name} | {med([v[0] for v in vals]):.2f} | "
                  f"{med([v[1] for v in vals]):.2f} | {med([v[2] for v in vals]):.0f} | "
                  f"{med([v[3] for v in vals]):.1f} | {med([v[4] for v in vals]):.3f} | "
                  f"{lowest} |")


def pooled(args):
    """Per case, every run pooled (whatever its arm): the flows by start order,
    and how often the flow in TPBA's place was that one."""
    runs = [r for p in args for r in json.load(open(p))
            if r["variant"] == "TCP" and r.get("ok") and r.get("ss")]
    by_case = {}
    for r in runs:
        by_case.setdefault(f"{r['ntcp']} {r['cc']}", []).append(run_rows(r))
    print("| case | runs | flow | share of fair | loss events 1/s | RTT ms | cwnd | start, s | "
          "RTT - first starter's, ms (runs above 0) | runs it was lowest in share | "
          "runs it was the flow in TPBA's place |\n"
          "|---|---|---|---|---|---|---|---|---|---|---|")
    for case, rows in by_case.items():
        by_start(rows, case)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--pooled"]:
        pooled(sys.argv[2:])
    else:
        main(sys.argv[1:])
