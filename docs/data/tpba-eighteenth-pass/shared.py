#!/usr/bin/env python3
"""The eighteenth pass (docs/results.md): are loss events per second shared
between TPBA's probe and the TCP flows beside it? From the `ss -ti` samples
the bench stores with BENCH_TPBA_SS (every TCP connection of the sender,
about every 100 ms: rtt, cwnd, total retransmissions, delivery rate), each
connection's loss events: a sample whose total retransmissions grew starts
one unless it is within one RTT (the sample's) of the last event's start,
as tpbacore counts them for kept-rate=equation*.

Per case, over every probing period after a run's first that ends by JOIN
(cycles.judged_periods), from its cycle 1 (t0 + 1 s) to its end:
- e_probe and e_tcp: loss events a second of TPBA's probing connection and
  the mean of the TCP flows' (the joiner left out), and their ratio; e_core,
  what tpbacore itself counted (TCP_INFO every 10 ms), from the period's
  equation-rate and equation-rtt (e = f 3 8 s / (2 X R^2), s = 1448, f the
  variant's episodes-factor);
- R_probe and R_tcp: the mean of their RTT samples, ms;
- the per-second rule 3 / (2 e R^2) packets of 1448 bytes a second over
  the TCP flows' measured mean rate, fed (a) the probe's e and R (what
  kept-rate=equation-episodes keeps at factor 1), (b) the TCP flows' own e
  and R (is the rule their rate?), (c) the TCP flows' e at the probe's R
  (the rule if the events were shared), and the kept r_s as run.
The reference runs (a TCP flow in TPBA's place) give the same over the
steady window [WARMUP, JOIN): the flow in TPBA's place against the others.
--pool K: (a) with e and R pooled over the run's last K judged periods
(events and seconds summed), a longer window with more events.
Per run the median, per case and variant the median of run medians [range].
Usage: BENCH_TPBA_TIMES=80,65,75 shared.py [--pool K] RUNS.json ..."""
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

SEGMENT = 1448
WARMUP = 10
PROBE_PORT, CROSS_PORT = 5004, 6000


def loss_events(samples):
    """Start times of a connection's loss events (ss rows: t, rtt ms, cwnd,
    total retransmissions (-1: none), ...)."""
    out, last, start = [], 0, None
    for t, rtt, _, retrans, *_ in samples:
        retrans = max(retrans, 0)
        if retrans < last:            # a new connection on the same port
            last = retrans
        if retrans > last:
            if start is None or rtt <= 0 or t - start >= rtt / 1000:
                out.append(t)
                start = t
            last = retrans
    return out


def span_stats(samples, events, a, b):
    """(events a second, mean RTT s) of one connection over [a, b)."""
    rtts = [rtt for t, rtt, *_ in samples if a <= t < b and rtt > 0]
    n = sum(a <= t < b for t in events)
    return n / (b - a), (statistics.mean(rtts) / 1000 if rtts else -1)


def rule(per_s, rtt):
    """3 / (2 e R^2) packets of SEGMENT bytes a second, bits/s."""
    return 8 * SEGMENT * 3 / (2 * per_s * rtt * rtt) if per_s > 0 and rtt > 0 else None


def tcp_mean(run, a, b):
    n, R = run["ntcp"], run["R"]
    js = range(int(a), int(b))
    return statistics.mean(statistics.mean(R[k][j] for j in js) for k in range(1, n + 1))


def flows(run):
    ss = run["ss"]
    ports = [str(CROSS_PORT + k) for k in range(run["ntcp"])]
    if str(PROBE_PORT) not in ss or any(p not in ss for p in ports):
        return None
    return {p: (ss[p], loss_events(ss[p])) for p in [str(PROBE_PORT)] + ports}


def between(fl, a, b):
    """(e_probe, R_probe, e_tcp mean, R_tcp mean) over [a, b)."""
    probe = span_stats(*fl[str(PROBE_PORT)], a, b)
    tcp = [span_stats(*v, a, b) for p, v in fl.items() if p != str(PROBE_PORT)]
    rt = [r for _, r in tcp if r > 0]
    return (probe[0], probe[1], statistics.mean(e for e, _ in tcp),
            statistics.mean(rt) if rt else -1)


def core_per_s(run, t1):
    """e as tpbacore counted it for the period ending at t1 (equation-episodes
    runs only), from the first running sample after t1."""
    factor = 0.75 if run["variant"].endswith("eqep075") else 1.0
    for t, period, _, _, _, rtt, rate in run.get("tcp", []):
        if period == "running" and t > t1:
            if rate > 0 and rtt > 0 and "eqep" in run["variant"]:
                return factor * 8 * SEGMENT * 3 / (2 * rate * (rtt / 1e9) ** 2)
            return None
    return None


def tpba_periods(run, pool):
    fl = flows(run)
    if fl is None:
        return []
    spans = []
    for t0, t1, r_s, tcp in cycles.judged_periods(run):
        a, b = t0 + 1, t1
        if b - a < 2 or tcp <= 1e3:
            continue
        ep, rp, et, rt = between(fl, a, b)
        spans.append((a, b, ep, rp))
        rows = dict(e_probe=ep, e_core=core_per_s(run, t1), e_tcp=et, r_probe=rp, r_tcp=rt, kept=r_s / tcp,
                    own=rule(ep, rp), theirs=rule(et, rt), shared=rule(et, rp))
        if pool > 1:
            last = spans[-pool:]
            secs = sum(y - x for x, y, _, _ in last)
            e = sum(e * (y - x) for x, y, e, _ in last) / secs
            r = statistics.mean(r for *_, r in last if r > 0)
            rows["pooled"] = rule(e, r)
        for k in ("own", "theirs", "shared", "pooled"):
            if k in rows and rows[k] is not None:
                rows[k] /= tcp
        yield rows


def reference(run):
    """The flow in TPBA's place over [WARMUP, JOIN) against the others."""
    fl = flows(run)
    if fl is None:
        return []
    a, b = WARMUP, cycles.JOIN
    ep, rp, et, rt = between(fl, a, b)
    own = statistics.mean(run["R"][0][a:b])
    tcp = tcp_mean(run, a, b)
    return [dict(e_probe=ep, e_core=None, e_tcp=et, r_probe=rp, r_tcp=rt, kept=own / tcp,
                 own=(rule(ep, rp) or 0) / tcp, theirs=(rule(et, rt) or 0) / tcp,
                 shared=(rule(et, rp) or 0) / tcp)]


def cell(runs, key, spec="{:.2f}"):
    meds = sorted(statistics.median(x[key] for x in r if x.get(key) is not None)
                  for r in runs if any(x.get(key) is not None for x in r))
    if not meds:
        return "-"
    return (spec.format(statistics.median(meds)) + " [" + spec.format(meds[0]) + "-"
            + spec.format(meds[-1]) + "]")


def ratio_cell(runs):
    meds = sorted(statistics.median(x["e_probe"] / x["e_tcp"] for x in r if x["e_tcp"] > 0)
                  for r in runs if any(x["e_tcp"] > 0 for x in r))
    return f"{statistics.median(meds):.2f} [{meds[0]:.2f}-{meds[-1]:.2f}]" if meds else "-"


def main(argv):
    pool = 1
    if argv[:1] == ["--pool"]:
        pool, argv = int(argv[1]), argv[2:]
    cells = {}
    for path in argv:
        for run in json.load(open(path)):
            if not run.get("ok") or "ss" not in run:
                continue
            rows = list(reference(run) if run["variant"] == "TCP"
                        else tpba_periods(run, pool))
            if rows:
                key = (run["b"], run["ntcp"], run["cc"], run["variant"])
                cells.setdefault(key, []).append(rows)
    print("| case | variant | runs / spans | e_probe, 1/s | e_core, 1/s | e_tcp, 1/s "
          "| e_probe / e_tcp "
          "| R_probe, ms | R_tcp, ms | kept / TCP | rule(e_probe, R_probe) / TCP "
          "| rule(e_tcp, R_tcp) / TCP | rule(e_tcp, R_probe) / TCP"
          + (f" | rule pooled over {pool} / TCP |" if pool > 1 else " |"))
    print("|---" * (14 if pool > 1 else 13) + "|")
    for (b, n, cc, v), runs in sorted(cells.items()):
        ms = "{:.0f}"
        print(f"| {b / 1e6:g} Mbit/s, {n} {cc} | {v.replace('TPBA-ours-cap6-ratio3-step1-', '')} "
              f"| {len(runs)} / {sum(len(r) for r in runs)} | {cell(runs, 'e_probe')} "
              f"| {cell(runs, 'e_core')} "
              f"| {cell(runs, 'e_tcp')} | {ratio_cell(runs)} "
              f"| {cell([[dict(x, r_probe=x['r_probe'] * 1e3) for x in r] for r in runs], 'r_probe', ms)} "
              f"| {cell([[dict(x, r_tcp=x['r_tcp'] * 1e3) for x in r] for r in runs], 'r_tcp', ms)} "
              f"| {cell(runs, 'kept')} | {cell(runs, 'own')} | {cell(runs, 'theirs')} "
              f"| {cell(runs, 'shared')}"
              + (f" | {cell(runs, 'pooled')} |" if pool > 1 else " |"))


if __name__ == "__main__":
    main(sys.argv[1:])
