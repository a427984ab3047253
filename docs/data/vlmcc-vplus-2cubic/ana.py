#!/usr/bin/env python3
"""Per run of bench_vlmcc_fairness.py's JSON (BENCH_VLMCC_JSON): the share,
the sink's reductions against the TCP sender's per flow over [15, 50) s,
and the sink window's growth per RTT between reductions (from its 0.5 s
trace, loss-based samples only). Usage: ana.py RUNS.json ..."""
import json
import statistics
import sys

WARMUP, END = 15, 50


def share(run):
    r = run["R"]
    means = [statistics.mean(x[WARMUP:END]) for x in r]
    return means[0] / (run["b"] / (run["ntcp"] + 1)), means


def growth_per_rtt(trace):
    """Median of (W[i+1] - W[i]) / (dt / RTT) over pairs of loss-based
    samples in [WARMUP, END) with no halving between them."""
    g = []
    for a, b in zip(trace, trace[1:]):
        if a[0] < WARMUP or b[0] >= END or not (a[4] and b[4]) or b[6] != a[6]:
            continue
        rtt = a[2] / 1e3
        if rtt > 0:
            g.append((b[1] - a[1]) / ((b[0] - a[0]) / rtt))
    return statistics.median(g) if g else float("nan"), len(g)


for path in sys.argv[1:]:
    for run in json.load(open(path)):
        if not run.get("ok"):
            print(run["scheme"], run["trial"], "FAILED")
            continue
        sh, means = share(run)
        tcp = run.get("tcp", {})
        nflows = run["ntcp"] + (run["scheme"] == "TCP")
        per = {k: round(v / max(nflows, 1), 1) for k, v in tcp.items()
               if k != "TcpOutSegs"}
        line = (f"{run['ntcp']} {run['cc']} {run['scheme']:24s} t{run['trial']} "
                f"share {sh:.2f} kbit/s " + "/".join(f"{m / 1e3:.0f}" for m in means))
        s = run.get("sink")
        if s:
            g, n = growth_per_rtt(s["trace"])
            line += (f" | sink W {s.get('window')} rtt {s.get('rtt_ms')} ms halvings "
                     f"{s['halvings']} lost {s['lost']} rx_lost {s['rx_lost']} "
                     f"loss-based {s.get('loss_based')} growth/RTT {g:.2f} ({n})")
        print(line + f" | TCP per flow {per}")
