#!/usr/bin/env python3
"""table.py: the tables of docs/results.md "VLMCC: vplus, the TCP reference,
paced TCP and CBR-fair on the 2 Mbit/s tbf" from the b*.json files here (and,
with --grid, the VLMCC / TFMCC trials of the g*.json files beside
vlmcc-grid-rest's). Rates over 15-80 s as the bench computes them."""
import glob
import json
import os
import re
import statistics
import sys

os.environ["BENCH_VLMCC_TIMES"] = "80,15"
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "tests", "bench"))
import bench_vlmcc_fairness as bench  # noqa: E402

ARMS = ["VLMCC-vplus", "TCP", "TCP-paced", "CBR-fair"]
# CBR-fair's payload share when nothing of it is lost: 1000-byte datagrams
# paced at b / (N + 1) on the wire, 42 bytes of headers each
CBR_FULL = 1000 / 1042
SPAN = 80 - 15


def loads(log):
    """The load the bench printed at the end of each run of a call, in order."""
    with open(log) as fp:
        return [float(m.group(1)) for m in
                re.finditer(r"^# \d+ s: .*; load ([0-9.]+)$", fp.read(), re.M)]


def runs(pattern):
    """[(run, load)] of the files matching pattern, in the order run."""
    out = []
    for path in sorted(glob.glob(os.path.join(HERE, pattern)),
                       key=lambda p: (os.path.basename(p)[1], p)):
        ld = loads(path[:-5] + ".log")
        for i, run in enumerate(json.load(open(path))):
            out.append((run, ld[i] if i < len(ld) else float("nan")))
    return out


def figures(run):
    """The arm's share, the cubic flows' shares, and the losses: the arm's
    (VLMCC: packets the receiver missed / sent; CBR-fair: payload short of
    what was sent) and the TCP sender's retransmitted / sent segments (all
    its flows: with TCP and TCP-paced the arm's flow among them), loss
    events per s (VLMCC halvings; TCP fast recoveries + timeouts)."""
    m = bench.metrics(run)
    fair = run["b"] / (run["ntcp"] + 1)
    out = dict(share=m["share"], f=m["f_means"], fw=m["f_window"],
               cross=[k * 1e3 / fair for k in m["tcp_kbps"]])
    t = run.get("tcp") or {}
    if t.get("TcpOutSegs"):
        out["tcp_loss"] = t["TcpRetransSegs"] / t["TcpOutSegs"]
        out["tcp_events"] = (t["TcpExtTCPSackRecovery"] + t["TcpExtTCPTimeouts"]) / SPAN
        out["tcp_segs"] = t["TcpOutSegs"] / SPAN
    s = run.get("sink") or {}
    if s.get("sent"):
        out["loss"] = s["rx_lost"] / s["sent"]
        out["events"] = s["halvings"] / SPAN
        out["sink"] = s
    if run["scheme"] == "CBR-fair":
        out["loss"] = 1 - m["share"] / CBR_FULL
    return out


def med(xs, spec):
    xs = [x for x in xs if x is not None]
    return format(statistics.median(xs), spec) if xs else "-"


def main():
    by = {}
    for run, load in runs("b*.json"):
        if run["ok"]:
            by.setdefault(run["ntcp"], {}).setdefault(run["scheme"], []).append(
                (figures(run), load))
    print("| cubic flows | arm | trials | share of fair (each trial) | f over means | f per 1 s | "
          "cubic flows' shares (min-max over trials) | arm's loss | TCP sender: "
          "retransmitted / sent | TCP loss events per s | load |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for n in sorted(by):
        for arm in ARMS:
            got = by[n].get(arm, [])
            if not got:
                continue
            fs = [f for f, _ in got]
            cross = [c for f in fs for c in f["cross"]]
            print(f"| {n} | {arm} | {len(fs)} | {med([f['share'] for f in fs], '.2f')} ("
                  + ", ".join(f"{f['share']:.2f}" for f in fs) + ") | "
                  f"{med([f['f'] for f in fs], '.3f')} | {med([f['fw'] for f in fs], '.3f')} | "
                  f"{min(cross):.2f}-{max(cross):.2f} | "
                  + (med([f.get('loss') and 100 * f['loss'] for f in fs], '.2f') + " %"
                     if any('loss' in f for f in fs) else "-") + " | "
                  + med([f.get('tcp_loss') and 100 * f['tcp_loss'] for f in fs], '.2f') + " % | "
                  + med([f.get('tcp_events') for f in fs], '.2f') + " | "
                  + ", ".join(f"{ld:.1f}" for _, ld in got) + " |")
    print("\n| cubic flows | trial | VLMCC-vplus: median W (packets) / base RTT / RTT (ms) / "
          "time loss-based | its halvings per s | the cubic flows' fast recoveries + "
          "timeouts per s per flow | queue over the base (packets of 1042 bytes) |\n"
          "|---|---|---|---|---|---|")
    for n in sorted(by):
        for i, (f, _) in enumerate(by[n].get("VLMCC-vplus", [])):
            k = f["sink"]
            queue = (k["rtt_ms"] - k["base_ms"]) / (1042 * 8 / 2e3)
            print(f"| {n} | {i + 1} | {k['window']:.0f} / {k['base_ms']:.0f} / {k['rtt_ms']:.0f} / "
                  f"{k['loss_based']:.0%} | {f['events']:.2f} | {f['tcp_events'] / n:.2f} | "
                  f"{queue:.0f} |")
    if "--grid" in sys.argv:
        grid()
    ss_table()


def ss_flows(run):
    """Per TCP flow of a run with the ss trace, over 15-80 s: its port (5200 is
    the TCP arm's own flow), median cwnd (segments), segments sent and
    retransmitted, and the growth of its cwnd per smoothed RTT over the
    0.25 s samples between which its ssthresh did not move nor its cwnd fall."""
    tw = [(t, socks) for t, socks in run.get("tcp_windows", []) if 15 <= t < 80]
    out = []
    for port in sorted({s[0] for _, socks in tw for s in socks}):
        seq = [(t, s) for t, socks in tw for s in socks if s[0] == port]
        grow = [(b[1] - a[1]) / ((tb - ta) / (a[3] / 1e3)) for (ta, a), (tb, b) in
                zip(seq, seq[1:]) if b[2] == a[2] and b[1] >= a[1] and a[3] > 0]
        out.append(dict(port=port, cwnd=statistics.median(s[1] for _, s in seq),
                        segs=seq[-1][1][4] - seq[0][1][4],
                        retrans=seq[-1][1][5] - seq[0][1][5],
                        growth=statistics.mean(grow) if grow else 0.0))
    return out


def sink_growth(run):
    """VLMCC's window growth per RTT over the 0.5 s stats samples in 15-80 s
    between which it did not halve nor fall."""
    tr = [x for x in (run.get("sink") or {}).get("trace", []) if 15 <= x[0] < 80]
    g = [(b[1] - a[1]) / ((b[0] - a[0]) / (a[2] / 1e3)) for a, b in zip(tr, tr[1:])
         if b[6] == a[6] and b[1] >= a[1] and a[2] > 0]
    return statistics.mean(g) if g else None


def ss_table():
    got = runs("s*.json")
    if not got:
        return
    print("\n| cubic flows | arm | flow (port) | median cwnd (segments) | retransmitted / sent "
          "| cwnd growth per RTT between reductions |\n|---|---|---|---|---|---|")
    for run, _ in got:
        s = run.get("sink") or {}
        if s.get("sent"):
            print(f"| {run['ntcp']} | {run['scheme']} | VLMCC | W {s['window']:.0f} packets | "
                  f"{s['rx_lost']} / {s['sent']} ({100 * s['rx_lost'] / s['sent']:.2f} %) | "
                  f"{sink_growth(run):.2f} packets |")
        for f in ss_flows(run):
            print(f"| {run['ntcp']} | {run['scheme']} | {f['port']} | {f['cwnd']:.0f} | "
                  f"{f['retrans']} / {f['segs']} ({100 * f['retrans'] / max(f['segs'], 1):.2f} %) | "
                  f"{f['growth']:.2f} |")


def grid():
    """VLMCC and TFMCC over the three trials of the four grid cells:
    vlmcc-grid-rest's p1 and the g2 / g3 calls here."""
    cells = {}
    rest = os.path.join(HERE, "..", "vlmcc-grid-rest")
    for path in sorted(glob.glob(os.path.join(rest, "p1-*.json"))) + \
            sorted(glob.glob(os.path.join(HERE, "g*.json"))):
        ld = loads(path[:-5] + ".log")
        for i, run in enumerate(json.load(open(path))):
            if run["ok"] and run["scheme"] in ("VLMCC", "TFMCC"):
                m = bench.metrics(run)
                cells.setdefault((run["qdisc"], run["ntcp"]), {}).setdefault(
                    run["scheme"], []).append((m, ld[i] if i < len(ld) else float("nan")))
    print("\n| cell | VLMCC (paper): f over means / f per 1 s / share | trials (share, load) "
          "| TFMCC: f / f per 1 s / share | trials (share, load) |\n|---|---|---|---|---|")
    for (q, n), d in sorted(cells.items(), key=lambda kv: (kv[0][0] != "tbf", kv[0])):
        row = [f"{q}, {n} cubic"]
        for s in ("VLMCC", "TFMCC"):
            ms = d.get(s, [])
            row.append(" / ".join(med([m[k] for m, _ in ms], spec) for k, spec in
                                  (("f_means", ".3f"), ("f_window", ".3f"), ("share", ".2f"))))
            row.append(", ".join(f"{m['share']:.2f} ({ld:.1f})" for m, ld in ms))
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
